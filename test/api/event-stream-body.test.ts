/**
 * The event stream's body: what its writer sends arrives in order with the event-stream headers,
 * a write waits while the client has not read, a client that goes away aborts the writer's signal,
 * and what the writer throws is reported and ends the stream.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { eventStreamResponse, type EventSink } from '../../src/api/event-stream-body.ts';

/** An app whose one route streams with `run`; errors land in `errors`. */
function streaming(run: (sink: EventSink) => Promise<void>, errors: unknown[] = []) {
  const app = new Hono();
  app.get('/', (c) => eventStreamResponse(c, run, (error) => errors.push(error)));
  return app;
}

describe('the event stream body', () => {
  it('sends what is written, in order, with the event-stream headers, and ends when its writer does', async () => {
    const response = await streaming(async (sink) => {
      await sink.write('retry: 2000\n\n');
      await sink.write('event: state\ndata: {}\nid: 1\n\n');
    }).request('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(await response.text()).toBe('retry: 2000\n\nevent: state\ndata: {}\nid: 1\n\n');
  });

  it('holds a write until the client has read what came before', async () => {
    const written: number[] = [];
    const response = await streaming(async (sink) => {
      for (let n = 1; n <= 3; n++) {
        await sink.write(`: ${n}\n\n`);
        written.push(n);
      }
    }).request('/');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Nothing read yet: the first write is queued and waits.
    expect(written).toEqual([]);
    const decoder = new TextDecoder();
    let text = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += decoder.decode(chunk.value);
    }
    expect(text).toBe(': 1\n\n: 2\n\n: 3\n\n');
    expect(written).toEqual([1, 2, 3]);
  });

  it('aborts the writer when the client goes away, and drops what is written after', async () => {
    let sink: EventSink | undefined;
    let wrote = false;
    const finished = new Promise<void>((resolve) => {
      void Promise.resolve(
        streaming(async (s) => {
          sink = s;
          await s.write(': first\n\n');
          if (!s.gone.aborted) {
            await new Promise<void>((wake) => {
              s.gone.addEventListener('abort', () => {
                wake();
              });
            });
          }
          await s.write(': after\n\n');
          wrote = true;
          resolve();
        }).request('/'),
      ).then(async (response) => {
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        await reader.read();
        await reader.cancel();
      });
    });
    await finished;
    expect(sink?.gone.aborted).toBe(true);
    expect(wrote).toBe(true);
  });

  it('reports what its writer throws and ends the stream', async () => {
    const errors: unknown[] = [];
    const response = await streaming(async (sink) => {
      await sink.write(': one\n\n');
      throw new Error('boom');
    }, errors).request('/');
    expect(await response.text()).toBe(': one\n\n');
    expect(errors).toEqual([new Error('boom')]);
  });
});
