/**
 * The loan's effects, each declared once: parameters, handler, results, retry policy. The adapters
 * are offline stand-ins (a deterministic identity and credit bureau, a ledger that pays once per key).
 */
import { z } from 'zod';
import { effect, EffectError } from '../../src/authoring/index.ts';
import type { PlatformAdapters } from '../../src/definitions/workflow.ts';
import type { LoanContext } from './loan.machine.ts';

const transient = {
  maxAttempts: 3,
  backoff: { initialIntervalMs: 1_000, backoffCoefficient: 2, maxIntervalMs: 30_000, jitterRatio: 0.2 },
};

export const memoTask = {
  name: 'loanMemo',
  promptVersion: 'loan-memo-v1',
  instructions: 'Draft an underwriting memo: recommend approve or decline, with a short summary of why.',
  output: z.strictObject({ recommendation: z.enum(['approve', 'decline']), summary: z.string().min(1).max(2000) }),
};

/** The offline model's memo: approve a verified applicant with a score of 620 or more. */
export const localMemo = (input: unknown) => {
  const { score, amount } = input as { score: number; amount: number };
  return score >= 620
    ? { recommendation: 'approve', summary: `Score ${score} supports a loan of ${amount}.` }
    : { recommendation: 'decline', summary: `Score ${score} is below 620.` };
};

/** Pays at most once per key: Redis SET NX when the store is Redis, else this process's memory. */
export function ledger(platform: PlatformAdapters) {
  const paid = new Map<string, string>();
  return {
    async pay(key: string, amount: number): Promise<string> {
      const reference = `pay-${key}-${amount}`;
      if (!platform.redis) return paid.get(key) ?? (paid.set(key, reference), reference);
      const ledgerKey = platform.key('ledger', key);
      await platform.redis.set(ledgerKey, reference, 'NX');
      return (await platform.redis.get(ledgerKey)) ?? reference;
    },
  };
}
export type LoanDeps = { ledger: ReturnType<typeof ledger> };

const applicant = z.strictObject({ applicantId: z.string(), amount: z.number() });
const params = (c: LoanContext) => ({ applicantId: c.application.applicantId, amount: c.application.amount });

export const checkIdentity = effect<LoanContext, z.infer<typeof applicant>>({
  params,
  paramsSchema: applicant,
  results: ['IDENTITY_CHECKED'],
  failure: 'IDENTITY_FAILED',
  retry: transient,
  idempotent: true,
  run: ({ params: p }) =>
    Promise.resolve({ type: 'IDENTITY_CHECKED', payload: { verified: !p.applicantId.startsWith('unknown') } }),
});

export const checkCredit = effect<LoanContext, z.infer<typeof applicant>>({
  params,
  paramsSchema: applicant,
  results: ['CREDIT_CHECKED'],
  failure: 'CREDIT_FAILED',
  retry: transient,
  idempotent: true,
  run: ({ params: p }) => {
    if (p.applicantId.startsWith('down')) throw new EffectError('UNAVAILABLE', 'the credit bureau is down', true);
    return Promise.resolve({ type: 'CREDIT_CHECKED', payload: { score: p.applicantId.startsWith('low') ? 540 : 710 } });
  },
});

export const draftMemo = effect<LoanContext, { score: number; amount: number; purpose: string }>({
  params: (c) => ({ score: c.creditScore ?? 0, amount: c.application.amount, purpose: c.application.purpose }),
  results: ['MEMO_DRAFTED'],
  failure: 'MEMO_FAILED',
  retry: transient,
  idempotent: true,
  run: async ({ params: p, ask }) => {
    const answer = await ask(memoTask, p);
    if (answer.status === 'invalid') throw new EffectError('INVALID_OUTPUT', answer.issues.join('; '), false);
    return { type: 'MEMO_DRAFTED', payload: { ...answer.output, artifactId: answer.artifact.id } };
  },
});

export const disburse = effect<LoanContext, { key: string; amount: number }, LoanDeps>({
  params: (c) => ({ key: c.workflowId, amount: c.application.amount }),
  results: ['DISBURSED'],
  failure: 'DISBURSE_FAILED',
  retry: transient,
  idempotent: true,
  run: async ({ params: p, deps }) => ({
    type: 'DISBURSED',
    payload: { reference: await deps.ledger.pay(p.key, p.amount) },
  }),
});
