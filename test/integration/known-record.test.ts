/**
 * An event decided on the record its caller has just read (`applyEvent(…, { known })`): no second
 * read, and still only a decision on the current version is written — the commit's compare-and-set
 * sends a stale one back to be decided again — and a repeated event id still gets its first outcome.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principals } from '../support/principals.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { apiWorld, refundRequest } from '../api/support.ts';
import { connectTestRedis, deletePrefix, freshPrefix } from '../support/redis.ts';
import { createSupport, makeWorld, type World } from '../support/world.ts';

let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

/** A store that counts the reads the engine makes. */
function counted(store: WorkflowStore, reads = { load: 0, outcomeOf: 0 }) {
  const wrapped = Object.assign(Object.create(store) as WorkflowStore, {
    load: (id: string) => {
      reads.load++;
      return store.load(id);
    },
    outcomeOf: (id: string, eventId: string) => {
      reads.outcomeOf++;
      return store.outcomeOf(id, eventId);
    },
  });
  return { store: wrapped, reads };
}

const cancel = (eventId: string) => ({
  type: 'CANCEL_REQUESTED',
  eventId,
  payload: { reason: 'The customer withdrew the request.' },
});

for (const kind of ['memory', 'redis'] as const) {
  describe(`an event decided on a known record (${kind})`, () => {
    /** Runs `test` on a support workflow just created, in a world of its own that counts reads. */
    async function withCreated(
      test: (w: World, created: WorkflowRecord, reads: { load: number; outcomeOf: number }) => Promise<void>,
    ): Promise<void> {
      const prefix = freshPrefix('known');
      const base = kind === 'memory' ? new MemoryStore({ shards: 16 }) : new RedisStore(redis, { prefix, shards: 16 });
      const { store, reads } = counted(base);
      const w = makeWorld(store, undefined, () => deletePrefix(redis, prefix));
      try {
        await test(w, await createSupport(w), reads);
      } finally {
        await w.cleanup();
      }
    }

    it('starts a creation and applies an event without reading the workflow again', async () => {
      await withCreated(async (w, created, reads) => {
        expect(created.version).toBe(2); // created, then started: decided on the record just written
        expect(reads).toEqual({ load: 0, outcomeOf: 0 });
        const outcome = await w.engine.applyEvent(created.workflowId, cancel('c-1'), principals.agent, {
          known: created,
        });
        expect(outcome.outcome).toBe('accepted');
        expect(reads).toEqual({ load: 0, outcomeOf: 0 });
      });
    });

    it('decides again on the current version when the known record is stale', async () => {
      await withCreated(async (w, created) => {
        const first = await w.engine.applyEvent(created.workflowId, cancel('c-1'), principals.agent);
        expect(first.outcome).toBe('accepted');
        // Decided on version 2 (stale), where a cancellation is allowed; the commit finds version 3,
        // where the workflow is cancelling already, and the event is decided there.
        const second = await w.engine.applyEvent(created.workflowId, cancel('c-2'), principals.agent, {
          known: created,
        });
        const current = await w.store.load(created.workflowId);
        expect(current?.version).toBeGreaterThan(created.version);
        if (second.outcome === 'accepted') expect(second.record.version).toBe(current?.version ?? 0);
        else {
          expect(second).toMatchObject({ outcome: 'refused' });
          if (second.outcome === 'refused') expect(second.version).toBe(current?.version);
        }
        const audit = await w.store.auditPage(created.workflowId, { cursor: null, limit: 100 });
        // Nothing was written on version 2 twice: every entry's version is unique among accepted ones.
        const accepted = audit.items.filter((e) => e.outcome === 'accepted').map((e) => e.version);
        expect(new Set(accepted).size).toBe(accepted.length);
      });
    });

    it('gives a repeated event id its first outcome, accepted or refused', async () => {
      await withCreated(async (w, created) => {
        const first = await w.engine.applyEvent(created.workflowId, cancel('c-1'), principals.agent, {
          known: created,
        });
        if (first.outcome !== 'accepted') throw new Error(`not accepted: ${first.outcome}`);
        const again = await w.engine.applyEvent(created.workflowId, cancel('c-1'), principals.agent, {
          known: first.record,
        });
        expect(again).toEqual({
          outcome: 'duplicate',
          stored: { outcome: 'accepted', version: first.record.version, statePaths: first.record.statePaths },
        });
        // A refused event (an approver may not cancel), then its repeat on a known record.
        const refused = await w.engine.applyEvent(created.workflowId, cancel('c-2'), principals.approver, {
          known: first.record,
        });
        expect(refused.outcome).toBe('refused');
        const repeat = await w.engine.applyEvent(created.workflowId, cancel('c-2'), principals.approver, {
          known: first.record,
        });
        expect(repeat).toMatchObject({ outcome: 'duplicate', stored: { outcome: 'refused' } });
      });
    });

    it('with If-Match, reads again, so a repeat still gets its first outcome on a moved workflow', async () => {
      await withCreated(async (w, created, reads) => {
        const first = await w.engine.applyEvent(created.workflowId, cancel('c-1'), principals.agent, {
          expectedVersion: created.version,
          known: created,
        });
        expect(first.outcome).toBe('accepted');
        expect(reads.load).toBe(1);
        const again = await w.engine.applyEvent(created.workflowId, cancel('c-1'), principals.agent, {
          expectedVersion: created.version,
          known: created,
        });
        expect(again.outcome).toBe('duplicate');
      });
    });
  });
}

describe('the API decides an event on the record it read for the tenant check', () => {
  it('reads the workflow once per event, not twice', async () => {
    const reads = { load: 0, outcomeOf: 0 };
    const api = await apiWorld({}, {}, { decorateStore: (store) => counted(store, reads).store });
    try {
      const created = await api.call('POST', '/v1/workflows', { token: api.tokens.agent, body: refundRequest });
      const { workflowId } = await api.json<{ workflowId: string }>(created);
      await api.runtime.stop(); // no worker reads meanwhile
      Object.assign(reads, { load: 0, outcomeOf: 0 });
      const sent = await api.call('POST', `/v1/workflows/${workflowId}/events`, {
        token: api.tokens.agent,
        body: cancel('c-1'),
      });
      expect(sent.status).toBe(200);
      expect(reads).toEqual({ load: 1, outcomeOf: 0 });
      // With If-Match, the event id is looked up first (a repeat gets its first outcome).
      Object.assign(reads, { load: 0, outcomeOf: 0 });
      const version = (await api.json<{ version: number }>(sent)).version;
      const matched = await api.call('POST', `/v1/workflows/${workflowId}/events`, {
        token: api.tokens.agent,
        body: cancel('c-1'),
        headers: { 'If-Match': `"${version}"` },
      });
      expect(matched.status).toBe(200);
      expect(reads.outcomeOf).toBe(1);
    } finally {
      await api.stop();
    }
  });
});
