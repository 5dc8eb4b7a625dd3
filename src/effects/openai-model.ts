/**
 * An OpenAI-compatible chat-completions adapter. The answer is constrained by a JSON schema
 * generated from the same zod schema that validates it, so the contract is written once; the
 * handlers still validate, because a schema hint is not a guarantee.
 */
import { z } from 'zod';
import { EffectError, EffectTimeoutError, TransportError } from './effect-errors.ts';
import type {
  ClassifyInput,
  ModelCallOptions,
  ModelClient,
  ModelResponse,
  RecommendInput,
  RepairRequest,
} from './model-client.ts';
import { classificationOutput, promptVersions, recommendationOutput } from './model-client.ts';

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

const prompts = {
  classify: [
    `Prompt ${promptVersions.classify}. You classify customer-support requests.`,
    'Answer with JSON only: {"category": one of "billing", "access", "technical", "confidence": 0..1}.',
    'billing: charges, invoices, refunds. access: logins, passwords, locked accounts. technical: errors, outages, bugs.',
    'Confidence is your probability that the category is right; be honest, a person reviews uncertain cases.',
  ].join('\n'),
  recommend: [
    `Prompt ${promptVersions.recommend}. You propose one refund for a support request; a person approves it.`,
    'Respect the policy in the input (maximum refund, allowed currencies, rules). Never exceed what the customer asked for.',
    'If previous findings or a change request are given, revise the proposal to address them.',
    'Answer with JSON only: {"actionType": "refund", "amount": number with at most two decimals, "currency": ISO 4217, "rationale": text}.',
  ].join('\n'),
} as const;

/** A JSON schema for `response_format`, without the `$schema` marker some endpoints refuse. */
function responseSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _marker, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}

const responseSchemas = {
  classify: { name: 'classification', schema: responseSchema(classificationOutput) },
  recommend: { name: 'recommendation', schema: responseSchema(recommendationOutput) },
} as const;

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

  classify(input: ClassifyInput, options: ModelCallOptions): Promise<ModelResponse> {
    return this.complete('classify', JSON.stringify(input), options);
  }

  recommend(input: RecommendInput, options: ModelCallOptions): Promise<ModelResponse> {
    return this.complete('recommend', JSON.stringify(input), options);
  }

  private async complete(
    purpose: 'classify' | 'recommend',
    input: string,
    options: ModelCallOptions,
  ): Promise<ModelResponse> {
    const messages: ChatMessage[] = [
      { role: 'system', content: prompts[purpose] },
      { role: 'user', content: input },
      ...repairMessages(options.repair),
    ];
    const body = {
      model: this.options.model,
      messages,
      temperature: this.options.temperature ?? 0,
      response_format: { type: 'json_schema', json_schema: { ...responseSchemas[purpose], strict: true } },
    };
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await this.fetchFn(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.apiKey}` },
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
