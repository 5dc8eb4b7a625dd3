/**
 * One model question with validation, one repair attempt and a record of every call. An answer
 * that is still invalid after the repair is an outcome (the caller escalates), not an exception.
 */
import type { z } from 'zod';
import type { EffectContext } from './effect.ts';
import { report, type ArtifactRef } from './handler-kit.ts';
import type { ModelClient, ModelTask, ModelUsage, RepairRequest } from './model-client.ts';

/** What the calls behind one result spent: the tokens the model reported, summed over the calls (a repair included). */
export interface ModelCallUsage extends ModelUsage {
  calls: number;
}

export type ModelCallResult<T> =
  | { status: 'valid'; output: T; model: string; artifact: ArtifactRef; attempts: number; usage: ModelCallUsage }
  | { status: 'invalid'; issues: string[]; model: string; artifact: ArtifactRef; usage: ModelCallUsage };

export interface ModelCallSpec<T> {
  ctx: EffectContext;
  signal: AbortSignal;
  model: ModelClient;
  task: ModelTask & { output: z.ZodType<T> };
  input: unknown;
}

/** Zod issues as short lines a model (and a reviewer) can act on. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`);
}

/**
 * Asks, validates, and on an invalid answer asks exactly once more with the issues. Every answered
 * call is saved as a `model-call` artifact; a call that fails in transport has no answer to record
 * and its error propagates to become the job's result.
 */
export async function callModelWithRepair<T>(spec: ModelCallSpec<T>): Promise<ModelCallResult<T>> {
  const { ctx, task } = spec;
  let repair: RepairRequest | undefined;
  const usage: ModelCallUsage = { promptTokens: 0, completionTokens: 0, calls: 0 };
  for (let attempt = 1; ; attempt++) {
    const started = ctx.now();
    const response = await spec.model.complete(task, spec.input, { signal: spec.signal, repair });
    // An answer that arrives after the deadline is not recorded: the job already has its result.
    spec.signal.throwIfAborted();
    const latencyMs = Math.max(0, ctx.now() - started);
    usage.promptTokens += response.usage.promptTokens;
    usage.completionTokens += response.usage.completionTokens;
    usage.calls = attempt;
    report(ctx, (o) => {
      o.modelAnswered(task.name, response.model, response.usage);
    });
    const parsed = task.output.safeParse(response.output);
    const issues = parsed.success ? [] : describeIssues(parsed.error);
    const artifact = await ctx.saveArtifact('model-call', {
      jobId: ctx.job.jobId,
      purpose: task.name,
      attempt,
      model: response.model,
      promptVersion: task.promptVersion,
      usage: response.usage,
      latencyMs,
      ...(parsed.success ? { output: parsed.data } : { invalidOutput: response.output ?? null, issues }),
    });
    if (parsed.success)
      return { status: 'valid', output: parsed.data, model: response.model, artifact, attempts: attempt, usage };
    report(ctx, (o) => {
      o.schemaFailed('model_output');
    });
    if (attempt >= 2) return { status: 'invalid', issues, model: response.model, artifact, usage };
    repair = { previousOutput: response.output, issues };
  }
}

/** A call's usage within the bounds of the shared `modelUsage` field, for the result event that reports it. */
export function reportedUsageOf(usage: ModelCallUsage): {
  promptTokens: number;
  completionTokens: number;
  calls: number;
} {
  const tokens = (n: number) => Math.min(100_000_000, Math.max(0, Math.round(n)));
  return {
    promptTokens: tokens(usage.promptTokens),
    completionTokens: tokens(usage.completionTokens),
    calls: Math.min(10, Math.max(1, usage.calls)),
  };
}
