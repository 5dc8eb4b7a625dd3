/**
 * Whether a Redis answers, asked once before a command relies on it. A client of `connectRedis`
 * retries for ever and fails a command only after its retries, so a process started on a Redis it
 * cannot reach would end in a `MaxRetriesPerRequestError` stack naming neither the address nor
 * REDIS_URL; the probe says what went wrong in a few words instead.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

export interface RedisProbeFailure {
  /** `unreachable`: no connection (refused, unknown host, no answer); `refused`: Redis answered with an error. */
  kind: 'unreachable' | 'refused';
  /** What went wrong, in a few words: `connection refused`, `WRONGPASS invalid username-password pair …`. */
  reason: string;
}

/** Between two attempts: a server that is starting (refusing, loading its data) answers soon after. */
const retryMs = 250;

/**
 * Pings the Redis at `url` (a standalone server, or any node of a cluster) until it answers, retrying
 * what a starting server does (refuse, load its data) for at most `timeoutMs` (default 2000); null
 * when it answered. Its connection is closed either way.
 */
export async function probeRedis(url: string, options: { timeoutMs?: number } = {}): Promise<RedisProbeFailure | null> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const attempt = await pingOnce(url, Math.max(deadline - Date.now(), 100), timeoutMs);
    if (!attempt) return null;
    const { transient, ...failure } = attempt;
    if (!transient || Date.now() + retryMs >= deadline) return failure;
    await sleep(retryMs);
  }
}

async function pingOnce(
  url: string,
  connectTimeout: number,
  timeoutMs: number,
): Promise<(RedisProbeFailure & { transient: boolean }) | null> {
  const client = new Redis(url, {
    protocol: 2,
    lazyConnect: true,
    connectTimeout,
    // One connection, one command: the probe does its own retrying, bounded.
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    // The PING says whether Redis is still loading its data (LOADING); ioredis's ready check would
    // wait for the load however long it takes.
    enableReadyCheck: false,
    connectionName: 'warden:probe',
  });
  // What went wrong is in the error event; the rejected promise only says the connection closed.
  let failed: unknown = null;
  client.on('error', (error: unknown) => {
    failed = error;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    failed ??= error;
  } finally {
    // Not once it ended: ioredis would arm a 2 s timer for a socket already closed, and hold the
    // process that long.
    if (client.status !== 'end') client.disconnect();
  }
  // An error while connecting that the ping outlived (a database index out of range) fails too.
  return failed === null ? null : classify(failed, timeoutMs);
}

function classify(error: unknown, timeoutMs: number): RedisProbeFailure & { transient: boolean } {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'ReplyError') {
    if (message.startsWith('LOADING')) {
      return { kind: 'unreachable', reason: `still loading its data after ${timeoutMs / 1000} s`, transient: true };
    }
    return { kind: 'refused', reason: message, transient: false };
  }
  if (code === 'ETIMEDOUT') {
    return { kind: 'unreachable', reason: `no answer within ${timeoutMs / 1000} s`, transient: true };
  }
  return {
    kind: 'unreachable',
    reason: describeRedisError(error),
    transient: code === 'ECONNREFUSED' || code === 'ECONNRESET',
  };
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A connection error of a Redis client in a few words (`connection refused`), for a message or a log. */
export function describeRedisError(error: unknown): string {
  switch (errorCode(error)) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
