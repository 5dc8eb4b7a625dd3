/**
 * An offline planner for a workflow whose model picks one operation of a catalogue: deterministic
 * rules standing in for the model in the demo, the tests and `warden serve` without a provider
 * (`workflow({ localModel })`). The operation the request names, with its parameters, when it names
 * one; else the operation of the first rule whose pattern its text matches; else an answer without
 * an operation, which the task's output schema refuses as it would a model's.
 */
import type { z } from 'zod';

export interface KeywordPlannerSpec<TInput> {
  /** What the planning job sends the model (its effect's `paramsSchema`): an input it refuses gets an invalid answer. */
  input: z.ZodType<TInput>;
  /** The request in the input: its title, the text the rules search, the operation and parameters it names. */
  request: (input: TInput) => {
    title: string;
    text: string;
    operation?: string | undefined;
    parameters?: Record<string, unknown> | undefined;
  };
  /** A pattern of the text and the operation it names, first match wins. */
  rules: readonly (readonly [RegExp, string])[];
}

/** A `localModel` answer: `{ operation, parameters, rationale }`, the rationale saying why. */
export function keywordPlanner<TInput>(spec: KeywordPlannerSpec<TInput>): (input: unknown) => unknown {
  return (input) => {
    const parsed = spec.input.safeParse(input);
    if (!parsed.success) return { rationale: 'the planning input could not be read' };
    const { title, text, operation, parameters = {} } = spec.request(parsed.data);
    if (operation !== undefined)
      return { operation, parameters, rationale: `The requester asked for ${operation}: "${title}".` };
    const match = spec.rules.find(([pattern]) => pattern.test(text));
    if (!match) return { parameters, rationale: 'No catalogue operation matches this task.' };
    // The rule's words, as its pattern lists them (`credit|refund|compensat`).
    const words = match[0].source.replace(/\\b|\(|\)|\\w\*/g, '');
    return { operation: match[1], parameters, rationale: `The task mentions ${words}: ${match[1]} fits "${title}".` };
  };
}
