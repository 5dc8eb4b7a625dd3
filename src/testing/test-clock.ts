/** A clock a test moves by hand, for the engine, the stores and the runtime (`clock: clock.now`). */
export interface TestClock {
  /** The time now, ms since the epoch; pass `clock.now` where a `() => number` clock is wanted. */
  readonly now: () => number;
  /** Sets the time (it may not go back). */
  set(at: number): void;
  /** Moves the time forward by `ms`; returns the new time. */
  advance(ms: number): number;
}

/** A clock at `start` (2026-11-30T09:00:00Z, the path generator's start, by default) that moves only when told. */
export function createTestClock(start = Date.UTC(2026, 10, 30, 9, 0, 0)): TestClock {
  let at = start;
  return {
    now: () => at,
    set(next) {
      if (next < at) throw new RangeError(`the test clock does not go back (${next} < ${at})`);
      at = next;
    },
    advance(ms) {
      if (ms < 0) throw new RangeError('the test clock does not go back');
      at += ms;
      return at;
    },
  };
}
