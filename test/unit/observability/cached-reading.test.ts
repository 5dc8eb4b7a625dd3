import { describe, expect, it } from 'vitest';
import { createCachedReading } from '../../../src/observability/cached-reading.ts';

function counter(values: (number | Error)[]) {
  let reads = 0;
  const read = () => {
    const next = values[Math.min(reads, values.length - 1)];
    reads += 1;
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next ?? 0);
  };
  return { read, reads: () => reads };
}

describe('a cached reading', () => {
  it('reads on first use, then answers from the cache until the value is older than maxAgeMs', async () => {
    const clock = { now: 0 };
    const source = counter([1, 2]);
    const reading = createCachedReading(source.read, { maxAgeMs: 1000, clock: () => clock.now });
    expect(await reading.get()).toBe(1);
    clock.now = 999;
    expect(await reading.get()).toBe(1);
    expect(source.reads()).toBe(1);
    clock.now = 1000;
    // Stale: the last value now, one refresh behind it, however many readings ask.
    expect(await Promise.all([reading.get(), reading.get(), reading.get()])).toEqual([1, 1, 1]);
    await reading.settled();
    expect(source.reads()).toBe(2);
    expect(await reading.get()).toBe(2);
  });

  it('keeps the last value when a background refresh fails, and tries again on the next stale reading', async () => {
    const clock = { now: 0 };
    const source = counter([5, new Error('redis down'), 7]);
    const reading = createCachedReading(source.read, { maxAgeMs: 10, clock: () => clock.now });
    expect(await reading.get()).toBe(5);
    clock.now = 10;
    expect(await reading.get()).toBe(5);
    await reading.settled();
    expect(await reading.get()).toBe(5);
    await reading.settled();
    expect(await reading.get()).toBe(7);
    expect(source.reads()).toBe(3);
  });
});
