/**
 * The deterministic policy check of a recommendation. Code, not a model, decides whether a refund
 * is within policy; its version is recorded with every verdict so a verdict can be replayed.
 */
import type { PolicyDocument } from './policy-source.ts';

export const validatorVersion = 'policy-validator@1';

export interface RecommendationToValidate {
  amount: number;
  currency: string;
}

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
  recommendation: RecommendationToValidate,
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
