/**
 * The deterministic checks of a recommended refund: its policy validation and its fraud screen.
 * Code, not a model, decides; each check's version is recorded with its verdict, so a verdict can
 * be replayed.
 */
import type { AccountSummary, PolicyDocument } from './evidence.ts';

export const validatorVersion = 'policy-validator@1';

export type PolicyVerdict =
  | { outcome: 'valid'; checks: string[] }
  | { outcome: 'invalid'; revisable: boolean; reasons: string[] }
  | { outcome: 'unclear'; questions: string[] };

const defaultQuestion = (policy: PolicyDocument) =>
  `Policy ${policy.id}@${policy.version} asks a person to judge every ${policy.category} refund: is this refund justified?`;

/**
 * Judges `recommendation` against `policy`: unclear when the policy reserves the category for a
 * person, invalid when the currency is not allowed (not revisable: the customer paid in it) or the
 * amount exceeds the maximum (revisable: a smaller refund may pass), valid otherwise.
 */
export function validateRecommendation(
  recommendation: { amount: number; currency: string },
  policy: PolicyDocument,
): PolicyVerdict {
  if (policy.requiresHumanJudgement) {
    const questions = policy.judgementQuestions.length ? policy.judgementQuestions : [defaultQuestion(policy)];
    return { outcome: 'unclear', questions };
  }
  const reasons: string[] = [];
  let revisable = true;
  if (!policy.currencies.includes(recommendation.currency)) {
    revisable = false;
    reasons.push(
      `currency ${recommendation.currency} is not allowed by ${policy.id} (allowed: ${policy.currencies.join(', ')})`,
    );
  }
  if (recommendation.amount > policy.maxRefund) {
    reasons.push(
      `amount ${recommendation.amount.toFixed(2)} exceeds the policy maximum of ${policy.maxRefund.toFixed(2)}`,
    );
  }
  if (reasons.length) return { outcome: 'invalid', revisable, reasons };
  return {
    outcome: 'valid',
    checks: [
      `amount ${recommendation.amount.toFixed(2)} <= max refund ${policy.maxRefund.toFixed(2)}`,
      `currency ${recommendation.currency} allowed`,
      'category does not require human judgement',
    ],
  };
}

export const fraudScreenVersion = 'fraud-screen@1';

/** Refunds in 90 days above this total (account currency) look like abuse. */
const ninetyDayLimit = 300;

/** Rules, not a model, so a verdict can be replayed. */
export function screenRefund(account: AccountSummary, amount: number): { score: number; reasons: string[] } {
  const reasons: string[] = [];
  if (account.status !== 'active') reasons.push(`the account is ${account.status}`);
  if (account.refundedLast90Days + amount > ninetyDayLimit) {
    reasons.push(
      `refunds in 90 days would reach ${(account.refundedLast90Days + amount).toFixed(2)}, above ${ninetyDayLimit}`,
    );
  }
  const charged = account.orders.reduce((sum, order) => sum + order.amount * order.charges, 0);
  if (account.orders.length > 0 && amount > charged) {
    reasons.push(`the refund ${amount.toFixed(2)} exceeds everything charged (${charged.toFixed(2)})`);
  }
  const score = Math.min(1, reasons.length * 0.4 + Math.min(0.2, amount / 5000));
  return { score: Math.round(score * 1000) / 1000, reasons };
}
