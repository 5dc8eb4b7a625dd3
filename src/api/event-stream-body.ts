/**
 * A `text/event-stream` response whose body is one `ReadableStream` its writer enqueues into. Hono's
 * `streamSSE` pipes a `TransformStream` into a second `ReadableStream` (four web streams, their
 * transferable set-up, and a writer's and a reader's promise at every write), a share of the API's
 * CPU that shows with a stream per workflow (docs/performance.md).
 * The same headers, the same bytes, and the same backpressure: a write waits while the client has
 * not read what came before.
 */
import type { Context } from 'hono';

export interface EventSink {
  /** Sends `text` (whole events); waits while the client lags behind; dropped once it has gone. */
  write(text: string): Promise<void>;
  /** Aborts when the client goes away (the response's body is cancelled). */
  readonly gone: AbortSignal;
}

/**
 * Answers `c` with an event stream that `run` writes to; the body ends when `run` settles. `onError`
 * hears what `run` throws (the stream then just ends, as Hono's `streamSSE` without a handler does).
 */
export function eventStreamResponse(
  c: Context,
  run: (sink: EventSink) => Promise<void>,
  onError: (error: unknown) => void,
): Response {
  const encoder = new TextEncoder();
  const gone = new AbortController();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let drained: (() => void) | undefined;
  const resume = () => {
    const waiting = drained;
    drained = undefined;
    waiting?.();
  };
  const body = new ReadableStream<Uint8Array>({
    start(started) {
      controller = started;
    },
    // Called once the queue has room again: a write waiting for the client goes on.
    pull: resume,
    cancel() {
      gone.abort();
      resume();
    },
  });
  const sink: EventSink = {
    gone: gone.signal,
    async write(text) {
      if (gone.signal.aborted || !controller) return;
      controller.enqueue(encoder.encode(text));
      if ((controller.desiredSize ?? 0) <= 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
        });
      }
    },
  };
  void (async () => {
    try {
      await run(sink);
    } catch (error) {
      onError(error);
    } finally {
      if (!gone.signal.aborted) controller?.close();
    }
  })();
  c.header('Transfer-Encoding', 'chunked');
  c.header('Content-Type', 'text/event-stream');
  c.header('Cache-Control', 'no-cache');
  c.header('Connection', 'keep-alive');
  return c.newResponse(body);
}
