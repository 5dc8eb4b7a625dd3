/**
 * The operation catalogue: every operation an agent task may propose, with the zod schema its
 * parameters must parse with and the two facts governance needs: whether repeating it is safe
 * (idempotent), whether it can be undone (reversible) and, when it cannot, how its effect is
 * recovered from (recoveryPath). An approval needs one of the last two (seed 002: "the action is
 * reversible or has an approved recovery path"). A name outside this list never executes.
 */
import { z } from 'zod';

const text = (max: number) => z.string().trim().min(1).max(max);

export interface OperationSpec {
  description: string;
  parameters: z.ZodType<Record<string, unknown>>;
  /** Repeating the call with the same parameters has the effect of one call: a retry is safe. */
  idempotent: boolean;
  /** The effect can be undone by a later operation. */
  reversible: boolean;
  /** How an irreversible effect is recovered from, as the approver reads it; absent when there is none. */
  recoveryPath?: string;
}

export const operationCatalogue = {
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
    parameters: z.strictObject({
      reportId: text(200),
      recipients: z.array(z.email()).min(1).max(50),
    }),
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
} as const satisfies Record<string, OperationSpec>;

export type OperationName = keyof typeof operationCatalogue;
export const operationNames = Object.keys(operationCatalogue) as [OperationName, ...OperationName[]];

export function isOperationName(name: unknown): name is OperationName {
  return typeof name === 'string' && Object.hasOwn(operationCatalogue, name);
}

/** The catalogue entry of `name`, or null for a name that is not in the catalogue. */
export function operationSpec(name: unknown): OperationSpec | null {
  return isOperationName(name) ? operationCatalogue[name] : null;
}

/** Whether the named operation is safe to repeat; an unknown operation never is. */
export function isIdempotent(name: unknown): boolean {
  return operationSpec(name)?.idempotent ?? false;
}

/** Whether the named operation can be undone or declares a recovery path; an unknown operation cannot. */
export function isReversibleOrRecoverable(name: unknown): boolean {
  const spec = operationSpec(name);
  return spec !== null && (spec.reversible || (spec.recoveryPath ?? '') !== '');
}

/** The catalogue as the planner and the view show it (no schemas). */
export function catalogueSummary(): {
  name: OperationName;
  description: string;
  idempotent: boolean;
  reversible: boolean;
}[] {
  return operationNames.map((name) => {
    const spec: OperationSpec = operationCatalogue[name];
    return { name, description: spec.description, idempotent: spec.idempotent, reversible: spec.reversible };
  });
}
