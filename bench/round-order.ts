/** The order in which a bench that compares deployments runs them, round by round. */

/** One run of a round: what is measured, and its place among the sides of its comparison (1 ran first). */
export interface ScheduledRun<T> {
  target: T;
  position: number;
}

/**
 * The runs of round `round` (from 1): each group of sides compared (a layout/observe combination,
 * this checkout then the `--against` one) in turn, its sides in the given order in odd rounds and
 * reversed in even ones (ABBA). The first run of a comparison after a pause measures highest (V8's
 * memory reducer, cold caches), so a side that always ran first would always be measured worse.
 */
export function roundOrder<T>(groups: readonly (readonly T[])[], round: number): ScheduledRun<T>[] {
  return groups.flatMap((sides) =>
    (round % 2 === 1 ? sides : [...sides].reverse()).map((target, i) => ({ target, position: i + 1 })),
  );
}
