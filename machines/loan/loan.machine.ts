/**
 * A loan application: identity and credit are checked in parallel, a model drafts a decision memo,
 * an underwriter with a sufficient lending limit approves (never the applicant's own agent), and
 * the money is disbursed exactly once under the application's idempotency key. The config is a
 * static literal the Stately editor opens; the kit supplies the jobs, retries and envelopes.
 */
import { z } from 'zod';
import { deadLetter, event, failure, result, setup } from '../../src/authoring/index.ts';
import { checkCredit, checkIdentity, disburse, draftMemo } from './loan.effects.ts';

export const loanInput = z.strictObject({
  applicantId: z.string().trim().min(1).max(100),
  amount: z.number().positive().max(1_000_000),
  termMonths: z.number().int().min(6).max(360),
  purpose: z.string().trim().min(1).max(500),
});

export interface LoanContext {
  application: z.infer<typeof loanInput>;
  workflowId: string;
  requesterId: string;
  tenantId: string;
  identityVerified: boolean | null;
  creditScore: number | null;
  memo: { recommendation: 'approve' | 'decline'; summary: string; artifactId: string } | null;
  decidedBy: string | null;
  declineReason: string | null;
  disbursement: string | null;
}

/** Lending limit of an underwriter (the `lendingLimit` claim): none grants nothing. */
const limit = z.number().min(0).catch(-1);
export const lendingLimit = (claims: unknown) =>
  limit.parse((claims as { lendingLimit?: unknown } | undefined)?.lendingLimit);

export const loanKit = setup({
  input: loanInput,
  context: ({ applicantId, amount, termMonths, purpose, workflowId, requesterId, tenantId }): LoanContext => ({
    application: { applicantId, amount, termMonths, purpose },
    workflowId,
    requesterId,
    tenantId,
    identityVerified: null,
    creditScore: null,
    memo: null,
    decidedBy: null,
    declineReason: null,
    disbursement: null,
  }),
  events: {
    IDENTITY_CHECKED: result({ verified: z.boolean() }),
    CREDIT_CHECKED: result({ score: z.number().int().min(300).max(850) }),
    MEMO_DRAFTED: result({
      recommendation: z.enum(['approve', 'decline']),
      summary: z.string().min(1).max(2000),
      artifactId: z.string(),
    }),
    DISBURSED: result({ reference: z.string().min(1).max(200) }),
    IDENTITY_FAILED: failure(),
    CREDIT_FAILED: failure(),
    MEMO_FAILED: failure(),
    DISBURSE_FAILED: failure(),
    APPROVED: event(
      { memoArtifactId: z.string() },
      { roles: ['underwriter'], label: 'Approve loan', kind: 'primary', description: 'Approve on the memo shown.' },
    ),
    DECLINED: event(
      { reason: z.string().trim().min(1).max(500) },
      { roles: ['underwriter'], label: 'Decline loan', kind: 'danger', description: 'Decline, with your reason.' },
    ),
    ESCALATE: deadLetter(),
  },
  effects: { checkIdentity, checkCredit, draftMemo, disburse },
  guards: {
    identityFailed: ({ context }) => context.identityVerified === false,
    mayApprove: {
      notTheRequester: ({ context, event }) => event.actor.id !== context.requesterId,
      sameTenant: ({ context, event }) => event.actor.tenantId === context.tenantId,
      withinLendingLimit: ({ context, event }) => context.application.amount <= lendingLimit(event.actor.claims),
      identityVerified: ({ context }) => context.identityVerified === true,
      approvesTheMemoShown: ({ context, event }) =>
        event.type === 'APPROVED' && event.payload.memoArtifactId === context.memo?.artifactId,
    },
    mayDecline: {
      notTheRequester: ({ context, event }) => event.actor.id !== context.requesterId,
      sameTenant: ({ context, event }) => event.actor.tenantId === context.tenantId,
    },
  },
  updates: {
    recordIdentity: ({ event }) =>
      event.type === 'IDENTITY_CHECKED' ? { identityVerified: event.payload.verified } : {},
    recordCredit: ({ event }) => (event.type === 'CREDIT_CHECKED' ? { creditScore: event.payload.score } : {}),
    recordMemo: ({ event }) => (event.type === 'MEMO_DRAFTED' ? { memo: event.payload } : {}),
    recordApproval: ({ event }) => ({ decidedBy: event.actor.id }),
    recordDecline: ({ event }) => ({
      decidedBy: event.actor.id,
      declineReason: event.type === 'DECLINED' ? event.payload.reason : 'declined',
    }),
    recordIdentityDecline: () => ({ declineReason: 'identity not verified' }),
    recordDisbursement: ({ event }) => (event.type === 'DISBURSED' ? { disbursement: event.payload.reference } : {}),
  },
  delays: { underwriterTimeout: () => 3 * 24 * 3_600_000 },
});

export const loanMachine = loanKit.createMachine({
  id: 'loan',
  description: 'A loan application from the checks to a disbursement made exactly once.',
  initial: 'created',
  states: {
    created: { on: { START: 'checks' } },
    checks: {
      description: 'Identity and credit are checked at the same time; a worker giving up refers the case.',
      type: 'parallel',
      states: {
        identity: {
          initial: 'running',
          states: {
            running: {
              entry: 'checkIdentity',
              on: {
                IDENTITY_CHECKED: { target: 'done', actions: 'recordIdentity' },
                IDENTITY_FAILED: [{ guard: 'canRetry', target: 'waiting' }, { target: '#loan.referred' }],
              },
            },
            waiting: { after: { backoff: 'running' } },
            done: { type: 'final' },
          },
        },
        credit: {
          initial: 'running',
          states: {
            running: {
              entry: 'checkCredit',
              on: {
                CREDIT_CHECKED: { target: 'done', actions: 'recordCredit' },
                CREDIT_FAILED: [{ guard: 'canRetry', target: 'waiting' }, { target: '#loan.referred' }],
              },
            },
            waiting: { after: { backoff: 'running' } },
            done: { type: 'final' },
          },
        },
      },
      on: { ESCALATE: 'referred' },
      onDone: [
        { guard: 'identityFailed', target: 'declined', actions: 'recordIdentityDecline' },
        { target: 'drafting' },
      ],
    },
    drafting: {
      description: 'A model drafts the decision memo; it recommends, it decides nothing.',
      entry: 'draftMemo',
      on: {
        MEMO_DRAFTED: { target: 'awaitingUnderwriter', actions: 'recordMemo' },
        MEMO_FAILED: [{ guard: 'canRetry', target: 'memoWait' }, { target: 'referred' }],
        ESCALATE: 'referred',
      },
    },
    memoWait: { after: { backoff: 'drafting' } },
    awaitingUnderwriter: {
      description:
        'An underwriter of the tenant, not the requester, within their lending limit, decides on the memo shown. Queue: Underwriting.',
      on: {
        APPROVED: { guard: 'mayApprove', target: 'disbursing', actions: 'recordApproval' },
        DECLINED: { guard: 'mayDecline', target: 'declined', actions: 'recordDecline' },
      },
      after: { underwriterTimeout: 'referred' },
    },
    disbursing: {
      description: 'The money moves under the application’s idempotency key: a retry can never pay twice.',
      entry: 'disburse',
      on: {
        DISBURSED: { target: 'disbursed', actions: 'recordDisbursement' },
        DISBURSE_FAILED: [{ guard: 'canRetry', target: 'disburseWait' }, { target: 'referred' }],
        ESCALATE: 'referred',
      },
    },
    disburseWait: { after: { backoff: 'disbursing' } },
    disbursed: { type: 'final' },
    declined: { type: 'final' },
    referred: { type: 'final', description: 'A person takes the case over outside the workflow.' },
  },
});
