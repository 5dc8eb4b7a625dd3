/**
 * The path invariants of an operation a person approves and the ledger then executes once
 * (`ledgerEffects`), for a path model's `invariants`: the authority boundary of an agent's proposal
 * (seed 002) checked after every step of the walk. A step that starts the execution must follow an
 * accepted approval by the approving role, recorded as sent by who sent it, with every named check
 * of the context holding; an execution right after a fence must use a fresh key; a second attempt
 * runs only when repeating it is safe; and a not-found never ends the workflow failed, since it is
 * no proof until the key is fenced.
 */
import type { PathObservation } from '../definitions/workflow.ts';
import type { LedgerEvents } from './ledger-effects.ts';
import { attemptOf } from './setup.ts';

export interface ApprovedExecutionSpec<TContext> {
  /** The effect that executes (its action name, as the chart's entry names it). */
  effect: string;
  /** The ledger's events (`ledgerEventsOf`). */
  events: LedgerEvents;
  /** The final state of a failed execution, which a not-found must never lead to. */
  failedState: string;
  /** The person's event that authorises the execution, the role it needs, and its sender as the context records it. */
  approval: { event: string; role: string; recordedBy: (context: TContext) => string | null | undefined };
  /** What holds of the context whenever it executes, by name (`an operation executes without <name>`). */
  checks: Readonly<Record<string, (context: TContext) => boolean>>;
  /** Whether executing again is safe (an idempotent operation): else a second attempt is a violation. */
  repeatable: (context: TContext) => boolean;
  /** Whether `key` is a fresh key for `attempt` (the fenced one is not). */
  freshKey: (key: unknown, attempt: number) => boolean;
}

/** A path model's `invariants` for an operation approved by a person and executed under the ledger. */
export function approvedExecutionInvariants<TContext>(
  spec: ApprovedExecutionSpec<TContext>,
): (observation: PathObservation<TContext>) => string[] {
  const { approval, events } = spec;
  return ({ decision, context, trail }) => {
    if (decision.outcome !== 'accepted') return [];
    const violations: string[] = [];
    if (decision.audit.eventType === events.notFound && decision.record.statePaths.includes(spec.failedState))
      violations.push('a not-found is taken as proof: the workflow failed without fencing the key');
    const executions = decision.effects.filter((e) => e.type === spec.effect);
    if (executions.length === 0) return violations;
    const approved = trail.findLast((e) => e.eventType === approval.event && e.outcome === 'accepted');
    if (!approved) violations.push('an operation executes without an accepted approval');
    else {
      if (!approved.actor.roles.includes(approval.role)) violations.push(`the approval was not by a ${approval.role}`);
      if (approval.recordedBy(context) !== approved.actor.id)
        violations.push('the recorded approver is not who approved');
    }
    for (const [name, check] of Object.entries(spec.checks))
      if (!check(context)) violations.push(`an operation executes without ${name}`);
    // The step before this one, its timers aside (a retry's backoff): a fence there means a fresh key.
    const previous = trail.slice(0, -1).findLast((e) => e.channel !== 'timer');
    for (const { params, jobId, operation } of executions) {
      const attempt = attemptOf(context, operation);
      const key = params.idempotencyKey;
      if (previous?.eventType === events.voided && !spec.freshKey(key, attempt))
        violations.push(`an execution after a fence does not use a fresh key: ${String(key)}`);
      // A second attempt of the same execution (a new approval starts the count again at 1).
      if (attempt > 1 && !spec.repeatable(context)) violations.push(`a non-idempotent operation is retried: ${jobId}`);
    }
    return violations;
  };
}
