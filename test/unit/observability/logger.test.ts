import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observability/logger.ts';

/** A stream that keeps what was written; `isTTY` as a terminal would say. */
function sink(isTTY: boolean) {
  const lines: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    }),
    { isTTY },
  );
  return { stream, lines };
}

describe('the process logger', () => {
  it('writes one JSON object a line when the output is not a terminal', async () => {
    const { stream, lines } = sink(false);
    createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: 'auto' }, stream).info({ port: 9464 }, 'metrics listening');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 30, msg: 'metrics listening', port: 9464 });
  });

  it('writes a short line for people on a terminal', () => {
    const { stream, lines } = sink(true);
    const logger = createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: 'auto' }, stream);
    logger.warn({ roles: ['worker'], store: 'redis' }, 'warden is running');
    logger.debug('not at info');
    expect(lines).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}warden is running roles=\["worker"\] store=redis$/),
    ]);
  });
});
