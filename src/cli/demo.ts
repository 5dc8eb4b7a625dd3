/**
 * `warden demo`: one support request driven to `completed` by the real runtime — workers, timer
 * service, local effect adapters — with a demo approver approving. Memory store by default, Redis
 * when REDIS_URL is set. Prints each transition and the audit trail.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import type { SupportContext } from '../../machines/support.context.ts';
import type { Config } from '../config.ts';
import type { AuditEntry, WorkflowRecord } from '../engine/decision.ts';
import type { Principal } from '../engine/principal.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import { createSystem } from '../system.ts';

const agent: Principal = {
  id: 'demo-agent',
  tenantId: 'demo',
  kind: 'user',
  roles: ['support_agent'],
  approvalLimit: 0,
};
const approver: Principal = {
  id: 'demo-approver',
  tenantId: 'demo',
  kind: 'user',
  roles: ['support_approver'],
  approvalLimit: 500,
};

export function formatAudit(entry: AuditEntry): string {
  const guard = entry.guard.guards.length > 0 ? ` [${entry.guard.outcome}: ${entry.guard.guards.join(', ')}]` : '';
  const jobs = entry.effects.length > 0 ? ` → ${entry.effects.join(', ')}` : '';
  const outcome = entry.outcome === 'accepted' ? '' : ` REFUSED ${entry.outcome}`;
  const from = entry.from.join(' + ') || '∅';
  return `v${entry.version} ${entry.eventType} by ${entry.actor.id}: ${from} ⇒ ${entry.to.join(' + ')}${outcome}${guard}${jobs}`;
}

export async function runDemo(config: Config, print: (line: string) => void, timeoutMs = 30_000): Promise<number> {
  // Its own key space: a demo never joins (or takes shard leases from) a deployment sharing the Redis.
  const system = createSystem(
    { ...config, WARDEN_PREFIX: `${config.WARDEN_PREFIX}-demo` },
    { logger: pino({ level: 'warn' }) },
  );
  const runtime = system.runtime(new Set(['worker', 'timers']));
  print(`store: ${system.store.kind}${system.store.kind === 'memory' ? ' (nothing survives a restart)' : ''}`);
  await runtime.start();
  let record: WorkflowRecord | null = null;
  try {
    const created = await system.engine.createWorkflow({
      body: {
        request: {
          customerId: 'cust-42',
          subject: 'Charged twice',
          message: 'Order 1234 was billed twice; please refund the duplicate charge.',
          orderId: '1234',
          requestedAmount: 42,
          currency: 'EUR',
        },
      },
      principal: agent,
      correlationId: 'demo-case-1',
    });
    if (created.outcome === 'refused') throw new Error(`creation refused: ${created.message}`);
    const id = created.record.workflowId;
    print(`workflow ${id} created`);
    let shown = 0;
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      record = await system.store.load(id);
      if (!record) throw new Error('the workflow vanished');
      const audit = await system.store.auditPage(id, { limit: 1000 });
      for (const entry of audit.items.slice(shown)) print(formatAudit(entry));
      shown = audit.items.length;
      if (record.status === 'done') break;
      if (record.statePaths.includes('beforeAction.awaitingApproval')) {
        const definition = system.engine.definitionOf(record);
        const context = restoreSnapshot(definition.machine, id, record.snapshot).context as SupportContext;
        const rec = context.recommendation;
        if (rec) {
          print(
            `approver sees: refund ${rec.amount} ${rec.currency}, recommendation v${rec.version} ${rec.contentHash}`,
          );
          await system.engine.applyEvent(
            id,
            {
              type: 'APPROVED',
              eventId: `${id}/demo-approval/v${rec.version}`,
              payload: { recommendationVersion: rec.version, contentHash: rec.contentHash, amount: rec.amount },
            },
            approver,
          );
        }
      }
      await sleep(20);
    }
  } finally {
    await runtime.stop();
    await system.close();
  }
  const final = record?.statePaths.join(', ') ?? 'none';
  print(`final state: ${final}`);
  return record?.status === 'done' && record.statePaths[0] === 'completed' ? 0 : 1;
}
