/**
 * The offline model: deterministic rules per task, given by the registered workflows (each bundle's
 * `localModel`). Instant and free, so the demo and the tests run without a network; it answers the
 * same contract as a real model, so the handlers cannot tell the difference.
 */
import { EffectError } from './effect-errors.ts';
import type { ModelCallOptions, ModelClient, ModelResponse, ModelTask } from './model-client.ts';

/** Answers one task's input with what a model would. */
export type LocalRule = (input: unknown) => unknown;

/** A rough token count (words), enough to make usage figures meaningful offline. */
const tokens = (text: string) => text.split(/\s+/).filter(Boolean).length;

export class LocalModelClient implements ModelClient {
  static readonly modelName = 'local-rules-v1';

  constructor(private readonly rules: Readonly<Record<string, LocalRule>> = {}) {}

  complete(task: ModelTask, input: unknown, _options: ModelCallOptions): Promise<ModelResponse> {
    const rule = Object.hasOwn(this.rules, task.name) ? this.rules[task.name] : undefined;
    if (!rule) {
      return Promise.reject(
        new EffectError('INTERNAL', `the local model has no rule for the task ${task.name}`, false),
      );
    }
    const output = rule(input);
    return Promise.resolve({
      output,
      usage: {
        promptTokens: tokens((JSON.stringify(input) as string | undefined) ?? ''),
        completionTokens: tokens((JSON.stringify(output) as string | undefined) ?? ''),
      },
      model: LocalModelClient.modelName,
    });
  }
}
