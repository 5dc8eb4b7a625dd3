/**
 * What the HTTP path costs per request, route by route, in CPU (`process.cpuUsage()`) rather than
 * wall time (the machine is shared): the real Hono app driven in process (`app.request`, no
 * sockets) over a real Redis store, support workflows waiting for approval, one request at a
 * time. Beside each route, its parts measured alone (the store's read, the view, its JSON) and
 * the levers of issue 25, each alternating old and new code in rounds within this one process.
 * `npm run bench:routes [-- --workflows N] [-- --rounds N] [-- --json]`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import pino from 'pino';
import { workflows } from '../machines/index.ts';
import { createAuthenticator } from '../src/api/auth.ts';
import { createApp } from '../src/api/create-app.ts';
import { workflowKit } from '../src/api/routes/workflows/kit.ts';
import type { ApiEnv } from '../src/api/context.ts';
import { requestIdSource, requestIds } from '../src/api/request-id.ts';
import { apiDeps } from '../src/api/server.ts';
import { workflowView } from '../src/api/views.ts';
import { fillTemplate } from '../src/authoring/presentation.ts';
import { loadConfig } from '../src/config.ts';
import { auditEvidenceOf } from '../src/engine/audit-evidence.ts';
import { canonicalJson, sha256Hex } from '../src/engine/canonical-json.ts';
import type { WorkflowRecord } from '../src/engine/decision.ts';
import type { Principal } from '../src/engine/principal.ts';
import type { WorkflowStore } from '../src/engine/store-port.ts';
import { connectRedis, deleteKeysWithPrefix } from '../src/store/redis/connect.ts';
import { createSystem } from '../src/system.ts';
import { tokenMinter } from '../test/support/tokens.ts';
import { referenceCanonicalJson } from '../test/support/reference-canonical-json.ts';
import { referenceSha256Hex } from '../test/support/reference-sha256.ts';
import { referenceFillTemplate } from '../test/support/reference-template.ts';

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
// The same API over a store that hands out unfrozen copies of its records: the view cache renders
// every request afresh there, as before it existed (the copy, a shallow one, costs about 1 µs).
const copying: WorkflowStore = Object.create(system.store) as WorkflowStore;
copying.load = async (id) => {
  const record = await system.store.load(id);
  return record ? { ...record } : record;
};
const uncachedApp = createApp({ ...deps, store: copying });
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

const requestOn = (on: typeof app, method: string, path: string, bearer: string, body?: unknown): Promise<Response> =>
  Promise.resolve(
    on.request(path, {
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

const request = (method: string, path: string, bearer: string, body?: unknown) =>
  requestOn(app, method, path, bearer, body);

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
  const results: Record<string, Record<string, number>> = {};

  results['GET /v1/workflows/:id (approver): fresh vs cached view'] = await alternate(n, {
    fresh: (i) => requestOn(uncachedApp, 'GET', `/v1/workflows/${id(i)}`, approverToken).then((r) => r.text()),
    cached: (i) => request('GET', `/v1/workflows/${id(i)}`, approverToken).then((r) => r.text()),
  });
  results['GET /v1/workflows/:id (agent): fresh vs cached view'] = await alternate(n, {
    fresh: (i) => requestOn(uncachedApp, 'GET', `/v1/workflows/${id(i)}`, agentToken).then((r) => r.text()),
    cached: (i) => request('GET', `/v1/workflows/${id(i)}`, agentToken).then((r) => r.text()),
  });
  results['GET /v1/workflows/:id?afterVersion=0 (long poll, at once)'] = await alternate(n, {
    request: (i) => request('GET', `/v1/workflows/${id(i)}?afterVersion=0`, agentToken).then((r) => r.text()),
  });
  const queue = '/v1/workflows?state=awaitingApproval&definition=support&limit=200';
  results['GET /v1/workflows?state=…&limit=200: fresh vs cached summaries'] = await alternate(Math.max(5, n / 20), {
    fresh: () => requestOn(uncachedApp, 'GET', queue, approverToken).then((r) => r.text()),
    cached: () => request('GET', queue, approverToken).then((r) => r.text()),
  });
  results['GET /v1/definitions'] = await alternate(n, {
    request: () => request('GET', '/v1/definitions', agentToken).then((r) => r.text()),
  });
  results['store.load (record cache hit)'] = await alternate(n, { load: (i) => system.store.load(id(i)) });
  results['view, approver: fresh vs kit (cached)'] = await alternate(n, {
    fresh: (i) => fresh(recordOf(i), approver),
    kit: (i) => kit.view(recordOf(i), approver),
  });
  results['view, agent: fresh vs kit (cached)'] = await alternate(n, {
    fresh: (i) => fresh(recordOf(i), agent),
    kit: (i) => kit.view(recordOf(i), agent),
  });
  // The request id middleware alone, before a route that answers at once: hono's (randomUUID) and ours.
  const withIds = (ids: ReturnType<typeof requestIds>) =>
    new Hono<ApiEnv>().use('*', ids).get('/x', (c) => c.json({ requestId: c.get('requestId') }));
  const uuidApp = withIds(requestId({ limitLength: 100 }) as ReturnType<typeof requestIds>);
  const counterApp = withIds(requestIds({ limitLength: 100 }));
  results['request id middleware: randomUUID vs prefix+counter'] = await alternate(n * 10, {
    uuid: () => Promise.resolve(uuidApp.request('/x')).then((r) => r.text()),
    counter: () => Promise.resolve(counterApp.request('/x')).then((r) => r.text()),
  });
  const nextId = requestIdSource();
  results['a request id alone: randomUUID vs prefix+counter'] = await alternate(n * 100, {
    uuid: () => crypto.randomUUID(),
    counter: () => nextId(),
  });
  const view = fresh(recordOf(0), approver);
  results['JSON.stringify(view)'] = await alternate(n, { stringify: () => JSON.stringify(view) });

  const rendered = view as unknown as Record<string, unknown>;
  const templates = [
    'v{recommendation.version}: {recommendation.action} of {recommendation.amount} {recommendation.currency}',
    '{recommendation.rationale}',
    '[{approval.approverId} ]{recommendation.contentHash?hashed|not hashed}',
  ];
  results['fillTemplate ×3: reference vs compiled'] = await alternate(n * 10, {
    reference: () => templates.map((t) => referenceFillTemplate(t, rendered)),
    compiled: () => templates.map((t) => fillTemplate(t, rendered)),
  });
  const approval = {
    recommendationVersion: 1,
    contentHash: `sha256:${'a'.repeat(64)}`,
    amount: 40,
    reason: 'Double charge confirmed',
  };
  results['auditEvidenceOf(approval payload)'] = await alternate(n * 10, { evidence: () => auditEvidenceOf(approval) });
  const canonical = canonicalJson(approval);
  results['canonicalJson: sorted copy vs direct vs JSON.stringify (approval payload)'] = await alternate(n * 10, {
    copy: () => referenceCanonicalJson(approval),
    direct: () => canonicalJson(approval),
    plain: () => JSON.stringify(approval),
  });
  results['canonicalJson: sorted copy vs direct (a view’s evidence)'] = await alternate(n * 10, {
    copy: () => referenceCanonicalJson(rendered.evidence),
    direct: () => canonicalJson(rendered.evidence),
  });
  const recommendation = canonicalJson(rendered.evidence);
  results['sha256 of a recommendation: old pure vs pure vs node:crypto'] = await alternate(n * 10, {
    old: () => referenceSha256Hex(recommendation),
    pure: () => sha256Hex(recommendation),
    crypto: () => createHash('sha256').update(recommendation).digest('hex'),
  });
  results['sha256 of the approval: old pure vs pure vs node:crypto'] = await alternate(n * 10, {
    old: () => referenceSha256Hex(canonical),
    pure: () => sha256Hex(canonical),
    crypto: () => createHash('sha256').update(canonical).digest('hex'),
  });

  // The approval POST, once per workflow: rounds cannot repeat it, so it is measured once over them all.
  const approve = async (i: number) => {
    const current = (await (await request('GET', `/v1/workflows/${id(i)}`, approverToken)).json()) as {
      evidence: { recommendation: { version: number; contentHash: string; amount: number } };
    };
    const r = current.evidence.recommendation;
    return request('POST', `/v1/workflows/${id(i)}/events`, approverToken, {
      type: 'APPROVED',
      payload: { recommendationVersion: r.version, contentHash: r.contentHash, amount: r.amount },
    }).then((res) => res.text());
  };
  results['GET view + POST approval (once per workflow)'] = {
    request: Math.round((await cpuPer(n, approve)) * 10) / 10,
  };
  results['POST /v1/workflows (create)'] = {
    request: Math.round((await cpuPer(n, (i) => request('POST', '/v1/workflows', agentToken, refund(i)))) * 10) / 10,
  };

  if (asJson) console.log(JSON.stringify({ workflows: count, rounds, microsPerCall: results }, null, 2));
  else {
    console.log(`CPU µs per call, median of ${rounds} alternating rounds (${count} workflows)`);
    for (const [what, variants] of Object.entries(results)) {
      console.log(
        `${what.padEnd(52)} ${Object.entries(variants)
          .map(([k, v]) => `${k} ${v}`)
          .join('  ')}`,
      );
    }
  }
} finally {
  await runtime.stop();
  const redis = connectRedis({ url: redisUrl });
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
  await system.close();
}
