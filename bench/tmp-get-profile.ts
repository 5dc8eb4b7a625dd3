/**
 * What the HTTP path costs per request, route by route, in CPU (`process.cpuUsage()`) rather than
 * wall time (the machine is shared): the real Hono app driven in process (`app.request`, no
 * sockets) over a real Redis store, support workflows waiting for approval, one request at a
 * time. Beside each route, its parts measured alone (the store's read, the view, its JSON) and
 * the levers of issue 25, each alternating old and new code in rounds within this one process.
 * `npm run bench:routes [-- --workflows N] [-- --rounds N] [-- --json]`.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { workflows } from '/work/wt-perfview/machines/index.ts';
import { createAuthenticator } from '/work/wt-perfview/src/api/auth.ts';
import { createApp } from '/work/wt-perfview/src/api/create-app.ts';
import { workflowKit } from '/work/wt-perfview/src/api/routes/workflows/kit.ts';
import { apiDeps } from '/work/wt-perfview/src/api/server.ts';
import { workflowView } from '/work/wt-perfview/src/api/views.ts';
import { fillTemplate } from '/work/wt-perfview/src/authoring/presentation.ts';
import { loadConfig } from '/work/wt-perfview/src/config.ts';
import { auditEvidenceOf } from '/work/wt-perfview/src/engine/audit-evidence.ts';
import type { WorkflowRecord } from '/work/wt-perfview/src/engine/decision.ts';
import type { Principal } from '/work/wt-perfview/src/engine/principal.ts';
import { connectRedis, deleteKeysWithPrefix } from '/work/wt-perfview/src/store/redis/connect.ts';
import { createSystem } from '/work/wt-perfview/src/system.ts';
import { tokenMinter } from '/work/wt-perfview/test/support/tokens.ts';
import { referenceFillTemplate } from '/work/wt-perfview/test/support/reference-template.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const count = option('workflows', 200);
const rounds = option('rounds', 5);
const asJson = args.includes('--json');

const secret = 'bench-routes-secret-0123456789';
const prefix = `bench-routes-${randomBytes(4).toString('hex')}`;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const system = createSystem(
  loadConfig({
    LOG_LEVEL: 'silent',
    REDIS_URL: redisUrl,
    WARDEN_PREFIX: prefix,
    WARDEN_POLL_MS: '5',
    WARDEN_RATE_PER_MINUTE: '0',
  }),
  { definitions: workflows, logger: pino({ level: 'silent' }) },
);
const deps = apiDeps(system, createAuthenticator({ secret }));
const app = createApp(deps);
const token = tokenMinter(secret);
const agentToken = await token('agent-1', 'acme', ['support_agent']);
const approverToken = await token('alice', 'acme', ['support_approver'], 1000);
const agent: Principal = { id: 'agent-1', tenantId: 'acme', roles: ['support_agent'], kind: 'user', claims: {} };
const approver: Principal = {
  id: 'alice',
  tenantId: 'acme',
  roles: ['support_approver'],
  kind: 'user',
  claims: { approvalLimit: 1000 },
};

const request = (method: string, path: string, bearer: string, body?: unknown): Promise<Response> =>
  Promise.resolve(
    app.request(path, {
      method,
      headers: {
        Authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );

const refund = (i: number) => ({
  request: {
    customerId: 'cust-1',
    subject: `Charged twice ${i}`,
    message: 'Billed twice for March.',
    requestedAmount: 40,
    currency: 'EUR',
  },
});

/** CPU µs per call of `fn` over `n` calls, one at a time. */
async function cpuPer(n: number, fn: (i: number) => unknown): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Each of `variants` measured in every round, in alternating order: median µs per call of each. */
async function alternate(n: number, variants: Record<string, (i: number) => unknown>) {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  const names = Object.keys(variants);
  // A round first that counts for nothing: the code paths compiled before any is measured.
  for (const fn of Object.values(variants)) await cpuPer(n, fn);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const fn = variants[name];
      if (fn) samples[name]?.push(await cpuPer(n, fn));
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, Math.round(median(v) * 10) / 10]));
}

const runtime = system.runtime(new Set(['worker', 'timers']));
await runtime.start();
const ids: string[] = [];
try {
  for (let i = 0; i < count; i++) {
    const created = await request('POST', '/v1/workflows', agentToken, refund(i));
    ids.push(((await created.json()) as { workflowId: string }).workflowId);
  }
  const until = Date.now() + 120_000;
  for (;;) {
    const records = await Promise.all(ids.map((id) => system.store.load(id)));
    if (records.every((r) => r?.statePaths.some((s) => s.endsWith('awaitingApproval')))) break;
    if (Date.now() > until) throw new Error('the workflows did not reach awaitingApproval in 120 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Nothing moves while the reads are measured.
  await runtime.stop();

  const id = (i: number) => ids[i % ids.length] ?? '';
  const records = new Map<string, WorkflowRecord>();
  for (const workflowId of ids) {
    const record = await system.store.load(workflowId);
    if (record) records.set(workflowId, record);
  }
  const recordOf = (i: number) => records.get(id(i)) as WorkflowRecord;
  const kit = workflowKit(deps);
  const fresh = (record: WorkflowRecord, principal: Principal) => {
    const definition = deps.engine.definitionOf(record);
    return workflowView(deps.registry.bundle(definition.id), definition, record, principal, Date.now());
  };
  const n = count;
  for (let i = 0; i < 6000; i++) await request('GET', `/v1/workflows/${id(i)}`, approverToken).then((r) => r.text());
  void recordOf; void kit; void fresh; void n;
} finally {
  await runtime.stop();
  await system.close();
}
