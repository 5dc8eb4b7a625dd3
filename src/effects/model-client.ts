/**
 * The model boundary: a workflow asks a model a named task with a JSON input and gets back raw,
 * unvalidated JSON with usage and the model's name. The workflow's handlers validate the answer
 * against the task's schema (`callModelWithRepair`) and decide what an invalid answer means; the
 * model never changes workflow state.
 */
import { z } from 'zod';

/** One kind of question a workflow asks a model. */
export interface ModelTask {
  /** Names the task (`classify`, `plan`); the offline model answers by this name. */
  name: string;
  /** Bump whenever the instructions or the input change; recorded with every call. */
  promptVersion: string;
  /** The system prompt. */
  instructions: string;
  /** What a valid answer looks like; sent as the response's JSON schema and used to validate it. */
  output: z.ZodType;
}

/** A second chance: the previous answer and what was wrong with it. */
export interface RepairRequest {
  previousOutput: unknown;
  issues: string[];
}

export interface ModelCallOptions {
  signal: AbortSignal;
  /** Set on the one repair attempt after an invalid answer. */
  repair?: RepairRequest | undefined;
}

export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ModelResponse {
  /** The parsed JSON the model answered with (or its raw text when it was not JSON). */
  output: unknown;
  usage: ModelUsage;
  /** The model that answered, as the provider names it. */
  model: string;
}

export interface ModelClient {
  complete(task: ModelTask, input: unknown, options: ModelCallOptions): Promise<ModelResponse>;
}

const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

/** A task's output as JSON Schema, without the `$schema` marker some endpoints refuse. */
export function outputJsonSchema(task: ModelTask): Record<string, unknown> {
  let schema = schemaCache.get(task.output);
  if (!schema) {
    const { $schema: _marker, ...rest } = z.toJSONSchema(task.output) as Record<string, unknown>;
    schema = rest;
    schemaCache.set(task.output, schema);
  }
  return schema;
}
