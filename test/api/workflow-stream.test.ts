/**
 * What a workflow stream costs the store and how it writes: it follows the audit trail from where
 * it last read (each entry once, not the whole trail again at every version), one store call a wake
 * while the workflow runs, and the events it joins into one write are byte for byte what Hono's
 * `writeSSE` writes.
 */
import { SSEStreamingApi } from 'hono/streaming';
import { describe, expect, it } from 'vitest';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { sseEvent, type StreamedVersion } from '../../src/api/routes/workflow-stream.ts';
import { createApp } from '../../src/api/create-app.ts';
import { apiWorld, approvalBody, refundRequest } from './support.ts';

interface View {
  workflowId: string;
  version: number;
  evidence: { recommendation: { version: number; contentHash: string; amount: number } };
}

/**
 * `store` with every audit entry `auditPage` and `trailSince` hand out counted by event id in
 * `reads`, and every call counted by method in `calls`.
 */
function countingAuditReads(
  store: WorkflowStore,
  reads: Map<string, number>,
  calls = new Map<string, number>(),
): WorkflowStore {
  const count = (items: { eventId: string }[]) => {
    for (const entry of items) reads.set(entry.eventId, (reads.get(entry.eventId) ?? 0) + 1);
  };
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'auditPage') {
        return async (...args: Parameters<WorkflowStore['auditPage']>) => {
          calls.set(property, (calls.get(property) ?? 0) + 1);
          const page = await target.auditPage(...args);
          count(page.items);
          return page;
        };
      }
      if (property === 'trailSince') {
        return async (...args: Parameters<WorkflowStore['trailSince']>) => {
          calls.set(property, (calls.get(property) ?? 0) + 1);
          const read = await target.trailSince(...args);
          count(read?.page.items ?? []);
          return read;
        };
      }
      if (property === 'load') {
        return (...args: Parameters<WorkflowStore['load']>) => {
          calls.set(property, (calls.get(property) ?? 0) + 1);
          return target.load(...args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('the workflow stream', () => {
  it('reads each audit entry once while it follows a workflow, not the trail again at every version', async () => {
    const reads = new Map<string, number>();
    const w = await apiWorld({ streamPollMs: 5 }, {}, { decorateStore: (store) => countingAuditReads(store, reads) });
    try {
      const created = await w.json<View>(
        await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest }),
      );
      await w.waitFor(created.workflowId, 'awaitingApproval');
      const view = await w.json<View>(
        await w.call('GET', `/v1/workflows/${created.workflowId}`, { token: w.tokens.approver }),
      );
      reads.clear();
      const stream = await w.call('GET', `/v1/workflows/${view.workflowId}/stream`, { token: w.tokens.agent });
      expect(stream.status).toBe(200);
      await w.call('POST', `/v1/workflows/${view.workflowId}/events`, {
        token: w.tokens.approver,
        body: approvalBody(view),
      });
      const text = await stream.text();
      const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      const final = ids.at(-1) ?? 0;
      // Every version once, then the finished event with the last.
      expect(ids).toEqual([...Array.from({ length: final }, (_, i) => i + 1), final]);
      expect(final).toBeGreaterThan(view.version);
      // The versions before the approval were read once, at the stream's first read; the later ones
      // after them, each once (the version and the trail are read together, so no page holds an entry
      // the next read must read again).
      const first = [...reads.keys()][0] ?? '';
      expect(first.startsWith(view.workflowId)).toBe(true);
      expect(reads.get(first)).toBe(1);
      expect(reads.size).toBeGreaterThan(final - 1);
      expect(Math.max(...reads.values())).toBe(1);
    } finally {
      await w.stop();
    }
  });

  it('reads a running workflow with one store call a wake, its version and the trail since together, never its record', async () => {
    const w = await apiWorld({ streamPollMs: 5 });
    try {
      const created = await w.json<View>(
        await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest }),
      );
      await w.waitFor(created.workflowId, 'awaitingApproval');
      const view = await w.json<View>(
        await w.call('GET', `/v1/workflows/${created.workflowId}`, { token: w.tokens.approver }),
      );
      // The stream served by an API whose store calls are counted (the rest of the system's are not).
      const calls = new Map<string, number>();
      const streaming = createApp({ ...w.deps, store: countingAuditReads(w.deps.store, new Map(), calls) });
      const stream = await streaming.request(`/v1/workflows/${view.workflowId}/stream`, {
        headers: { Authorization: `Bearer ${w.tokens.agent}` },
      });
      expect(stream.status).toBe(200);
      await w.call('POST', `/v1/workflows/${view.workflowId}/events`, {
        token: w.tokens.approver,
        body: approvalBody(view),
      });
      const text = await stream.text();
      const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids.at(-1)).toBe(ids.at(-2));
      // The record once, for the 404 and the Last-Event-ID check; then every wake one `trailSince`,
      // which also says when the workflow finished, with its record.
      expect(calls.get('load')).toBe(1);
      expect(calls.get('auditPage') ?? 0).toBe(0);
      expect(calls.get('trailSince')).toBeGreaterThan(1);
    } finally {
      await w.stop();
    }
  });

  it('joins events into the bytes writeSSE writes for each', async () => {
    const data: StreamedVersion = {
      workflowId: 's001-abcdefgh',
      version: 9,
      eventType: 'APPROVED',
      state: ['executingAction.executing'],
      status: 'active',
      at: '2026-11-30T22:37:04.088Z',
    };
    const finished: StreamedVersion = { ...data, version: 10, status: 'finished', state: ['completed'] };
    delete finished.eventType;
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const api = new SSEStreamingApi(writable, readable);
    const written = (async () => {
      let text = '';
      const decoder = new TextDecoder();
      for await (const chunk of api.responseReadable as ReadableStream<Uint8Array>)
        text += decoder.decode(chunk, { stream: true });
      return text;
    })();
    await api.writeSSE({ event: 'state', id: '9', data: JSON.stringify(data) });
    await api.writeSSE({ event: 'finished', id: '10', data: JSON.stringify(finished) });
    await api.close();
    expect(sseEvent('state', 9, data) + sseEvent('finished', 10, finished)).toBe(await written);
  });
});
