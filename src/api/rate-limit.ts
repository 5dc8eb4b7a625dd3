/**
 * A token bucket per principal, in memory: `perMinute` requests a minute with bursts of the same
 * size. Per process; behind a load balancer each process limits its share.
 */
export function createRateLimiter(options: { perMinute: number; clock: () => number }) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const rate = options.perMinute / 60_000;
  function use(key: string, taking: boolean): number {
    if (options.perMinute <= 0) return 0;
    const now = options.clock();
    const bucket = buckets.get(key) ?? { tokens: options.perMinute, at: now };
    bucket.tokens = Math.min(options.perMinute, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    buckets.set(key, bucket);
    if (buckets.size > 100_000) buckets.delete(buckets.keys().next().value ?? key);
    if (bucket.tokens >= 1) {
      if (taking) bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / rate);
  }
  return {
    /** Takes a token for `key`; returns 0 when allowed, else ms until one is available. */
    take(key: string): number {
      return use(key, true);
    },
    /** Like `take`, without taking: 0 when a token is available now, else ms until one is. */
    peek(key: string): number {
      return use(key, false);
    },
  };
}
