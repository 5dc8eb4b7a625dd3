/**
 * What the CLI says of a Redis it cannot use: the address without its credentials, and what went
 * wrong in a few words. `probeRedis` on a port nothing listens on (no Redis needed).
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../bench/server.ts';
import { describeRedisError, probeRedis } from '../../src/store/redis/probe.ts';
import { redactRedisUrl } from '../../src/store/redis/redact-url.ts';

const failure = (code: string, message = `${code} somewhere`) => Object.assign(new Error(message), { code });

describe('redactRedisUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['redis://:s3cret@redis.internal:6380/2', 'redis://***@redis.internal:6380/2'],
    ['rediss://warden:s3cret@redis.internal', 'rediss://***@redis.internal'],
    // A lone name may be a password written in the wrong place: masked too.
    ['redis://s3cret@redis.internal', 'redis://***@redis.internal'],
    ['redis://redis.internal?password=s3cret&family=6', 'redis://redis.internal?password=***&family=6'],
  ])('prints %s as %s', (url, shown) => {
    expect(redactRedisUrl(url)).toBe(shown);
    expect(redactRedisUrl(url)).not.toContain('s3cret');
  });

  it('never echoes what is not a URL (it could be a password pasted alone)', () => {
    expect(redactRedisUrl('s3cret')).toBe('REDIS_URL (not a URL)');
  });
});

describe('describeRedisError', () => {
  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ENOTFOUND', 'unknown host'],
    ['EAI_AGAIN', 'unknown host'],
    ['ETIMEDOUT', 'connection timed out'],
    ['ECONNRESET', 'connection reset'],
    ['EHOSTUNREACH', 'host unreachable'],
  ])('says %s as %s', (code, words) => {
    expect(describeRedisError(failure(code))).toBe(words);
  });

  it('says anything else by its message', () => {
    expect(describeRedisError(failure('EPROTO', 'wrong version number'))).toBe('wrong version number');
    expect(describeRedisError('gone')).toBe('gone');
  });
});

describe('probeRedis', () => {
  it('says a closed port refuses the connection, after retrying for at most its timeout', async () => {
    const port = await freePort();
    const started = Date.now();
    expect(await probeRedis(`redis://127.0.0.1:${port}`, { timeoutMs: 600 })).toEqual({
      kind: 'unreachable',
      reason: 'connection refused',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('retries a Redis still loading its data until its timeout, then says so', async () => {
    // A server that answers every command as a Redis loading its append-only file does.
    let connections = 0;
    const loading = createServer((socket) => {
      connections++;
      socket.on('data', (chunk) => {
        for (const _command of chunk.toString().match(/^\*\d+\r$/gm) ?? []) {
          socket.write('-LOADING Redis is loading the dataset in memory\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => loading.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = loading.address() as { port: number };
      expect(await probeRedis(`redis://127.0.0.1:${port}`, { timeoutMs: 1_000 })).toEqual({
        kind: 'unreachable',
        reason: 'still loading its data after 1 s',
      });
      expect(connections).toBeGreaterThan(1);
    } finally {
      loading.close();
    }
  });
});
