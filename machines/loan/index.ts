/** The loan workflow's bundle: what people see, where they work, what each ending proves, its path model. */
import { z } from 'zod';
import { workflow } from '../../src/authoring/index.ts';
import { ledger, localMemo } from './loan.effects.ts';
import { loanMachine, type LoanContext } from './loan.machine.ts';

const error = (retryable: boolean) => ({ class: 'UNAVAILABLE', message: 'down', retryable });
const underwriter = {
  id: 'uw-1',
  tenantId: 't1',
  kind: 'user' as const,
  roles: ['underwriter'],
  claims: { lendingLimit: 50_000 },
};
const failures = { transient: { payload: { error: error(true) } }, final: { payload: { error: error(false) } } };

export const loan = workflow<LoanContext, { ledger: ReturnType<typeof ledger> }>({
  machine: loanMachine,
  title: 'Loan application',
  description:
    'Parallel identity and credit checks, a model-drafted memo, an underwriter’s approval, a disbursement exactly once.',
  create: ['loan_officer'],
  roles: { officer: 'loan_officer', underwriter: 'underwriter', worker: 'worker' },
  claims: {
    lendingLimit: { description: 'the largest loan an underwriter may approve', starter: { underwriter: 50_000 } },
  },
  adapters: (platform) => ({ ledger: ledger(platform) }),
  localModel: { loanMemo: localMemo },
  outcomes: {
    disbursed: {
      means: 'an underwriter other than the requester approved a verified applicant, and the money moved once',
      missing: (c) => [
        ...(c.identityVerified === true ? [] : ['identityVerified']),
        ...(c.decidedBy !== null && c.decidedBy !== c.requesterId ? [] : ['approvedByAnother']),
        ...(c.disbursement !== null ? [] : ['disbursementReceipt']),
      ],
    },
    declined: {
      means: 'the application was declined for a stated reason',
      missing: (c) => (c.declineReason ? [] : ['declineReason']),
    },
  },
  view: {
    schema: z
      .object({ amount: z.number(), identityVerified: z.boolean().nullable(), creditScore: z.number().nullable() })
      .extend({
        memo: z.unknown(),
        decidedBy: z.string().nullable(),
        disbursement: z.string().nullable(),
      }),
    render: ({ application, identityVerified, creditScore, memo, decidedBy, disbursement }) => ({
      amount: application.amount,
      identityVerified,
      creditScore,
      memo,
      decidedBy,
      disbursement,
    }),
  },
  queues: [{ state: 'awaitingUnderwriter', title: 'Underwriting' }],
  paths: {
    bodies: [
      { applicantId: 'a-1', amount: 20_000, termMonths: 36, purpose: 'a van' },
      { applicantId: 'a-2', amount: 90_000, termMonths: 120, purpose: 'a workshop' },
    ],
    examples: {
      IDENTITY_CHECKED: { verified: { payload: { verified: true } }, unverified: { payload: { verified: false } } },
      IDENTITY_FAILED: failures,
      CREDIT_FAILED: failures,
      MEMO_FAILED: failures,
      DISBURSE_FAILED: failures,
      APPROVED: {
        shown: { payload: (c) => ({ memoArtifactId: c.memo?.artifactId ?? 'none' }) },
        stale: { payload: { memoArtifactId: 'memo-0' } },
      },
    },
  },
  demo: {
    input: () => ({ applicantId: 'a-1', amount: 20_000, termMonths: 36, purpose: 'a van' }),
    finalState: 'disbursed',
    decide: (c, record) =>
      record.statePaths.includes('awaitingUnderwriter') && c.memo
        ? {
            type: 'APPROVED',
            payload: { memoArtifactId: c.memo.artifactId },
            principal: underwriter,
            note: `the memo says ${c.memo.recommendation}`,
          }
        : null,
  },
});
