/**
 * A catalogue of the operations an agent may propose (seed 002): each with the schema its
 * parameters must parse with, whether repeating it is safe (idempotent), whether it can be undone
 * (reversible) and, when it cannot, how its effect is recovered from. A name outside the catalogue
 * is never an operation: it is not idempotent, not recoverable, and its parameters never check.
 */
import { z } from 'zod';
import { contentHash, text } from '../definitions/event-fields.ts';
import { contentHashOf, stableId } from '../effects/canonical-json.ts';
import { EffectError } from '../effects/effect-errors.ts';

export interface OperationSpec {
  description: string;
  parameters: z.ZodType<Record<string, unknown>>;
  idempotent: boolean;
  reversible: boolean;
  /** How an irreversible effect is recovered from, as the approver reads it. */
  recoveryPath?: string;
}

export interface OperationCatalogue<TName extends string> {
  /** The names, for a model's output schema (`z.enum(catalogue.names)`). */
  names: [TName, ...TName[]];
  has(name: unknown): name is TName;
  /** The entry of `name`, or null for a name that is not in the catalogue. */
  spec(name: unknown): OperationSpec | null;
  /** Safe to repeat; an unknown operation never is. */
  isIdempotent(name: unknown): boolean;
  /** Can be undone or declares a recovery path; an unknown operation cannot. */
  isReversibleOrRecoverable(name: unknown): boolean;
  /** What a view shows of a proposed operation: whether the catalogue holds it, and its flags (false outside it). */
  flags(name: unknown): { inCatalogue: boolean; idempotent: boolean; reversible: boolean };
  /**
   * How it behaves, as an approver reads it: `idempotent, reversible`, or what it is not, and for one
   * that cannot be undone its recovery path (`; recovery: …`) or `, no recovery path`.
   */
  safety(name: unknown): string;
  /**
   * What a model answers when it proposes one call (a model task's `output`): an `operation` of the
   * catalogue, its `parameters` (checked by `check`, not here) and a `rationale` of at most `rationaleMax` characters.
   */
  proposalOutput(rationaleMax?: number): z.ZodObject<{
    operation: z.ZodEnum<{ [K in TName]: K }>;
    parameters: z.ZodRecord<z.ZodString, z.ZodUnknown>;
    rationale: z.ZodString;
  }>;
  /** The catalogue as a model sees it: names, descriptions and flags, no schemas (`operationSummary` each). */
  summary(): OperationSummary[];
  /**
   * What is wrong with a proposed call: the operation is not in the catalogue, or each issue of its
   * parameters (`parameters.<path>: <message>`); empty when it parses. `parsed` is the parameters as parsed.
   */
  check(name: unknown, parameters: unknown): { problems: string[]; parsed?: Record<string, unknown> };
}

/** One operation of a catalogue's `summary()`, for the schema of what a model is sent. */
export const operationSummary = z.strictObject({
  name: z.string(),
  description: z.string(),
  idempotent: z.boolean(),
  reversible: z.boolean(),
});
export type OperationSummary = z.infer<typeof operationSummary>;

export function operationCatalogue<TName extends string>(
  specs: Readonly<Record<TName, OperationSpec>>,
): OperationCatalogue<TName> {
  const names = Object.keys(specs) as [TName, ...TName[]];
  const has = (name: unknown): name is TName => typeof name === 'string' && Object.hasOwn(specs, name);
  const spec = (name: unknown): OperationSpec | null => (has(name) ? specs[name] : null);
  return {
    names,
    has,
    spec,
    isIdempotent: (name) => spec(name)?.idempotent ?? false,
    isReversibleOrRecoverable: (name) => {
      const s = spec(name);
      return s !== null && (s.reversible || (s.recoveryPath ?? '') !== '');
    },
    flags: (name) => {
      const s = spec(name);
      return { inCatalogue: s !== null, idempotent: !!s?.idempotent, reversible: !!s?.reversible };
    },
    safety: (name) => {
      const s = spec(name);
      const recovery = s?.reversible ? '' : s?.recoveryPath ? `; recovery: ${s.recoveryPath}` : ', no recovery path';
      return `${s?.idempotent ? '' : 'not '}idempotent, ${s?.reversible ? '' : 'not '}reversible${recovery}`;
    },
    proposalOutput: (rationaleMax = 4000) =>
      z.strictObject({
        operation: z.enum(names),
        parameters: z.record(z.string(), z.unknown()),
        rationale: z.string().trim().min(1).max(rationaleMax),
      }),
    summary: () =>
      names.map((name) => {
        const { description, idempotent, reversible } = specs[name];
        return { name, description, idempotent, reversible };
      }),
    check: (name, parameters) => {
      const s = spec(name);
      if (!s) return { problems: [`unknown operation ${String(name)}: not in the catalogue`] };
      const parsed = s.parameters.safeParse(parameters);
      if (parsed.success) return { problems: [], parsed: parsed.data };
      const at = (path: readonly PropertyKey[]) => (path.length ? '.' + path.map(String).join('.') : '');
      return { problems: parsed.error.issues.map((i) => `parameters${at(i.path)}: ${i.message}`) };
    },
  };
}

/** What the ledger records of a catalogue operation executed under an idempotency key. */
export const operationReceipt = z.strictObject({
  executionId: text(200),
  idempotencyKey: text(300),
  operation: text(100),
  /** `contentHashOf({ operation, parameters })`. */
  parametersHash: contentHash,
  executedAt: z.number().int().nonnegative(),
});
export type OperationReceipt = z.infer<typeof operationReceipt>;

type CallParams = { operation: string; parameters: Record<string, unknown>; idempotencyKey: string };

/**
 * The parts of `ledgerEffects`' `execute` for a catalogue operation (the workflow adds `params` and
 * `retry`): the parameters `{ operation, parameters }`; a call the catalogue refuses never runs (a
 * definitive `INTERNAL` failure); executing again is safe only for an idempotent operation; the
 * receipt is an `operationReceipt`, and one under the key matches when it names the same key and
 * operation (`mismatch`: what a receipt that does not is compared with).
 */
export function catalogueExecution(catalogue: OperationCatalogue<string>, mismatch = 'the approved operation') {
  return {
    paramsSchema: z.strictObject({
      operation: z.string().min(1).max(100),
      parameters: z.record(z.string(), z.unknown()),
    }),
    prepare: ({ operation, parameters }: CallParams) => {
      const { problems } = catalogue.check(operation, parameters);
      if (problems.length > 0) throw new EffectError('INTERNAL', problems.join('; '), false);
      return { repeatable: catalogue.isIdempotent(operation) };
    },
    receipt: ({ idempotencyKey, operation, parameters }: CallParams, executedAt: number): OperationReceipt => ({
      ...{ executionId: stableId('op', idempotencyKey), idempotencyKey, operation, executedAt },
      parametersHash: contentHashOf({ operation, parameters }),
    }),
    matches: (r: OperationReceipt, p: CallParams) =>
      r.idempotencyKey === p.idempotencyKey && r.operation === p.operation,
    mismatch,
  };
}
