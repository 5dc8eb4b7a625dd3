/**
 * What a workflow stream costs the store and how it writes: it follows the audit trail from where
 * it last read (each entry once, not the whole trail again at every version), and the events it
 * joins into one write are byte for byte what Hono's `writeSSE` writes.
 */
import { SSEStreamingApi } from 'hono/streaming';
import { describe, expect, it } from 'vitest';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { sseEvent, type StreamedVersion } from '../../src/api/routes/workflow-stream.ts';
import { apiWorld, approvalBody, refundRequest } from './support.ts';

interface View {
  workflowId: string;
  version: number;
  evidence: { recommendation: { version: number; contentHash: string; amount: number } };
}

/** `store` with every audit entry `auditPage` hands out counted by event id in `reads`. */
function countingAuditReads(store: WorkflowStore, reads: Map<string, number>): WorkflowStore {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'auditPage') {
        return async (...args: Parameters<WorkflowStore['auditPage']>) => {
          const page = await target.auditPage(...args);
          for (const entry of page.items) reads.set(entry.eventId, (reads.get(entry.eventId) ?? 0) + 1);
          return page;
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
      // after them (a page read again only when a commit came between the record's read and the trail's).
      const first = [...reads.keys()][0] ?? '';
      expect(first.startsWith(view.workflowId)).toBe(true);
      expect(reads.get(first)).toBe(1);
      expect(reads.size).toBeGreaterThan(final - 1);
      expect(Math.max(...reads.values())).toBeLessThanOrEqual(2);
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
