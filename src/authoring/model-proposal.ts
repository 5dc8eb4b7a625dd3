/**
 * A model's proposal as a job's result: the event's fields (the output under a name, its content
 * hash, the answer's artifact, model, prompt version and usage) and the outcome of an effect that
 * asked for it — that result for a valid answer, the dead letter (a person) for an answer still
 * invalid after the repair. A proposal grants no authority: the chart validates it and a person decides.
 * And a path model's examples of such a result.
 */
import { z } from 'zod';
import { artifactRef, contentHash, modelUsage, text } from '../definitions/event-fields.ts';
import { contentHashOf } from '../effects/canonical-json.ts';
import { clip } from '../effects/handler-kit.ts';
import { reportedUsageOf, type ModelCallResult } from '../effects/model-call.ts';
import type { ModelTask } from '../effects/model-client.ts';
import { foreignHash } from '../paths/example-variants.ts';

type Fields<N extends string, S extends z.ZodRawShape> = { [K in N]: z.ZodObject<S, z.core.$strict> } & {
  [K in `${N}Hash`]: typeof contentHash;
} & {
  artifact: typeof artifactRef;
  model: z.ZodString;
  promptVersion: z.ZodString;
  /** What the calls spent; a worker that predates model budgets reports none. */
  usage: z.ZodOptional<typeof modelUsage>;
};

/** The fields of a `result()` carrying the proposal `name` (`plan`, and its hash `planHash`) of the shape given. */
export function proposalFields<N extends string, S extends z.ZodRawShape>(name: N, shape: S): Fields<N, S> {
  return {
    [name]: z.strictObject(shape),
    [`${name}Hash`]: contentHash,
    artifact: artifactRef,
    model: text(200),
    promptVersion: text(100),
    usage: modelUsage.optional(),
  } as unknown as Fields<N, S>;
}

export interface ProposalSpec {
  /** The output's name in the result (`plan`). */
  name: string;
  /** The result event of a valid answer. */
  result: string;
  /** The dead-letter event of an answer still invalid after the repair. */
  giveUp: string;
  /** Who answered, for the dead letter's reason (`The planning model`). */
  who: string;
}

/** What an effect that asked `task` reports: the proposal, or the dead letter naming the issues and the artifact. */
export function proposalOutcome<T>(answer: ModelCallResult<T>, task: ModelTask, spec: ProposalSpec) {
  if (answer.status === 'invalid') {
    const reason = `${spec.who} (${answer.model || 'unknown'}) answered invalid output twice, the second time after a repair request (artifact ${answer.artifact.id}): ${answer.issues.join('; ')}`;
    return { type: spec.giveUp, payload: { reason: clip(reason) } };
  }
  const { output, artifact, model } = answer;
  return {
    type: spec.result,
    payload: {
      [spec.name]: output,
      [`${spec.name}Hash`]: contentHashOf(output),
      artifact,
      model: clip(model || 'unknown-model', 200),
      promptVersion: task.promptVersion,
      usage: reportedUsageOf(answer.usage),
    },
  };
}

/**
 * A model's proposal as the context records it, version after version: its `version` (1, 2, …), its
 * content `hash` (what a person approves), the output's fields (`shape`), the artifact the answer is
 * kept as, the model, the prompt version and when it was proposed.
 */
export function proposalRecord<S extends z.ZodRawShape>(shape: S) {
  const [str, num] = [z.string(), z.number()];
  const source = { artifact: z.object({ id: str, hash: str }), model: str, promptVersion: str, proposedAt: num };
  return z.object({ version: num, hash: str, ...shape, ...source });
}

type ProposalPayload<N extends string> = { [K in N]: object } & {
  artifact: { id: string; hash: string };
  model: string;
  promptVersion: string;
};
type Source = { artifact: { id: string; hash: string }; model: string; promptVersion: string; proposedAt: number };

/** The next version of the proposal `name` (`proposalRecord`), from the payload of its result (`proposalFields`) at `at`. */
export function nextProposal<N extends string, P extends ProposalPayload<N>>(
  current: { version: number } | null,
  name: N,
  payload: P,
  at: number,
): { version: number; hash: string } & P[N] & Source {
  const { artifact, model, promptVersion } = payload;
  const hash = (payload as unknown as Record<string, string>)[`${name}Hash`] ?? '';
  const version = (current?.version ?? 0) + 1;
  return { version, hash, ...payload[name], artifact, model, promptVersion, proposedAt: at };
}

/**
 * A content hash no earlier proposal of a walk has: one per version of the context's `name` record
 * (`{ version }`, null before the first), the next version's.
 */
export function freshProposalHash(context: unknown, name: string): string {
  const current = (context as Record<string, { version?: unknown } | null | undefined>)[name];
  const version = typeof current?.version === 'number' ? current.version : 0;
  return `sha256:${(version + 1).toString(16).padStart(64, 'e')}`;
}

export interface ProposalExampleOptions<TContext> {
  /** The proposal's hash (a tampered or a repeated one), given the fresh one it is by default. */
  hash?: (context: TContext, fresh: string) => string;
  /** What the calls spent, reported with the result. */
  usage?: Readonly<Record<string, number>>;
}

/**
 * A maker of a path model's examples of the result `proposalFields(name, …)` declares: the output
 * `output(context)` under `name`, its hash (`freshProposalHash` unless `hash` says otherwise), a
 * placeholder artifact, the `local` model and `promptVersion`.
 */
export function proposalExamples<TContext>(name: string, promptVersion: string) {
  return (output: (context: TContext) => object, options: ProposalExampleOptions<TContext> = {}) => ({
    payload: (c: TContext) => {
      const fresh = freshProposalHash(c, name);
      const hash = options.hash ? options.hash(c, fresh) : fresh;
      return {
        ...{ [name]: output(c), [`${name}Hash`]: hash, artifact: { id: `artifact-${name}`, hash: foreignHash } },
        ...{ model: 'local', promptVersion, ...(options.usage ? { usage: options.usage } : {}) },
      };
    },
  });
}
