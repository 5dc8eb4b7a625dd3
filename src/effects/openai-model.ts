/**
 * An OpenAI-compatible chat-completions adapter. The answer is constrained by a JSON schema
 * generated from the same zod schema that validates it, so the contract is written once; the
 * handlers still validate, because a schema hint is not a guarantee.
 */
import { context, propagation } from '@opentelemetry/api';
import { z } from 'zod';
import { EffectError, EffectTimeoutError, TransportError } from './effect-errors.ts';
import type { ModelCallOptions, ModelClient, ModelResponse, ModelTask, RepairRequest } from './model-client.ts';
import { outputJsonSchema } from './model-client.ts';

export interface OpenAIModelOptions {
  /** e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  apiKey: string;
  /** Per-request timeout in milliseconds; default 30 000. */
  timeoutMs?: number;
  /** Sampling temperature; default 0 (answers should be as repeatable as the model allows). */
  temperature?: number;
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const completionSchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({ message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullish() }) }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).optional(),
});

/** A `response_format` schema name: letters, digits, `_` and `-`, at most 64 characters. */
const schemaName = (task: ModelTask) => task.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);

function repairMessages(repair: RepairRequest | undefined): ChatMessage[] {
  if (!repair) return [];
  const previous =
    typeof repair.previousOutput === 'string' ? repair.previousOutput : JSON.stringify(repair.previousOutput);
  return [
    { role: 'assistant', content: previous },
    {
      role: 'user',
      content: `That answer is invalid:\n${repair.issues.map((issue) => `- ${issue}`).join('\n')}\nAnswer again with JSON that fixes every issue.`,
    },
  ];
}

function parseContent(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    // Not JSON at all: hand back the text so validation reports it and the repair can show it.
    return content;
  }
}

function statusError(status: number, body: string): EffectError {
  const message = `the model endpoint answered HTTP ${status}: ${body.slice(0, 500)}`;
  if (status === 429) return new TransportError(message, 'RATE_LIMITED');
  if (status === 408 || status >= 500) return new TransportError(message, 'UNAVAILABLE');
  if (status === 401 || status === 403) return new EffectError('UNAUTHORIZED', message, false);
  // Any other 4xx means our request is wrong: sending it again cannot help.
  return new EffectError('INTERNAL', message, false);
}

export class OpenAIModelClient implements ModelClient {
  private readonly endpoint: string;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: OpenAIModelOptions) {
    this.endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetchFn = options.fetch ?? fetch;
  }

  async complete(task: ModelTask, input: unknown, options: ModelCallOptions): Promise<ModelResponse> {
    const messages: ChatMessage[] = [
      { role: 'system', content: task.instructions },
      { role: 'user', content: JSON.stringify(input) },
      ...repairMessages(options.repair),
    ];
    const body = {
      model: this.options.model,
      messages,
      temperature: this.options.temperature ?? 0,
      response_format: {
        type: 'json_schema',
        json_schema: { name: schemaName(task), schema: outputJsonSchema(task), strict: true },
      },
    };
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      authorization: `Bearer ${this.options.apiKey}`,
    };
    // The model call's trace goes on to the provider (W3C `traceparent`), when there is one.
    propagation.inject(context.active(), headers);
    try {
      response = await this.fetchFn(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.any([options.signal, timeout]),
      });
    } catch (error) {
      throw this.fetchError(error, timeout);
    }
    const text = await response.text().catch((error: unknown) => {
      throw this.fetchError(error, timeout);
    });
    if (!response.ok) throw statusError(response.status, text);
    const parsed = completionSchema.safeParse(parseContent(text));
    if (!parsed.success) {
      throw new TransportError(`the model endpoint answered with an unexpected body: ${text.slice(0, 500)}`);
    }
    const message = parsed.data.choices[0]?.message;
    const content = message?.content ?? null;
    return {
      // A refusal is an answer that fails validation, so it gets the repair and then the escalation.
      output: content === null ? { refusal: message?.refusal ?? 'no content' } : parseContent(content),
      usage: {
        promptTokens: parsed.data.usage?.prompt_tokens ?? 0,
        completionTokens: parsed.data.usage?.completion_tokens ?? 0,
      },
      model: parsed.data.model ?? this.options.model,
    };
  }

  private fetchError(error: unknown, timeout: AbortSignal): EffectError {
    if (timeout.aborted) return new EffectTimeoutError(`the model endpoint did not answer within ${this.timeoutMs} ms`);
    const message = error instanceof Error ? error.message : String(error);
    return new TransportError(`the model endpoint could not be reached: ${message}`, 'TRANSPORT', { cause: error });
  }
}
