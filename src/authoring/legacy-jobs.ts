/**
 * The jobs of a context persisted before the kit, by contexts that counted the jobs started per
 * operation (`attempts: { plan: 2, execute: 1 }`): for `setup({ legacyJobs })`. Each counted
 * operation's last job, `<workflowId>/<operation>/<n>`, is the one in flight if its state is active.
 */
import type { JobBook } from './setup.ts';

/** `counts` the jobs started per operation; `attempts` the attempt of an operation's last job (1 when absent). */
export function jobsFromCounts(
  workflowId: string,
  counts: Readonly<Record<string, number>> | undefined,
  attempts: Readonly<Record<string, number>> = {},
): JobBook['jobs'] {
  return Object.fromEntries(
    Object.entries(counts ?? {})
      .filter(([, n]) => n > 0)
      .map(([op, n]) => [op, { id: `${workflowId}/${op}/${n}`, n, attempt: attempts[op] ?? 1 }]),
  );
}
