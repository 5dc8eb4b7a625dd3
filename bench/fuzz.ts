/**
 * `npm run reliability:fuzz [-- --requests N]`: generated requests (100,000 by default) against a
 * running `warden serve` (API, workers and timers in their own process) on the real Redis. Passes
 * when no request got a 5xx and no stored workflow breaks the refund invariant: an executed or
 * attempted refund needs a passed validation of the current recommendation, a current approval by
 * an authorised approver within their limit, and the idempotency key of that version.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { registry } from '../machines/index.ts';
import type { SupportContext } from '../machines/support/support.context.ts';
import { supportEventTypes, type SupportEventType } from '../machines/support/support.events.ts';
import { tokenMinter } from '../test/support/tokens.ts';
import { restoreSnapshot } from '../src/engine/snapshot.ts';
import { payloadFor } from '../test/support/payloads.ts';
import { refundViolations } from '../machines/support/paths/invariants.ts';
import { connectRedis, deleteKeysWithPrefix } from '../src/store/redis/connect.ts';
import { startServer } from './server.ts';
import { RedisStore } from '../src/store/redis/redis-store.ts';
import { numberArgument } from './lib.ts';

const total = numberArgument('--requests', 100_000);
const inFlight = 32;

interface Request {
  method: string;
  path: string;
  token: string;
  body?: string;
  headers?: Record<string, string>;
}

async function main() {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `fuzz-${randomBytes(4).toString('hex')}`;
  const server = await startServer([], {
    REDIS_URL: url,
    WARDEN_PREFIX: prefix,
    WARDEN_SHARDS: '16',
    WARDEN_POLL_MS: '5',
  });
  const { origin, secret } = server;
  const client = connectRedis({ url, name: 'warden-fuzz' });
  try {
    const token = tokenMinter(secret);
    const tokens = {
      agent: await token('agent-1', 'acme', ['support_agent']),
      approver: await token('alice', 'acme', ['support_approver'], 1000),
      smallApprover: await token('bob', 'acme', ['support_approver'], 10),
      reviewer: await token('rita', 'acme', ['support_reviewer']),
      otherApprover: await token('mallory', 'globex', ['support_approver'], 1_000_000),
      worker: await token('worker-x', 'system', ['worker'], 0, 'service'),
    };
    const anyToken = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...Object.values(tokens)) },
      { weight: 1, arbitrary: fc.constantFrom('', 'garbage', `${tokens.agent}x`) },
    );
    const store = new RedisStore(client, { prefix, shards: 16 });
    const ids: string[] = [];
    const send = async (request: Request) => {
      const response = await fetch(`${origin}${request.path}`, {
        method: request.method,
        headers: { Authorization: `Bearer ${request.token}`, 'Content-Type': 'application/json', ...request.headers },
        ...(request.body === undefined ? {} : { body: request.body }),
      });
      const text = await response.text();
      return { status: response.status, text };
    };

    // Requests: creations, events on known workflows (valid catalogue payloads, mutated ones and
    // junk), reads, and malformed paths, methods and bodies.
    const eventType = fc.constantFrom<string>(...supportEventTypes, 'NOT_AN_EVENT', 'xstate.after.x');
    const junk = fc.oneof(fc.jsonValue(), fc.string(), fc.constant('{"type":'), fc.constant(''));
    const creation = fc.record({ token: anyToken, body: fc.oneof(fc.constant('valid'), junk) });
    const event = fc.record({
      token: anyToken,
      type: eventType,
      mode: fc.constantFrom('valid', 'mutated', 'junk'),
      field: fc.string({ maxLength: 12 }),
      value: fc.jsonValue(),
      index: fc.nat(),
      ifMatch: fc.option(fc.oneof(fc.nat({ max: 40 }).map(String), fc.string({ maxLength: 8 }))),
    });
    const read = fc.record({
      token: anyToken,
      index: fc.nat(),
      path: fc.constantFrom('', '/audit?limit=5', '/tools', '/audit?limit=-1', '/audit?cursor=%%'),
    });
    const odd = fc.record({
      token: anyToken,
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
      path: fc.oneof(
        fc.constantFrom(
          '/v1/workflows?state=awaitingApproval&definition=support',
          '/v1/workflows?state=nowhere',
          '/v1/definitions',
        ),
        fc.string({ maxLength: 40 }).map((s) => `/v1/workflows/${encodeURIComponent(s)}`),
      ),
      body: fc.option(junk.map((j) => JSON.stringify(j))),
    });
    const anyRequest = fc.oneof(
      { weight: 1, arbitrary: creation.map((c) => ({ kind: 'create' as const, ...c })) },
      { weight: 6, arbitrary: event.map((e) => ({ kind: 'event' as const, ...e })) },
      { weight: 2, arbitrary: read.map((r) => ({ kind: 'read' as const, ...r })) },
      { weight: 1, arbitrary: odd.map((o) => ({ kind: 'odd' as const, ...o })) },
    );
    const samples = fc.sample(anyRequest, { numRuns: total, seed: 20261130 });

    let fiveHundreds = 0;
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let next = 0;
    const started = performance.now();
    const contextOf = async (id: string): Promise<SupportContext | null> => {
      const record = await store.load(id);
      if (!record) return null;
      const definition = registry.get(record.definitionId, record.definitionVersion);
      if (!definition) return null;
      return restoreSnapshot(definition.machine, id, record.snapshot).context as SupportContext;
    };
    const build = async (sample: (typeof samples)[number]): Promise<Request> => {
      switch (sample.kind) {
        case 'create':
          return {
            method: 'POST',
            path: '/v1/workflows',
            token: sample.token,
            body:
              sample.body === 'valid'
                ? JSON.stringify({
                    request: {
                      customerId: 'cust-1',
                      subject: 'Charged twice',
                      message: 'Billed twice.',
                      orderId: 'A-100',
                      requestedAmount: 25,
                      currency: 'EUR',
                    },
                  })
                : JSON.stringify(sample.body),
          };
        case 'event': {
          const id = ids.length > 0 ? (ids[sample.index % ids.length] as string) : 'none';
          let payload: unknown = sample.value;
          if (sample.mode !== 'junk' && (supportEventTypes as readonly string[]).includes(sample.type)) {
            const context = await contextOf(id);
            if (context) {
              const valid = payloadFor(sample.type as SupportEventType, context);
              payload = sample.mode === 'valid' ? valid : { ...valid, [sample.field]: sample.value };
            }
          }
          return {
            method: 'POST',
            path: `/v1/workflows/${id}/events`,
            token: sample.token,
            body: JSON.stringify({ type: sample.type, payload }),
            ...(sample.ifMatch === null ? {} : { headers: { 'If-Match': sample.ifMatch } }),
          };
        }
        case 'read': {
          const id = ids.length > 0 ? (ids[sample.index % ids.length] as string) : 'none';
          return { method: 'GET', path: `/v1/workflows/${id}${sample.path}`, token: sample.token };
        }
        case 'odd':
          return {
            method: sample.method,
            path: sample.path,
            token: sample.token,
            ...(sample.body === null || sample.method === 'GET' ? {} : { body: sample.body }),
          };
      }
    };
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < samples.length) {
          const sample = samples[next++];
          if (!sample) break;
          const request = await build(sample);
          const { status, text } = await send(request);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status >= 500) {
            fiveHundreds++;
            if (failures.length < 10)
              failures.push(`${request.method} ${request.path} → ${status}: ${text.slice(0, 200)}`);
          }
          if (sample.kind === 'create' && status === 201) {
            const id = (JSON.parse(text) as { workflowId: string }).workflowId;
            ids.push(id);
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    // Let the workers finish what is in flight, then check every stored workflow.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    let broken = 0;
    let withAction = 0;
    for (const id of ids) {
      const context = await contextOf(id);
      if (!context) continue;
      if (context.action.status === 'notStarted' || !context.recommendation) continue;
      withAction++;
      const trail = await store.auditPage(id, { limit: 10_000 });
      const violations = refundViolations(
        context,
        {
          type: 'executeRefund',
          operation: 'execute',
          jobId: `${id}/execute`,
          params: { idempotencyKey: context.action.idempotencyKey, amount: context.approval?.amount },
        },
        trail.items,
      );
      if (violations.length > 0) {
        broken++;
        if (failures.length < 20) failures.push(`${id}: ${violations.join('; ')}`);
      }
    }
    const report = {
      requests: samples.length,
      seconds: Math.round(seconds),
      requestsPerSecond: Math.round(samples.length / seconds),
      statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])),
      workflowsCreated: ids.length,
      /** Workflows whose refund was attempted or executed: the ones the invariant check reads. */
      workflowsWithARefund: withAction,
      fiveHundreds,
      workflowsBreakingTheInvariant: broken,
      failures,
    };
    console.log(JSON.stringify(report, null, 2));
    process.exitCode = fiveHundreds === 0 && broken === 0 ? 0 : 1;
  } finally {
    server.stop();
    await deleteKeysWithPrefix(client, prefix);
    client.disconnect();
  }
}

await main();
process.exit(process.exitCode ?? 0);
