/**
 * What an error's `details` hold, by code, and an example of each error: the OpenAPI document
 * publishes both (a client reads `details` by its code; Swagger UI shows each code's own example),
 * and `errorResponseSchema` holds every error response to them (the fuzz and route tests parse
 * what the server answers with it). A details object may carry more than its code names: the
 * fields named are typed, others are not promised.
 */
import { z } from 'zod';
import type { ErrorCode } from './errors.ts';

const names = z.array(z.string());
const issues = z
  .array(z.looseObject({ path: z.string(), message: z.string(), code: z.string().optional() }))
  .describe('What does not match the schema: the field path, what is wrong');
const state = names.describe('The workflow’s leaf state paths');
const jobId = z.string().describe('The job the request names');
const version = z.number().int().describe('The workflow’s version now');

/** Known details, by code; an object with nothing named promises nothing. */
export const errorDetails = {
  MALFORMED_JSON: z.looseObject({}),
  BAD_REQUEST: z.looseObject({
    issues: issues.optional(),
    known: names.optional().describe('The known states, for an unknown state'),
    definitions: names.optional().describe('The known definitions, for an unknown definition'),
    afterVersion: z.number().int().optional(),
    until: z.string().optional(),
    version: version.optional(),
    waitMs: z.number().int().optional(),
  }),
  UNAUTHORIZED: z.looseObject({}),
  FORBIDDEN: z.looseObject({
    reason: z
      .string()
      .optional()
      .describe(
        'Why, when a role is not the reason: `PERSON_EVENT` (only a person decides it), `INVALID_PRINCIPAL`, `JOB_RESULT_NEEDS_LEASE`, `LEASE_FOR_ANOTHER_JOB`, `JOB_GIVEN_UP_BY_WORKER_ONLY`, `WORKER_GIVES_UP_A_JOB`',
      ),
    requiredRoles: names.optional().describe('The roles that may do it'),
    type: z.string().optional(),
    jobId: jobId.optional(),
  }),
  GUARD_REJECTED: z.looseObject({
    guard: z.string().nullable().optional().describe('The first guard that refused'),
    guards: names.optional().describe('Every guard of the transitions the event could take'),
    failedChecks: names.optional().describe('What the guards found missing or wrong'),
  }),
  TOOL_NOT_ALLOWED: z.looseObject({ offered: names.describe('The tools the caller may use now') }),
  NOT_FOUND: z.looseObject({}),
  METHOD_NOT_ALLOWED: z.looseObject({
    allowed: names.describe('The methods the path answers (also `Allow`)'),
  }),
  REQUEST_TIMEOUT: z.looseObject({}),
  NO_TRANSITION: z.looseObject({ state: state.optional() }),
  WORKFLOW_FINISHED: z.looseObject({ state: state.optional() }),
  STALE_JOB: z.looseObject({
    jobId: jobId.optional(),
    jobInFlight: z.boolean().optional().describe('A job is in flight, but not the one named: no result will fit it'),
    inFlight: names.optional().describe('The jobs in flight'),
    guards: names.optional(),
  }),
  STALE_TIMER: z.looseObject({ timerId: z.string().optional() }),
  LEASE_NOT_HELD: z.looseObject({ jobId: jobId.optional(), reason: z.string().optional() }),
  OUTCOME_UNPROVEN: z.looseObject({
    outcome: z.string().optional().describe('The final state the event would end in'),
    means: z.string().optional().describe('What that outcome proves'),
    missing: names.optional().describe('The checks of that proof that do not hold'),
  }),
  CONFLICT: z.looseObject({}),
  NO_MIGRATION: z.looseObject({}),
  PRECONDITION_FAILED: z.looseObject({ version }),
  PAYLOAD_TOO_LARGE: z.looseObject({}),
  UNSUPPORTED_MEDIA_TYPE: z.looseObject({}),
  INVALID_EVENT: z.looseObject({
    issues: issues.optional(),
    type: z.string().optional().describe('The event type'),
    knownTypes: names.optional().describe('For an unknown type: the types the caller’s roles may send'),
  }),
  INVALID_INPUT: z.looseObject({
    issues: issues.optional(),
    topLevel: names.optional().describe('The input fields sent at the top level beside `input`'),
    known: names.optional().describe('The registered definitions, for an unknown one'),
    unknown: names.optional().describe('The queues named that no external worker serves'),
    queues: names.optional().describe('The queues of external workers'),
  }),
  IDEMPOTENCY_KEY_REUSED: z.looseObject({ workflowId: z.string().describe('The workflow the key created') }),
  AMBIGUOUS_STATE: z.looseObject({
    state: z.string(),
    definitions: names.describe('The definitions with a state of that name: name one'),
  }),
  RATE_LIMITED: z.looseObject({
    retryAfterMs: z.number().int().optional().describe('How long to wait, ms (also `Retry-After`, in seconds)'),
    limit: z.number().int().optional(),
  }),
  HEADERS_TOO_LARGE: z.looseObject({}),
  INTERNAL: z.looseObject({ requestId: z.string().optional().describe('The request id, to find it in the log') }),
  UNAVAILABLE: z.looseObject({ cause: z.string().optional() }),
} satisfies Record<ErrorCode, z.ZodType>;

/** One example of each error, as the server answers it. */
export const errorExamples: Record<ErrorCode, { message: string; details: Record<string, unknown> }> = {
  MALFORMED_JSON: { message: 'the body is not valid JSON', details: {} },
  BAD_REQUEST: {
    message: 'the request does not match its schema',
    details: { issues: [{ path: 'limit', message: 'Too big: expected number to be <=200', code: 'too_big' }] },
  },
  UNAUTHORIZED: { message: 'the token is invalid or expired', details: {} },
  FORBIDDEN: {
    message: 'APPROVED needs one of the roles support_approver',
    details: { requiredRoles: ['support_approver'] },
  },
  GUARD_REJECTED: {
    message: 'APPROVED refused by guard approvalIsCurrentAndAuthorized',
    details: {
      guard: 'approvalIsCurrentAndAuthorized',
      guards: ['approvalIsCurrentAndAuthorized'],
      failedChecks: ['the approved amount exceeds the approver’s limit'],
    },
  },
  TOOL_NOT_ALLOWED: {
    message: 'APPROVED is not a tool this caller may use now',
    details: { offered: ['CANCEL_REQUESTED'] },
  },
  NOT_FOUND: { message: 'no workflow s007-Xf3kq9Lm2Np8', details: {} },
  METHOD_NOT_ALLOWED: {
    message: 'DELETE is not allowed on /v1/workflows/s007-Xf3kq9Lm2Np8',
    details: { allowed: ['GET', 'HEAD'] },
  },
  REQUEST_TIMEOUT: { message: 'the request did not arrive whole within 30000 ms', details: {} },
  NO_TRANSITION: {
    message: 'APPROVED is not allowed in beforeAction.recommending',
    details: { state: ['beforeAction.recommending'] },
  },
  WORKFLOW_FINISHED: { message: 'the workflow is finished (completed)', details: { state: ['completed'] } },
  STALE_JOB: { message: 'job j-42 is not waiting for a result', details: { jobId: 'j-42' } },
  STALE_TIMER: { message: 'timer approvalTimeout no longer applies', details: { timerId: 'approvalTimeout' } },
  LEASE_NOT_HELD: { message: 'the lease on job j-42 is not held', details: { jobId: 'j-42' } },
  OUTCOME_UNPROVEN: {
    message: 'ACTION_EXECUTED would end the workflow completed without its proof: a receipt',
    details: { outcome: 'completed', means: 'the refund was executed once', missing: ['a receipt'] },
  },
  CONFLICT: { message: 'the workflow kept changing; try again', details: {} },
  NO_MIGRATION: { message: 'no migration from support@1 to support@2', details: {} },
  PRECONDITION_FAILED: { message: 'the workflow is at version 12', details: { version: 12 } },
  PAYLOAD_TOO_LARGE: { message: 'the body exceeds 1048576 bytes', details: {} },
  UNSUPPORTED_MEDIA_TYPE: { message: 'send the body as application/json (UTF-8)', details: {} },
  INVALID_EVENT: {
    message: 'invalid APPROVED payload',
    details: { issues: [{ path: 'amount', message: 'Invalid input: expected number', code: 'invalid_type' }] },
  },
  INVALID_INPUT: {
    message: 'no definition billing is registered',
    details: { known: ['support@1', 'support@2', 'agent-task@1'] },
  },
  IDEMPOTENCY_KEY_REUSED: {
    message: 'this Idempotency-Key was used for another creation request',
    details: { workflowId: 's007-Xf3kq9Lm2Np8' },
  },
  AMBIGUOUS_STATE: {
    message: 'several definitions have a state awaitingApproval: name one with definition=',
    details: { state: 'awaitingApproval', definitions: ['agent-task', 'loan'] },
  },
  RATE_LIMITED: { message: 'too many requests', details: { retryAfterMs: 1500 } },
  HEADERS_TOO_LARGE: { message: 'the request line and headers exceed 16384 bytes', details: {} },
  INTERNAL: { message: 'internal error', details: { requestId: 'b5c1e0f2-7d1a-4c2e-9a51-2f0c8d3e6a10' } },
  UNAVAILABLE: { message: 'the token keys cannot be fetched', details: { cause: 'TypeError: fetch failed' } },
};
