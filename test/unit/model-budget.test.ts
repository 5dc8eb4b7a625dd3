import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defaultModelBudget,
  modelBudgetExhausted,
  modelBudgetFields,
  modelBudgetOf,
  modelSpendOf,
  spendingOf,
} from '../../src/definitions/model-spend.ts';

describe('the model budget of a workflow context', () => {
  it('has config fields with defaults, and reads a persisted context without them as the defaults', () => {
    const config = z.strictObject({ other: z.number().default(1), ...modelBudgetFields });
    expect(config.parse({})).toEqual({ other: 1, ...defaultModelBudget });
    expect(defaultModelBudget).toEqual({
      maxModelTokens: 200_000,
      maxModelCostMicros: 2_000_000,
      modelCostMicrosPerKiloToken: 2_000,
    });
    expect(config.safeParse({ maxModelTokens: 0 }).success).toBe(false);
    expect(config.safeParse({ modelCostMicrosPerKiloToken: 0 }).success).toBe(true);
    expect(modelBudgetOf({ config: { maxModelTokens: 10 } })).toEqual({ ...defaultModelBudget, maxModelTokens: 10 });
    expect(modelSpendOf({})).toEqual({ tokens: 0, costMicros: 0, modelCalls: 0 });
  });

  it('counts tokens, their estimated cost and calls, and is exhausted at either limit', () => {
    const c = { config: { maxModelTokens: 1_000, maxModelCostMicros: 10_000, modelCostMicrosPerKiloToken: 3 } };
    const once = spendingOf(c, { promptTokens: 600, completionTokens: 399, calls: 2 });
    expect(once).toEqual({ spent: { tokens: 999, costMicros: 3, modelCalls: 2 } });
    expect(modelBudgetExhausted({ ...c, ...once })).toBe(false);
    const twice = spendingOf({ ...c, ...once }, { promptTokens: 1, completionTokens: 0, calls: 1 });
    expect(modelBudgetExhausted({ ...c, ...twice })).toBe(true);
    // A result without usage counts one call and no tokens.
    expect(spendingOf(c, undefined).spent).toEqual({ tokens: 0, costMicros: 0, modelCalls: 1 });
    const costly = { config: { ...c.config, maxModelCostMicros: 3 } };
    expect(modelBudgetExhausted({ ...costly, ...once })).toBe(true);
  });
});
