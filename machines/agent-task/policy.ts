/**
 * Deterministic validation of a proposed plan: pure code, no model, no clock of its own (the time
 * is the event's `at`). A plan passes only when every check passes; the reasons name each failure.
 */
import { isOperationName, operationCatalogue } from './operations.ts';

export const agentTaskPolicy = {
  version: 'agent-task-policy/1',
  /** Operations this deployment lets an agent propose at all. */
  allowedOperations: ['update_crm_record', 'send_report', 'publish_post', 'issue_credit', 'delete_crm_record'],
  /** Highest credit an agent task may issue, in major units. */
  maxCreditAmount: 500,
  /** How far in the future `dataAsOf` may be (clock skew), ms. */
  futureSkewMs: 5 * 60 * 1000,
};

/** The reasons a plan may not go to approval at `at`; empty when it passes every check. */
export function validatePlan(
  plan: { operation: string; parameters: Record<string, unknown> },
  facts: { dataAsOfMs: number | null; maxDataAgeMs: number; at: number },
  policy = agentTaskPolicy,
): string[] {
  const reasons: string[] = [];
  if (!isOperationName(plan.operation)) reasons.push(`unknown operation ${plan.operation}: not in the catalogue`);
  else {
    if (!policy.allowedOperations.includes(plan.operation))
      reasons.push(`operation ${plan.operation} is not allowed by ${policy.version}`);
    const parsed = operationCatalogue[plan.operation].parameters.safeParse(plan.parameters);
    if (!parsed.success) {
      for (const i of parsed.error.issues)
        reasons.push(`parameters${i.path.length ? '.' + i.path.map(String).join('.') : ''}: ${i.message}`);
    } else if (plan.operation === 'issue_credit') {
      const amount = (parsed.data as { amount: number }).amount;
      if (amount > policy.maxCreditAmount)
        reasons.push(`credit amount ${amount} exceeds the policy maximum ${policy.maxCreditAmount}`);
    }
  }
  if (facts.dataAsOfMs === null) reasons.push('the task gives no dataAsOf: the freshness of its data cannot be shown');
  else {
    const age = facts.at - facts.dataAsOfMs;
    if (age > facts.maxDataAgeMs)
      reasons.push(`the data is stale: ${age} ms old, the limit is ${facts.maxDataAgeMs} ms`);
    if (age < -policy.futureSkewMs)
      reasons.push('the data claims to be from the future (dataAsOf after validation time)');
  }
  return reasons;
}
