/**
 * The operation catalogue: every operation an agent task may propose (a name outside it never
 * executes; an approval needs one that is reversible or declares a recovery path, seed 002), and the
 * policy a proposed plan is validated against: pure code, no model, no clock of its own (the time
 * is the event's `at`).
 */
import { z } from 'zod';
import { text } from '../../src/definitions/event-fields.ts';
import { operationCatalogue } from '../../src/authoring/operation-catalogue.ts';

export const operations = operationCatalogue({
  update_crm_record: {
    description: 'Set fields of one CRM record (last write wins: repeating it changes nothing more).',
    parameters: z.strictObject({
      recordId: text(200),
      fields: z
        .record(text(100), z.union([z.string().max(2000), z.number(), z.boolean()]))
        .refine((fields) => Object.keys(fields).length >= 1 && Object.keys(fields).length <= 20, '1 to 20 fields'),
    }),
    idempotent: true,
    reversible: true,
  },
  send_report: {
    description: 'Send a generated report to recipients (deduplicated by the idempotency key).',
    parameters: z.strictObject({ reportId: text(200), recipients: z.array(z.email()).min(1).max(50) }),
    idempotent: true,
    reversible: false,
    recoveryPath: 'Send a correction notice to the same recipients, naming the report it replaces.',
  },
  publish_post: {
    description: 'Publish a post on a channel (upsert by the idempotency key; can be unpublished).',
    parameters: z.strictObject({
      channel: z.enum(['blog', 'linkedin', 'newsletter']),
      title: text(300),
      body: text(20_000),
    }),
    idempotent: true,
    reversible: true,
  },
  issue_credit: {
    description: "Issue a credit to a customer's account: money moves, once, and the credit cannot be undone.",
    parameters: z.strictObject({
      customerId: text(200),
      amount: z.number().positive().max(1_000_000_000),
      currency: z.string().regex(/^[A-Z]{3}$/, 'ISO 4217 code'),
    }),
    idempotent: false,
    reversible: false,
    recoveryPath: "Finance recovers a wrong credit with a debit on the customer's next invoice.",
  },
  delete_crm_record: {
    description: 'Delete one CRM record permanently: it cannot be restored, so no approval can let it run.',
    parameters: z.strictObject({ recordId: text(200) }),
    idempotent: true,
    reversible: false,
  },
});

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
  const { problems: reasons, parsed } = operations.check(plan.operation, plan.parameters);
  if (operations.has(plan.operation) && !policy.allowedOperations.includes(plan.operation))
    reasons.unshift(`operation ${plan.operation} is not allowed by ${policy.version}`);
  const amount = plan.operation === 'issue_credit' ? (parsed as { amount: number } | undefined)?.amount : undefined;
  if (amount !== undefined && amount > policy.maxCreditAmount)
    reasons.push(`credit amount ${amount} exceeds the policy maximum ${policy.maxCreditAmount}`);
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
