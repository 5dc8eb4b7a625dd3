/**
 * `warden demo`: one workflow driven to `completed` by the real runtime — workers, timer service,
 * local effect adapters — with the definition's demo script taking the human decisions. Memory store by default, Redis
 * when REDIS_URL is set. Prints each transition and the audit trail.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import type { AuditEntry, WorkflowRecord } from '../engine/decision.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import { createLogger } from '../observability/logger.ts';
import { createSystem } from '../system.ts';

export function formatAudit(entry: AuditEntry): string {
  const guard = entry.guard.guards.length > 0 ? ` [${entry.guard.outcome}: ${entry.guard.guards.join(', ')}]` : '';
  const jobs = entry.effects.length > 0 ? ` → ${entry.effects.join(', ')}` : '';
  const outcome = entry.outcome === 'accepted' ? '' : ` REFUSED ${entry.outcome}`;
  const from = entry.from.join(' + ') || '∅';
  const reason = entry.reason === null ? '' : ` — ${entry.reason}`;
  return `v${entry.version} ${entry.eventType} by ${entry.actor.id}: ${from} ⇒ ${entry.to.join(' + ')}${outcome}${guard}${jobs}${reason}`;
}

export async function runDemo(
  config: Config,
  registry: WorkflowRegistry,
  print: (line: string) => void,
  options: { definition?: string | undefined; timeoutMs?: number } = {},
  printError: (line: string) => void = print,
): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const bundle = registry.bundle(options.definition ?? registry.bundles[0]?.id ?? '');
  if (!bundle) {
    printError(
      `warden demo: unknown definition ${options.definition ?? ''}; registered: ${registry.bundles.map((b) => b.id).join(', ')}`,
    );
    return 2;
  }
  // Its own key space: a demo never joins (or takes shards from) a deployment sharing the Redis.
  // Only warnings are logged (the memory store's among them, once); the rest is the demo's own output.
  const system = createSystem(
    { ...config, WARDEN_PREFIX: `${config.WARDEN_PREFIX}-demo` },
    { definitions: registry.bundles, logger: createLogger({ ...config, LOG_LEVEL: 'warn' }) },
  );
  const runtime = system.runtime(new Set(['worker', 'timers']));
  print(`store: ${system.store.kind}`);
  await runtime.start();
  let record: WorkflowRecord | null = null;
  try {
    const created = await system.engine.createWorkflow({
      definitionId: bundle.id,
      body: bundle.demo.input(Date.now()),
      principal: bundle.demo.creator,
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
      const definition = system.engine.definitionOf(record);
      const context: unknown = restoreSnapshot(definition.machine, id, record.snapshot).context;
      const decision = bundle.demo.decide(context, record);
      if (decision) {
        print(decision.note);
        await system.engine.applyEvent(
          id,
          { type: decision.type, eventId: `${id}/demo/${decision.type}/v${record.version}`, payload: decision.payload },
          decision.principal,
        );
      }
      await sleep(20);
    }
  } finally {
    await runtime.stop();
    await system.close();
  }
  const final = record?.statePaths.join(', ') ?? 'none';
  print(`final state: ${final}`);
  return record?.status === 'done' && record.statePaths[0] === (bundle.demo.finalState ?? 'completed') ? 0 : 1;
}
