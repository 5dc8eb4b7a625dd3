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

const isoPattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

/** Milliseconds since the epoch of a UTC ISO date-time, or null: arithmetic only, no `Date`. */
export function isoToEpochMs(iso: string): number | null {
  const m = isoPattern.exec(iso);
  if (!m) return null;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const millis = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  return ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis;
}

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
