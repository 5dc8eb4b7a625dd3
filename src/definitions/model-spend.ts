/**
 * What a workflow's model calls have spent, for the loop budgets of seed 000 §14: the same
 * accounting for every workflow, kept in its context because its guards decide on it.
 */
import { z } from 'zod';

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

/** The model budget a workflow's configuration carries (`modelBudgetFields` in its config schema). */
export interface ModelBudget {
  maxModelTokens: number;
  maxModelCostMicros: number;
  modelCostMicrosPerKiloToken: number;
}

const budgetField = (max: number, value: number, min = 1) => z.number().int().min(min).max(max).default(value);
/** A config schema's budget fields and their defaults. */
export const modelBudgetFields = {
  /** Model tokens the calls may spend, and their estimated cost (millionths), before a person takes over. */
  maxModelTokens: budgetField(100_000_000, 200_000),
  maxModelCostMicros: budgetField(1_000_000_000_000, 2_000_000),
  /** The estimate's price per thousand tokens, in millionths (models report tokens, not prices). */
  modelCostMicrosPerKiloToken: budgetField(100_000_000, 2_000, 0),
};
export const defaultModelBudget: ModelBudget = z.object(modelBudgetFields).parse({});

/** A context with a budget in its `config` and what its model calls spent in `spent`. */
export interface BudgetedContext {
  config: Partial<ModelBudget>;
  /** Absent until the first result (and in contexts persisted before the budget). */
  spent?: ModelSpend | undefined;
}

/** The budget of the context's config: its defaults where a context persisted before the budget has none. */
export const modelBudgetOf = (c: Pick<BudgetedContext, 'config'>): ModelBudget => ({
  ...defaultModelBudget,
  ...c.config,
});
export const modelSpendOf = (c: Pick<BudgetedContext, 'spent'>): ModelSpend => c.spent ?? nothingSpent;

/** Spent tokens, or their estimated cost, reached the budget (checked before each model call). */
export const modelBudgetExhausted = (c: BudgetedContext): boolean =>
  modelSpendOf(c).tokens >= modelBudgetOf(c).maxModelTokens ||
  modelSpendOf(c).costMicros >= modelBudgetOf(c).maxModelCostMicros;

/** The update of `spent` after one more result reporting `usage`. */
export const spendingOf = (c: BudgetedContext, usage: ReportedUsage | undefined): { spent: ModelSpend } => ({
  spent: addModelUsage(c.spent, usage, modelBudgetOf(c).modelCostMicrosPerKiloToken),
});
