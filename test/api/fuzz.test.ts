/**
 * Property-based bad input over bodies, headers and paths (fast-check, over 1,000 cases): the API
 * never answers 5xx, every error has the `{ error: { code, message, details } }` shape and the
 * status of its code, and a refused request stores nothing — no workflow created, no record
 * changed, no job queued. The only write a refusal may make is the one the engine makes by design
 * for a refused event: its audit entry (outcome = the code, version unchanged) and its outcome for
 * de-duplication; anything refused before the engine decides leaves the audit trail untouched.
 */
import { workflows } from '../../machines/index.ts';
import fc from 'fast-check';
import { sign } from 'hono/jwt';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SupportContext } from '../../machines/support/support.context.ts';
import { eventSchemas, supportEventTypes, type SupportEventType } from '../../machines/support/support.events.ts';
import { createAuthenticator, mintToken, type TokenClaims } from '../../src/api/auth.ts';
import { createApp } from '../../src/api/create-app.ts';
import { statusOf } from '../../src/api/errors.ts';
import { errorResponseSchema } from '../../src/api/openapi.ts';
import { apiDeps } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { refusalCodes } from '../../src/engine/decision.ts';
import { restoreSnapshot } from '../../src/engine/snapshot.ts';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { createSystem } from '../../src/system.ts';
import { payloadFor as validPayloadFor } from '../support/payloads.ts';
import { principalFor } from '../support/principals.ts';

const secret = 'fuzz-secret-0123456789abcdef';

// --- A memory-store system whose store counts its writes. --------------------------------------

const writeMethods = ['create', 'commit', 'recordRefusal', 'putArtifact'] as const;
type Writes = Record<(typeof writeMethods)[number], number>;
const writes: Writes = { create: 0, commit: 0, recordRefusal: 0, putArtifact: 0 };
let loads = 0;

function countingStore(store: WorkflowStore): WorkflowStore {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (property === 'load') {
        return (...args: unknown[]) => {
          loads += 1;
          return method(...args);
        };
      }
      if (!(writeMethods as readonly (string | symbol)[]).includes(property)) return method;
      // A creation that finds its de-duplication key taken writes nothing: only one that creates counts.
      if (property === 'create') {
        return async (...args: unknown[]) => {
          const result = (await method(...args)) as Awaited<ReturnType<WorkflowStore['create']>>;
          if (result.status === 'created') writes.create += 1;
          return result;
        };
      }
      // Likewise a commit answered with an earlier outcome or a conflict: an event decided on the
      // record the API read is offered to the store, which refuses a repeated event id unwritten.
      if (property === 'commit') {
        return async (...args: unknown[]) => {
          const result = (await method(...args)) as Awaited<ReturnType<WorkflowStore['commit']>>;
          if (result.status === 'committed') writes.commit += 1;
          return result;
        };
      }
      return (...args: unknown[]) => {
        writes[property as keyof Writes] += 1;
        return method(...args);
      };
    },
  });
}

const system = createSystem(loadConfig({ LOG_LEVEL: 'silent', WARDEN_RATE_PER_MINUTE: '0' }), {
  definitions: workflows,
  decorateStore: countingStore,
});
const deps = apiDeps(system, createAuthenticator({ secret }));
const app = createApp(deps);
const { store } = system;

// --- Callers. ---------------------------------------------------------------------------------

const callers = {
  agent: { sub: 'agent-1', tenant: 'acme', roles: ['support_agent'] },
  approver: { sub: 'approver-1', tenant: 'acme', roles: ['support_approver'], claims: { approvalLimit: 1000 } },
  reviewer: { sub: 'reviewer-1', tenant: 'acme', roles: ['support_reviewer'] },
  worker: { sub: 'worker-1', tenant: 'system', roles: ['worker'], kind: 'service' },
  outsider: {
    sub: 'intruder',
    tenant: 'globex',
    roles: ['support_agent', 'support_approver', 'support_reviewer'],
    claims: { approvalLimit: 1e9 },
  },
  nobody: { sub: 'nobody', tenant: 'acme', roles: [] },
} satisfies Record<string, TokenClaims>;
type Caller = keyof typeof callers;
const callerNames = Object.keys(callers) as Caller[];
const tokens = {} as Record<Caller, string>;

/** The caller a well-behaved client would use for an event type. */
function callerFor(type: string): Caller {
  const principal = principalFor(type);
  if (principal.roles.includes('worker')) return 'worker';
  if (principal.roles.includes('support_approver')) return 'approver';
  if (principal.roles.includes('support_reviewer')) return 'reviewer';
  return 'agent';
}

// --- Fixtures: an active workflow, a finished one, and ids that name nothing. --------------------

const validRequest = { customerId: 'cust-1', subject: 'Charged twice', message: 'Please refund order 1001.' };
const fixtures = { active: '', finished: '', missing: 's000-doesnotexist00' };

async function createWorkflow(): Promise<string> {
  const response = await app.request('/v1/workflows', {
    method: 'POST',
    headers: { Authorization: `Bearer ${tokens.agent}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ request: validRequest }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { workflowId: string }).workflowId;
}

/** A fuzzed event may be valid and finish the active workflow: keep one running. */
async function ensureActive(): Promise<void> {
  const record = await store.load(fixtures.active);
  if (record?.status !== 'active') fixtures.active = await createWorkflow();
}

beforeAll(async () => {
  for (const name of callerNames) tokens[name] = await mintToken(secret, callers[name]);
  fixtures.active = await createWorkflow();
  fixtures.finished = await createWorkflow();
  const cancel = await app.request(`/v1/workflows/${fixtures.finished}/events`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${tokens.agent}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ type: 'CANCEL_REQUESTED', payload: { reason: 'set-up' } }),
  });
  expect(cancel.status).toBe(200);
});

// --- What a response may be, and what a refusal may have written. ---------------------------------

interface Snapshot {
  writes: Writes;
  records: Map<string, string>;
  audit: Map<string, number>;
}

async function snapshot(): Promise<Snapshot> {
  const records = new Map<string, string>();
  const audit = new Map<string, number>();
  for (const id of [fixtures.active, fixtures.finished]) {
    records.set(id, JSON.stringify(await store.load(id)));
    audit.set(id, (await store.auditPage(id, { limit: 10_000 })).items.length);
  }
  return { writes: { ...writes }, records, audit };
}

const engineRefusals: readonly string[] = refusalCodes;

async function send(path: string, init: RequestInit): Promise<{ status: number; text: string }> {
  const before = await snapshot();
  const response = await app.request(path, init);
  let text = '';
  // A live stream is cancelled, not read to its end.
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) await response.body?.cancel();
  else text = await response.text();
  const where = `${init.method ?? 'GET'} ${path.slice(0, 200)} -> ${response.status} ${text.slice(0, 300)}`;

  expect(response.status, where).toBeLessThan(500);
  expect(text, where).not.toMatch(/\n\s+at |\.ts:\d+/);
  if (response.status < 400) return { status: response.status, text };

  expect(response.headers.get('content-type'), where).toMatch(/^application\/json/);
  const error = errorResponseSchema.parse(JSON.parse(text)).error;
  expect(statusOf[error.code], where).toBe(response.status);

  const after = await snapshot();
  expect(after.writes.create, `${where}: a refused request created a workflow`).toBe(before.writes.create);
  expect(after.writes.commit, `${where}: a refused request committed a change`).toBe(before.writes.commit);
  expect(after.writes.putArtifact, where).toBe(before.writes.putArtifact);
  expect(after.records, `${where}: a refused request changed a workflow`).toEqual(before.records);
  if (engineRefusals.includes(error.code)) {
    // Audited by design: at most one entry, naming the refusal, on the unchanged version.
    expect(after.writes.recordRefusal - before.writes.recordRefusal, where).toBeLessThanOrEqual(1);
    for (const [id, length] of after.audit) {
      const grown = length - (before.audit.get(id) ?? 0);
      expect(grown, where).toBeLessThanOrEqual(1);
      if (grown === 1) {
        const last = (await store.auditPage(id, { limit: 10_000 })).items.at(-1);
        const record = JSON.parse(after.records.get(id) ?? 'null') as { version: number };
        expect(last, where).toMatchObject({ outcome: error.code, version: record.version });
      }
    }
  } else {
    expect(after.writes.recordRefusal, `${where}: refused before the engine, yet recorded`).toBe(
      before.writes.recordRefusal,
    );
    expect(after.audit, `${where}: refused before the engine, yet audited`).toEqual(before.audit);
  }
  return { status: response.status, text };
}

// --- Arbitraries. ---------------------------------------------------------------------------------

/** Characters a header value may carry (visible ASCII, space, Latin-1). */
const headerValue = (maxLength = 300) =>
  fc
    .string({
      unit: fc.oneof(
        fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        fc.integer({ min: 0xa0, max: 0xff }).map((c) => String.fromCharCode(c)),
      ),
      maxLength,
    })
    .filter((value) => {
      try {
        new Headers({ x: value });
        return true;
      } catch {
        return false;
      }
    });

const base64url = fc.base64String({ maxLength: 80 }).map((s) => s.replace(/\+/g, '-').replace(/\//g, '_'));

type AuthCase =
  string | undefined | readonly ['other' | 'expired', Caller] | readonly ['claims', Record<string, fc.JsonValue>];

const authorization: fc.Arbitrary<AuthCase> = fc.oneof(
  fc.constant(undefined),
  headerValue(),
  headerValue().map((s) => `Bearer ${s}`),
  fc.tuple(base64url, base64url, base64url).map((parts) => `Bearer ${parts.join('.')}`),
  fc.constantFrom(...callerNames).map((name) => `bearer   ${tokens[name]}`),
  // A real token with one character changed.
  fc.tuple(fc.constantFrom(...callerNames), fc.nat(), fc.constantFrom('A', 'b', '_', '.', '')).map(([name, at, c]) => {
    const token = tokens[name];
    const i = at % token.length;
    const changed = token.slice(0, i) + c + token.slice(i + 1);
    return `Bearer ${changed === token ? `${token}x` : changed}`;
  }),
  // Signed with another secret, expired, or with arbitrary claims.
  fc.constantFrom(...callerNames).map((name) => ['other', name] as const),
  fc.constantFrom(...callerNames).map((name) => ['expired', name] as const),
  fc
    .dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }))
    .map((claims) => ['claims', claims] as const),
  fc.constantFrom('Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Token abc', 'Bearer a.b.c d'),
);

/** Turns the symbolic token cases above into header values. */
async function authHeader(value: AuthCase): Promise<string | undefined> {
  if (value === undefined || typeof value === 'string') return value;
  if (value[0] === 'claims') return `Bearer ${await sign(value[1], secret, 'HS256')}`;
  const claims = callers[value[1]];
  if (value[0] === 'other') return `Bearer ${await mintToken('another-secret-0123456789abcdef', claims)}`;
  return `Bearer ${await mintToken(secret, { ...claims, ttlSeconds: -60 })}`;
}

const contentType = fc.oneof(
  fc.constant('application/json'),
  fc.constantFrom(
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'application/jsonx',
    '',
  ),
  headerValue(60),
);

/** Bodies as text: arbitrary JSON, arbitrary strings, broken JSON, deep nesting. */
const anyBody = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 100 }),
  fc.jsonValue().map((v) => JSON.stringify(v).slice(0, -1)),
  fc.integer({ min: 1, max: 30_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1, max: 10_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  fc.constantFrom('', 'null', '[]', '{}', '"x"', '1e999', '{"__proto__":{"admin":true}}', '\u0000', '\ufeff{}'),
);

/** A pool of plausible field values: right for some fields, wrong for most. */
const plausible = () =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom<fc.JsonValue>(
        'x',
        'a reason',
        '   ',
        '',
        1,
        0,
        -1,
        0.5,
        12.345,
        100,
        1e9,
        true,
        null,
        `sha256:${'a'.repeat(64)}`,
        'EUR',
        'TIMEOUT',
        'billing',
        'classify',
        'succeeded',
        'refund',
        ['x'],
        [],
        [{ kind: 'note', ref: 'r-1' }],
        { id: 'a-1', hash: `sha256:${'b'.repeat(64)}` },
        { providerOperationId: 'op', idempotencyKey: 'k', amount: 10, currency: 'EUR', status: 'succeeded' },
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('classify', 'recommend', 'action', 'notify')
        .chain((op) => fc.constantFrom(`${fixtures.active}/${op}/1`, `${fixtures.active}/${op}/2`, `s000-x/${op}/1`)),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );

/** A payload for `type`: its own fields with plausible values, arbitrary objects, or not an object. */
function randomPayloadFor(type: string) {
  const shape = Object.hasOwn(eventSchemas, type)
    ? Object.keys((eventSchemas[type as keyof typeof eventSchemas] as { shape?: object }).shape ?? {})
    : [];
  const keys = shape.length > 0 ? shape : ['reason'];
  return fc.oneof(
    { weight: 5, arbitrary: fc.dictionary(fc.constantFrom(...keys), plausible(), { maxKeys: keys.length }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(
        fc.constantFrom(...keys, 'approvalLimit', 'roles', 'tenantId', 'state', '__proto__', 'constructor'),
        plausible(),
      ),
    },
    { weight: 1, arbitrary: fc.object({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
}

/**
 * How to build a payload once the workflow is known: the catalogue's valid payload for its context
 * (so some events are accepted and move the workflow on), that payload with one field changed or
 * removed, or a random one.
 */
type PayloadPlan =
  | { kind: 'valid' }
  | { kind: 'mutated'; key: string; value: fc.JsonValue | undefined }
  | { kind: 'random'; payload: unknown };

function payloadPlan(type: string): fc.Arbitrary<PayloadPlan> {
  const shape = Object.hasOwn(eventSchemas, type)
    ? Object.keys((eventSchemas[type as SupportEventType] as { shape?: object }).shape ?? {})
    : [];
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({ kind: 'valid' as const }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('mutated' as const),
        key: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...shape, 'reason') },
          { weight: 1, arbitrary: fc.constantFrom('approvalLimit', 'roles', 'tenantId', 'actor', '__proto__') },
        ),
        value: fc.option(plausible(), { nil: undefined }),
      }),
    },
    { weight: 2, arbitrary: randomPayloadFor(type).map((payload) => ({ kind: 'random' as const, payload })) },
  );
}

async function contextOf(id: string): Promise<SupportContext | null> {
  const record = await store.load(id);
  if (!record) return null;
  const machine = system.engine.definitionOf(record).machine;
  return restoreSnapshot(machine, id, record.snapshot).context as SupportContext;
}

/** The payload a plan makes for `type`, against the context of workflow `id` (or the active one). */
async function payloadOf(type: string, plan: PayloadPlan, id: string): Promise<unknown> {
  if (plan.kind === 'random') return plan.payload;
  const context = (await contextOf(id)) ?? (await contextOf(fixtures.active));
  const known = Object.hasOwn(eventSchemas, type) && context;
  const payload: Record<string, unknown> = known ? validPayloadFor(type as SupportEventType, context) : {};
  if (plan.kind === 'mutated') {
    if (plan.value === undefined) Reflect.deleteProperty(payload, plan.key);
    else Object.defineProperty(payload, plan.key, { value: plan.value, enumerable: true, writable: true });
  }
  return payload;
}

const eventType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...supportEventTypes) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'xstate.after.deadline',
      'xstate.init',
      'xstate.stop',
      'start',
      'START ',
      '',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 120 }) },
);

/** Mostly none or well-formed (a few repeat, to replay first outcomes); sometimes malformed. */
const eventIdArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constantFrom('e-1', 'e-2', 'retry:1', 'x/y.z') },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.:/-]{1,40}$/) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 250 }), fc.jsonValue({ maxDepth: 1 })) },
);

const extraFields = fc.oneof(
  { weight: 8, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.constantFrom('causationId', 'actor', 'version', 'approvalLimit', 'principal'),
      fc.jsonValue({ maxDepth: 1 }),
    ),
  },
);

type Target = 'active' | 'finished' | 'missing' | 'random';
const target = fc.constantFrom<Target>('active', 'active', 'active', 'active', 'finished', 'missing', 'random');
const randomId = fc.oneof(fc.string({ maxLength: 100 }), fc.stringMatching(/^s[0-9]{3}-[A-Za-z0-9_]{8,64}$/));

function idOf(which: Target, random: string): string {
  return which === 'random' ? encodeURIComponent(random) : fixtures[which];
}

const ifMatch = fc.oneof(
  { weight: 5, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant('current') },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 ** 53 }).map((n) => `"${n}"`) },
  { weight: 1, arbitrary: headerValue(40) },
);

async function ifMatchHeader(value: string | undefined, id: string): Promise<Record<string, string>> {
  if (value === undefined) return {};
  if (value !== 'current') return { 'If-Match': value };
  const record = await store.load(id);
  return { 'If-Match': `W/"${record?.version ?? 0}"` };
}

/** Config values that stay within the dates a JavaScript Date can hold (see the known bug below). */
const configValue = fc
  .oneof(fc.integer({ min: -10, max: 10 ** 12 }), fc.double(), fc.jsonValue({ maxDepth: 1 }))
  .filter((v) => !(typeof v === 'number' && Number.isInteger(v) && Math.abs(v) > 10 ** 15));

/** Right most of the time, so that the rest fail one thing at a time. */
const usually = <T>(right: fc.Arbitrary<T>, wrong: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: wrong });

const validCreate = () => ({
  request: { ...validRequest, orderId: '1001', requestedAmount: 49.99, currency: 'EUR' },
  config: { maxRevisions: 1, confidenceThreshold: 0.5 },
  correlationId: 'case-1',
});

/** A valid creation body, or one with one field changed, removed or added. */
const createBody = fc.oneof(
  { weight: 1, arbitrary: anyBody },
  { weight: 1, arbitrary: fc.constant(JSON.stringify(validCreate())) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        at: fc.constantFrom('body', 'request', 'config'),
        key: fc.constantFrom(
          'request',
          'config',
          'correlationId',
          'customerId',
          'subject',
          'message',
          'orderId',
          'requestedAmount',
          'currency',
          'confidenceThreshold',
          'approvalTimeoutMs',
          'workflowDeadlineMs',
          'reviewDeadlineMs',
          'maxRevisions',
          'reviewQueue',
          'tenantId',
          'approvalLimit',
          'workflowId',
          '__proto__',
        ),
        value: fc.option(fc.oneof(plausible(), configValue), { nil: undefined }),
      })
      .map(({ at, key, value }) => {
        const body = validCreate();
        const target: Record<string, unknown> = at === 'body' ? body : body[at];
        if (value === undefined) Reflect.deleteProperty(target, key);
        else Object.defineProperty(target, key, { value, enumerable: true, writable: true });
        return JSON.stringify(body);
      }),
  },
);

const runs = (n: number) => ({ numRuns: n, endOnFailure: true });

// --- Properties. ----------------------------------------------------------------------------------

describe('bad input never breaks the API and is never stored', () => {
  it('create: arbitrary bodies, content types, callers and Idempotency-Keys (300 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(
        createBody,
        usually(fc.constant('application/json'), contentType),
        fc.constantFrom(...callerNames),
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom('key-1', 'key-2') },
          { weight: 1, arbitrary: headerValue(250) },
        ),
        async (body, type, caller, key) => {
          await send('/v1/workflows', {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${tokens[caller]}`,
              'Content-Type': String(type),
              ...(key === undefined ? {} : { 'Idempotency-Key': key }),
            },
            body,
          });
        },
      ),
      runs(300),
    );
  });

  it('events: every event type with arbitrary payloads, ids, callers and If-Match (400 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(
        eventType.chain((type) =>
          fc.record({
            type: fc.constant(type),
            payload: payloadPlan(type),
            caller: usually(fc.constant(callerFor(type)), fc.constantFrom(...callerNames)),
            eventId: eventIdArb,
            extra: extraFields,
            omitPayload: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
          }),
        ),
        target,
        randomId,
        ifMatch,
        async (event, which, random, match) => {
          await ensureActive();
          const id = idOf(which, random);
          const payload = await payloadOf(event.type, event.payload, id);
          const body = {
            type: event.type,
            ...(event.omitPayload ? {} : { payload }),
            ...(event.eventId === undefined ? {} : { eventId: event.eventId }),
            ...event.extra,
          };
          await send(`/v1/workflows/${id}/events`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${tokens[event.caller as Caller]}`,
              'Content-Type': 'application/json',
              ...(await ifMatchHeader(match, fixtures.active)),
            },
            body: JSON.stringify(body),
          });
        },
      ),
      runs(400),
    );
  });

  it('proposals: arbitrary tool names and arguments (150 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(
        usually(fc.constantFrom('CANCEL_REQUESTED', 'ESCALATE', 'CLASSIFIED', 'RETRYABLE_ERROR'), eventType).chain(
          (name) =>
            fc.record({
              name: fc.constant(String(name)),
              plan: payloadPlan(String(name)),
              encoding: fc.constantFrom('string', 'object', 'garbage'),
              garbage: fc.string({ maxLength: 200 }),
              eventId: eventIdArb,
            }),
        ),
        usually(fc.constantFrom<Caller>('agent', 'worker', 'reviewer'), fc.constantFrom(...callerNames)),
        target,
        randomId,
        async (proposal, caller, which, random) => {
          await ensureActive();
          const id = idOf(which, random);
          const payload = await payloadOf(proposal.name, proposal.plan, id);
          const args =
            proposal.encoding === 'string'
              ? JSON.stringify(payload)
              : proposal.encoding === 'object'
                ? payload
                : proposal.garbage;
          await send(`/v1/workflows/${id}/proposals`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${tokens[caller as Caller]}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({
              name: proposal.name,
              arguments: args,
              ...(proposal.eventId === undefined ? {} : { eventId: proposal.eventId }),
            }),
          });
        },
      ),
      runs(150),
    );
  });

  it('headers: random Authorization, Content-Type, If-Match, Idempotency-Key and request ids (200 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 3, arbitrary: authorization },
          { weight: 1, arbitrary: fc.constantFrom(...callerNames).map((name) => `Bearer ${tokens[name]}`) },
        ),
        contentType,
        fc.constantFrom(
          '/v1/workflows',
          'events',
          'proposals',
          '/v1/workflows?state=awaitingApproval&definition=support',
          'audit',
          '',
        ),
        fc.dictionary(
          fc.constantFrom('If-Match', 'Idempotency-Key', 'X-Request-Id', 'Content-Length', 'Accept', 'X-Tenant'),
          headerValue(120),
        ),
        anyBody,
        async (auth, type, route, extra, body) => {
          await ensureActive();
          const header = await authHeader(auth);
          const headers: Record<string, string> = { ...extra, 'Content-Type': type };
          delete headers['Content-Length'];
          if (header !== undefined) headers.Authorization = header;
          const post = route === 'events' || route === 'proposals' || route === '/v1/workflows';
          const path = route.startsWith('/') ? route : `/v1/workflows/${fixtures.active}${route && `/${route}`}`;
          await send(path, post ? { method: 'POST', headers, body } : { method: 'GET', headers });
        },
      ),
      runs(200),
    );
  });

  it('paths: random methods, segments and query strings (300 cases)', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'v1',
        'workflows',
        'definitions',
        'events',
        'audit',
        'stream',
        'tools',
        'proposals',
        'support',
        '2',
        '..',
        '.',
        '%2e%2e',
        '%00',
        '%',
        '%zz',
        '%E0%A4%A',
        '__proto__',
        'constructor',
        'docs',
        'assets',
        'openapi.json',
        'healthz',
        'metrics',
      ),
      fc.string({ maxLength: 30 }).map(encodeURIComponent),
      fc.stringMatching(/^[A-Za-z0-9%._~!$&'()*+,;=:@-]{0,20}$/),
    );
    const id = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom<keyof typeof fixtures>('active', 'finished', 'missing') },
      { weight: 1, arbitrary: segment },
    );
    const path = fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(
            id,
            fc.constantFrom(
              '',
              '',
              '/events',
              '/audit',
              '/audit',
              '/stream',
              '/tools',
              '/tools',
              '/proposals',
              '/x',
              '/',
            ),
          )
          .map(
            ([which, sub]) =>
              `/v1/workflows/${Object.hasOwn(fixtures, which) ? fixtures[which as 'active'] : which}${sub}`,
          ),
      },
      { weight: 1, arbitrary: fc.tuple(segment, segment).map(([a, b]) => `/v1/definitions/${a}/${b}`) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '/v1/workflows',
          '/v1/definitions',
          '/v1',
          '/healthz',
          '/readyz',
          '/metrics',
          '/openapi.json',
          '/docs',
          '/docs/',
          '/docs/assets/favicon-16x16.png',
          '/docs/assets/init.js',
          '/docs/assets/../openapi.json',
        ),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }))
          .map(([underV1, segments]) => `${underV1 ? '/v1/' : '/'}${segments.join('/')}`),
      },
    );
    const query = fc.option(
      fc.dictionary(
        fc.oneof(fc.constantFrom('state', 'cursor', 'limit', '__proto__'), fc.string({ maxLength: 8 })),
        fc.oneof(
          fc.constantFrom('awaitingApproval', 'manualReview', 'classifying', '-1', '0', '1e9', 'NaN'),
          fc.string(),
        ),
        { maxKeys: 3 },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'GET', 'GET', 'GET', 'GET', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
        path,
        query,
        fc.constantFrom(...callerNames),
        anyBody,
        async (method, url, params, caller, body) => {
          await ensureActive();
          const search = params === null ? '' : `?${new URLSearchParams(params).toString()}`;
          await send(`${url}${search}`, {
            method,
            headers: { Authorization: `Bearer ${tokens[caller]}`, 'Content-Type': 'application/json' },
            ...(method === 'GET' || method === 'OPTIONS' ? {} : { body }),
          });
        },
      ),
      runs(300),
    );
  });

  it('huge bodies are refused with 413 and store nothing (60 cases)', async () => {
    const limit = deps.bodyLimitBytes;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: limit + 1, max: limit * 8 }),
        fc.constantFrom('/v1/workflows', 'events', 'proposals'),
        fc.constantFrom('raw', 'json', 'valid'),
        fc.boolean(),
        async (size, route, shape, declareLength) => {
          await ensureActive();
          const filler = 'x'.repeat(size);
          const body =
            shape === 'raw'
              ? filler
              : shape === 'json'
                ? JSON.stringify({ type: 'CANCEL_REQUESTED', payload: { reason: filler } })
                : JSON.stringify({ request: { ...validRequest, message: filler } });
          const path = route.startsWith('/') ? route : `/v1/workflows/${fixtures.active}/${route}`;
          const headers: Record<string, string> = {
            Authorization: `Bearer ${tokens.agent}`,
            'Content-Type': 'application/json',
          };
          if (declareLength) headers['Content-Length'] = String(new TextEncoder().encode(body).byteLength);
          const { status, text } = await send(path, { method: 'POST', headers, body });
          expect(status, text).toBe(413);
        },
      ),
      runs(60),
    );
  });
});

describe('known bugs found by fuzzing (remove `.fails` once fixed)', () => {
  // machines/support.context.ts allows config durations up to Number.MAX_SAFE_INTEGER; a timer due
  // beyond what a Date can hold makes src/api/views.ts:88 (`new Date(t.dueAt).toISOString()`) throw
  // after the workflow has been stored: 500, and every later GET of it is 500 too.
  it('refuses a creation with a huge workflowDeadlineMs, stores nothing and never answers 500', async () => {
    await send('/v1/workflows', {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokens.agent}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ request: validRequest, config: { workflowDeadlineMs: Number.MAX_SAFE_INTEGER } }),
    });
  });

  // src/api/routes/workflows.ts:53 shows any tenant's workflow to every `service` token, while the
  // engine (src/engine/decider.ts:344) lets only worker-only service tokens act across tenants. A
  // service token of another tenant with user roles reads the workflow (200), and its event is
  // refused as TENANT_MISMATCH — recorded in the other tenant's audit trail — then answered 404.
  it('a service token of another tenant can neither see nor leave a trace on a workflow', async () => {
    await ensureActive();
    const token = await mintToken(secret, { sub: 'svc', tenant: 'globex', roles: ['support_agent'], kind: 'service' });
    const read = await app.request(`/v1/workflows/${fixtures.active}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    await read.text();
    const before = await snapshot();
    await send(`/v1/workflows/${fixtures.active}/events`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'ESCALATE', payload: { reason: 'probe' } }),
    });
    expect(read.status).toBe(404);
    expect((await snapshot()).audit).toEqual(before.audit);
  });

  // src/api/routes/workflows.ts:224: Hono answers HEAD by running the GET handler and dropping its
  // body without cancelling it, so the SSE loop of /stream keeps polling the store every
  // streamPollMs until the workflow finishes — one leaked poller per HEAD request.
  it('HEAD on the stream of an active workflow leaves no poller behind', async () => {
    const id = await createWorkflow();
    try {
      const response = await app.request(`/v1/workflows/${id}/stream`, {
        method: 'HEAD',
        headers: { Authorization: `Bearer ${tokens.agent}` },
      });
      expect(response.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, deps.streamPollMs));
      const before = loads;
      await new Promise((resolve) => setTimeout(resolve, deps.streamPollMs * 3));
      expect(loads).toBe(before);
    } finally {
      // Finishing the workflow ends the loop.
      await system.engine.applyEvent(
        id,
        { type: 'CANCEL_REQUESTED', eventId: 'stop', payload: { reason: 'x' } },
        {
          id: 'agent-1',
          tenantId: 'acme',
          kind: 'user',
          roles: ['support_agent'],
        },
      );
    }
  });
});
