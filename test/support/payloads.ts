/**
 * The payloads support's tests send: the path model's example (`machines/support/paths/catalogue.ts`)
 * where one decides a branch, else the values below that tests read back (an account, a policy, a
 * receipt), else the schema's sample; each result names the job in flight it answers.
 */
import { artifact, key, supportExamples, version } from '../../machines/support/paths/catalogue.ts';
import type { JobsKeptBefore, SupportContext } from '../../machines/support/support.context.ts';
import { supportMachine } from '../../machines/support/support.machine.ts';
import { kitOf } from '../../src/authoring/setup.ts';
import { eventSchemas, reviewSteps, type SupportEventType } from '../../machines/support/support.events.ts';
import { guards } from '../../machines/support/support.guards.ts';
import type { Operation } from '../../machines/support/support.effects.ts';
import { sampleValid } from '../../src/paths/zod-sample.ts';

const values: Partial<Record<SupportEventType, (c: SupportContext) => Record<string, unknown>>> = {
  POLICY_RETRIEVED: () => ({ policyId: 'refunds', policyVersion: '7', artifact: artifact('policy-refunds-7') }),
  ACCOUNT_INSPECTED: () => ({ accountId: 'acct-1', artifact: artifact('account-acct-1') }),
  ACTION_OUTCOME_UNKNOWN: () => ({ errorClass: 'TIMEOUT', message: 'no answer in 10 s' }),
  ACTION_NOT_FOUND: (c) => ({ idempotencyKey: key(c) }),
  ACTION_FAILED: (c) => ({ idempotencyKey: key(c), reason: 'declined' }),
  ACTION_VOIDED: (c) => ({ idempotencyKey: key(c) }),
  FRAUD_CLEARED: () => ({ score: 0.05, artifact: artifact('fraud-screen') }),
  FRAUD_SUSPECTED: () => ({ score: 0.8, reasons: ['refunds in 90 days too high'], artifact: artifact('fraud-screen') }),
  CUSTOMER_NOTIFIED: (c) => ({ deliveryId: 'msg-1', deliveryKey: `support-notify:${c.workflowId}`, channel: 'email' }),
  COMPENSATION_SUCCEEDED: (c) => ({
    receipt: {
      providerOperationId: 'reversal-1',
      idempotencyKey: `support-compensation:${c.workflowId}:v${version(c)}`,
    },
  }),
  COMPENSATION_FAILED: () => ({ errorClass: 'UNAVAILABLE', message: 'reversal endpoint down' }),
  CANCEL_REQUESTED: () => ({ reason: 'The customer withdrew the request.' }),
  ESCALATE: () => ({ reason: 'Suspected prompt injection in the request.' }),
  COMPENSATE: () => ({ reason: 'Refunded the wrong order.' }),
  REVIEW_REJECT: () => ({ reason: 'Policy does not allow this.' }),
  // The first step the reviewer may retry here.
  REVIEW_RETRY_STEP: (c) => {
    const allowed = (step: string) =>
      guards.reviewRetryAllowed(
        { context: c, event: { type: 'REVIEW_RETRY_STEP', payload: { step } } as never },
        { step },
      );
    return { step: reviewSteps.find(allowed) ?? 'classify', note: 'Retrying after checking the dependency.' };
  },
  REVIEW_COMPLETE: () => ({ resolution: 'Handled by phone.', evidence: [{ kind: 'call', ref: 'call-77' }] }),
  REVIEW_ASSIGN: () => ({ owner: 'reviewer-1' }),
};

/** The operations whose job each result answers (the job of another operation is stale to it). */
const answers: Partial<Record<SupportEventType, readonly Operation[]>> = {
  CLASSIFIED: ['classify'],
  POLICY_RETRIEVED: ['policy'],
  ACCOUNT_INSPECTED: ['account'],
  RECOMMENDATION_GENERATED: ['recommend'],
  POLICY_VALID: ['validate'],
  POLICY_INVALID: ['validate'],
  POLICY_UNCLEAR: ['validate'],
  ACTION_EXECUTED: ['execute', 'reconcile', 'void'],
  ACTION_OUTCOME_UNKNOWN: ['execute', 'reconcile'],
  ACTION_NOT_FOUND: ['reconcile', 'execute'],
  ACTION_FAILED: ['execute', 'reconcile'],
  ACTION_VOIDED: ['void'],
  POST_ACTION_INVARIANT_FAILED: ['execute'],
  FRAUD_CLEARED: ['fraud'],
  FRAUD_SUSPECTED: ['fraud'],
  CUSTOMER_NOTIFIED: ['notify'],
  COMPENSATION_SUCCEEDED: ['compensate'],
  COMPENSATION_FAILED: ['compensate'],
};

/**
 * The valid payload of an event type in a context, naming the job in flight it answers
 * (`currentJobs`; an error any job), an invented one when none is. An optional job id (a person's
 * escalation) is left out. The path model needs no table: it tries each job in flight on the decider.
 */
/**
 * The jobs in flight as the kit keeps them (without `statePaths`, each operation's last job), or a
 * record's own `jobs` where it was persisted before the kit.
 */
export function jobsInFlight(c: SupportContext, statePaths?: readonly string[]): Record<string, string | undefined> {
  const legacy = (c as Partial<JobsKeptBefore>).jobs;
  if (!('$warden' in c) && legacy) return legacy;
  return kitOf(supportMachine)?.currentJobs(c, statePaths) ?? {};
}

export function payloadFor(
  type: SupportEventType,
  c: SupportContext,
  statePaths?: readonly string[],
): Record<string, unknown> {
  if (!Object.hasOwn(eventSchemas, type)) return {};
  const example = supportExamples[type]?.valid?.payload;
  const schema = eventSchemas[type];
  const payload =
    values[type]?.(c) ??
    (typeof example === 'function'
      ? example(c, undefined)
      : structuredClone(example ?? (sampleValid(schema, { at: { jobId: 'wf/job/1' } }) as Record<string, unknown>)));
  if (!('jobId' in schema.shape)) return payload;
  if (schema.shape.jobId.safeParse(undefined).success) {
    delete payload.jobId;
    return payload;
  }
  const jobs = jobsInFlight(c, statePaths);
  const operations = answers[type] ?? Object.keys(jobs);
  const jobId = operations.map((operation) => jobs[operation]).find((id) => id !== undefined);
  return { ...payload, jobId: jobId ?? `${c.workflowId}/${operations[0] ?? 'classify'}/999` };
}
