/**
 * What a workflow's model calls have spent, for the loop budgets of seed 000 §14: the same
 * accounting for every workflow, kept in its context because its guards decide on it.
 */

/** What a workflow's model calls have spent so far. */
export interface ModelSpend {
  tokens: number;
  /** Estimated from the tokens by a price per kilo-token, in millionths of the currency unit. */
  costMicros: number;
  /** Model calls answered, repairs included. */
  modelCalls: number;
}

/** The usage a model result reports (optional: a result without one counts one call, no tokens). */
export interface ReportedUsage {
  promptTokens: number;
  completionTokens: number;
  calls: number;
}

export const nothingSpent: ModelSpend = { tokens: 0, costMicros: 0, modelCalls: 0 };

/** The spend after one more result: its tokens, their estimated cost (rounded up) and its calls. */
export function addModelUsage(
  spent: ModelSpend | undefined,
  usage: ReportedUsage | undefined,
  microsPerKiloToken: number,
): ModelSpend {
  const before = spent ?? nothingSpent;
  const tokens = usage ? usage.promptTokens + usage.completionTokens : 0;
  return {
    tokens: before.tokens + tokens,
    costMicros: before.costMicros + Math.ceil((tokens * microsPerKiloToken) / 1000),
    modelCalls: before.modelCalls + (usage?.calls ?? 1),
  };
}
