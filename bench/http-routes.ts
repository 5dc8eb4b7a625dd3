/**
 * What the HTTP path costs per request, route by route, in CPU (`process.cpuUsage()`) rather than
 * wall time (the machine is shared): the real Hono app driven in process (`app.request`, no
 * sockets) over a real Redis store, support workflows waiting for approval, one request at a
 * time. Beside each route, its parts measured alone (the store's read, the view, its JSON) and
 * the levers of issue 25, each alternating old and new code in rounds within this one process.
 * No runtime runs here: every line is the API alone, and the workflows' jobs are run between the
 * lines by the system's worker one at a time, measured by part (`routes-parts.ts`): a job's
 * delivery apart from its handler and its result's decision and commit; and a decision, a commit
 * and a wake-up alone (`routes-alone.ts`).
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
import { restoreSnapshot } from '../src/engine/snapshot.ts';
import { canonicalJson, sha256Hex } from '../src/engine/canonical-json.ts';
import type { WorkflowRecord } from '../src/engine/decision.ts';
import type { Principal } from '../src/engine/principal.ts';
import type { WorkflowStore } from '../src/engine/store-port.ts';
import { connectRedis, deleteKeysWithPrefix } from '../src/store/redis/connect.ts';
import { createSystem } from '../src/system.ts';
import { tokenMinter } from '../test/support/tokens.ts';
import { cpuPer, median } from './lib.ts';
import { decisionAndCommitAlone, wakeUpReceived, workflowParts } from './routes-alone.ts';
import { cpuMeter, jobDriver, tappedBundles, timedCommits } from './routes-parts.ts';
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
const meter = cpuMeter();
const tapped = tappedBundles(workflows, meter);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const system = createSystem(
  loadConfig({
    LOG_LEVEL: 'silent',
    REDIS_URL: redisUrl,
    WARDEN_PREFIX: prefix,
    WARDEN_RATE_PER_MINUTE: '0',
  }),
  {
    definitions: tapped.bundles,
    logger: pino({ level: 'silent' }),
    decorateStore: (store) => timedCommits(store, meter),
  },
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

const create = (i: number) =>
  request('POST', '/v1/workflows', agentToken, refund(i))
    .then((r) => r.json() as Promise<{ workflowId: string }>)
    .then((created) => created.workflowId);
const driver = jobDriver(system, meter, tapped.handlers);
const ids: string[] = [];
const results: Record<string, Record<string, number>> = {};
/** Every record of `workflowIds` passes `check`, or the bench stops: the lines below measure what they say. */
async function expectAll(workflowIds: readonly string[], what: string, check: (record: WorkflowRecord) => boolean) {
  for (const workflowId of workflowIds) {
    const record = await system.store.load(workflowId);
    if (!record || !check(record)) throw new Error(`${workflowId} is not ${what}: ${record?.statePaths.join(', ')}`);
  }
}
try {
  await driver.prepare();
  for (let i = 0; i < count; i++) ids.push(await create(i));
  const toApproval = await driver.measure(ids, rounds);
  await expectAll(ids, 'awaiting approval', (r) => r.statePaths.some((s) => s.endsWith('awaitingApproval')));

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
  // A job delivery's parts alone: the lease script and the record check, which the worker issues
  // together, and the snapshot restored to find the jobs the workflow waits for.
  const lease = (i: number) =>
    system.store.grantJobLease(id(i), `bench-job-${i}`, {
      token: 'bench',
      owner: 'bench',
      expiresAt: Date.now() + 1000,
    });
  results['a delivery alone: lease script, record check, both at once'] = await alternate(n, {
    lease,
    check: (i) => system.store.load(id(i)),
    both: (i) => Promise.all([system.store.load(id(i)), lease(i)]),
  });
  results['a delivery alone: snapshot restored, current jobs'] = await alternate(n, {
    restore: (i) => {
      const record = recordOf(i);
      const definition = deps.engine.definitionOf(record);
      const context: unknown = restoreSnapshot(definition.machine, record.workflowId, record.snapshot).context;
      return definition.currentJobs(context, record.statePaths);
    },
  });
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

  // The approval POST, once per workflow: a round that warms up, then `rounds` of them. The view
  // each approval names is read before, unmeasured.
  const approvals = ids.slice(0, Math.floor(ids.length / (rounds + 1)) * (rounds + 1));
  const payloads = new Map<string, unknown>();
  for (const workflowId of approvals) {
    const view = (await (await request('GET', `/v1/workflows/${workflowId}`, approverToken)).json()) as {
      evidence: { recommendation: { version: number; contentHash: string; amount: number } };
    };
    const r = view.evidence.recommendation;
    payloads.set(workflowId, { recommendationVersion: r.version, contentHash: r.contentHash, amount: r.amount });
  }
  let approved = 0;
  results['POST /v1/workflows/:id/events (approval)'] = await alternate(approvals.length / (rounds + 1), {
    request: () => {
      const workflowId = approvals[approved++] ?? '';
      return request('POST', `/v1/workflows/${workflowId}/events`, approverToken, {
        type: 'APPROVED',
        payload: payloads.get(workflowId),
      }).then((res) => res.text());
    },
  });
  const toEnd = await driver.measure(approvals, rounds);
  await expectAll(approvals, 'completed', (r) => r.status === 'done' && r.statePaths.includes('completed'));
  // Creations once the process is warm, as the approvals: workflows no other line uses, their jobs not run.
  const created: string[] = [];
  results['POST /v1/workflows (create)'] = await alternate(Math.ceil(count / rounds), {
    request: (i) => create(i).then((workflowId) => created.push(workflowId)),
  });
  // Their jobs to the approval with many in flight, as under load: 64 workflows' shards at a time.
  const together = [];
  for (let at = 0; at + 64 <= created.length; at += 64)
    together.push(await driver.together(created.slice(at, at + 64)));
  const finished = await system.store.load(approvals[0] ?? '');
  const alone = {
    ...(await decisionAndCommitAlone(system, n, rounds)),
    wakeUp: await wakeUpReceived(system, redisUrl, n * 10, rounds),
  };
  const parts = workflowParts({
    results,
    jobs: [toApproval.all, toEnd.all],
    jobsPerWorkflow: toApproval.jobsPerWorkflow + toEnd.jobsPerWorkflow,
    // The creation's write and the approval's commit each queue a job too.
    wakeUpsPerWorkflow: toApproval.wakeUpsPerWorkflow + toEnd.wakeUpsPerWorkflow + 2,
    alone,
    versionOfFinished: finished?.version ?? 0,
  });
  const worker = {
    toApproval: toApproval.all,
    toEnd: toEnd.all,
    plumbingOfGroups: [...toApproval.groups, ...toEnd.groups].map((g) => Math.round(g.plumbing)),
    together,
    outcomes: driver.outcomes(),
  };

  const tenth = (v: number) => Math.round(v * 10) / 10;
  if (asJson) {
    const report = { workflows: count, rounds, microsPerCall: results, worker, alone, parts };
    console.log(JSON.stringify(report, (_, v: unknown) => (typeof v === 'number' ? tenth(v) : v), 2));
  } else {
    console.log(`CPU µs per call, median of ${rounds} alternating rounds (${count} workflows)`);
    for (const [what, variants] of Object.entries(results)) {
      console.log(
        `${what.padEnd(52)} ${Object.entries(variants)
          .map(([k, v]) => `${k} ${v}`)
          .join('  ')}`,
      );
    }
    console.log(`\nThe worker, CPU µs per job, one at a time (${JSON.stringify(worker.outcomes)}):`);
    for (const [what, job] of [
      ['to the approval', worker.toApproval],
      ['after it', worker.toEnd],
    ] as const) {
      const { jobs: _, ...micros } = job;
      console.log(
        `${what.padEnd(16)} ${Object.entries(micros)
          .map(([k, v]) => `${k} ${tenth(v)}`)
          .join('  ')}`,
      );
    }
    console.log(`plumbing by group: ${worker.plumbingOfGroups.join(', ')}`);
    for (const { jobs, delivery, inFlight } of together) {
      console.log(`together: ${jobs} jobs to the approval, ${tenth(inFlight)} a read: delivery ${tenth(delivery)}`);
    }
    console.log(
      `alone: decision ${tenth(alone.decision)}  commit ${tenth(alone.commit)}  commit at 64 in flight ${tenth(alone.commitAt64)}  wake-up received ${tenth(alone.wakeUp)}`,
    );
    console.log('\nA support workflow, µs of Node CPU per part (handlers apart):');
    for (const { part, micros, count } of parts.parts) {
      console.log(
        `${part.padEnd(52)} ${String(tenth(micros)).padStart(7)} × ${tenth(count)} = ${Math.round(micros * count)}`,
      );
    }
    console.log(
      `${'total'.padEnd(52)} ${Math.round(parts.totalMicros)}   (handlers ${Math.round(parts.handlerMicros)})`,
    );
  }
} finally {
  const redis = connectRedis({ url: redisUrl });
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
  await system.close();
}
