/**
 * The invariants every workflow keeps, checked after every step of a generated path; a
 * definition's path model adds its own (for support: every refund fully authorised).
 */
import type { PathObservation } from '../definitions/workflow.ts';

export function stepViolations(observation: PathObservation<unknown>, requestedJobs: ReadonlySet<string>): string[] {
  const { before, decision } = observation;
  const violations: string[] = [];
  if (before.status === 'done' && decision.outcome === 'accepted') violations.push('a finished workflow changed');
  if (decision.outcome === 'refused') {
    if (decision.code === 'OUTCOME_UNPROVEN') {
      const missing = (decision.details.missing as string[] | undefined) ?? [];
      violations.push(
        `the chart ends the workflow ${String(decision.details.outcome)} without its proof: ${missing.join(', ')}`,
      );
    }
    return violations;
  }
  for (const effect of decision.effects) {
    if (requestedJobs.has(effect.jobId)) violations.push(`job ${effect.jobId} requested twice`);
  }
  if (decision.record.version !== before.version + 1) violations.push('version did not advance by one');
  return violations;
}
