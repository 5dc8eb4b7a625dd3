import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { setupTracing } from '../../../src/observability/tracing.ts';
import { EffectError } from '../../../src/effects/effect-errors.ts';
import { classifyTask, recommendTask } from '../../../machines/support/effects/model.ts';
import { createEffectHandlers, createOfflineEffectDeps } from '../../../machines/support/effects/index.ts';
import { OpenAIModelClient } from '../../../src/effects/openai-model.ts';
import { ArtifactMemory, expectEvent, runJob, supportContext } from './support/effect-world.ts';

interface Recorded {
  headers: IncomingMessage['headers'];
  url: string | undefined;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    response_format: { type: string; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } };
  };
}

type Reply = (response: ServerResponse) => void;

/** A local chat-completions endpoint answering scripted replies in order and recording requests. */
async function fakeEndpoint(replies: Reply[]): Promise<{ server: Server; baseUrl: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        headers: request.headers,
        url: request.url,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Recorded['body'],
      });
      const reply = replies.shift();
      if (reply) reply(response);
      // No reply scripted: leave the request hanging, like a stuck upstream.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}/v1`, requests };
}

const completion =
  (content: string | null, extra: Record<string, unknown> = {}): Reply =>
  (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        model: 'gpt-test-2026',
        choices: [{ message: { role: 'assistant', content, ...extra } }],
        usage: { prompt_tokens: 120, completion_tokens: 14 },
      }),
    );
  };

const status =
  (code: number): Reply =>
  (response) => {
    response.writeHead(code, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: `status ${code}` } }));
  };

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function client(replies: Reply[], timeoutMs = 2_000) {
  const endpoint = await fakeEndpoint(replies);
  servers.push(endpoint.server);
  const model = new OpenAIModelClient({
    baseUrl: `${endpoint.baseUrl}/`,
    model: 'gpt-test',
    apiKey: 'sk-test',
    timeoutMs,
  });
  return { model, requests: endpoint.requests };
}

const signal = () => new AbortController().signal;
const input = { subject: 'Charged twice', message: 'Billed twice for March.' };

describe('OpenAI-compatible model client', () => {
  it('posts a strict json_schema request generated from the zod schema and returns the parsed answer', async () => {
    const { model, requests } = await client([completion('{"category":"billing","confidence":0.91}')]);
    const response = await model.complete(classifyTask, input, { signal: signal() });

    expect(response).toEqual({
      output: { category: 'billing', confidence: 0.91 },
      usage: { promptTokens: 120, completionTokens: 14 },
      model: 'gpt-test-2026',
    });
    const [request] = requests;
    expect(request?.url).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    expect(request?.body.model).toBe('gpt-test');
    expect(request?.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        // The schema is named after the task.
        name: 'classify',
        strict: true,
        schema: {
          type: 'object',
          properties: {
            category: { type: 'string', enum: ['billing', 'access', 'technical'] },
            confidence: { type: 'number', minimum: 0, maximum: 1 },
          },
          required: ['category', 'confidence'],
          additionalProperties: false,
        },
      },
    });
    expect(request?.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    // The task's instructions are the system prompt; the input is sent as JSON.
    expect(request?.body.messages[0]?.content).toBe(classifyTask.instructions);
    expect(JSON.parse(request?.body.messages[1]?.content ?? 'null')).toEqual(input);
  });

  it('sends the active trace on to the provider as a W3C traceparent, and none when nothing is traced', async () => {
    const { model, requests } = await client([
      completion('{"category":"billing","confidence":0.91}'),
      completion('{"category":"billing","confidence":0.91}'),
    ]);
    await model.complete(classifyTask, input, { signal: signal() });
    expect(requests[0]?.headers.traceparent).toBeUndefined();
    const tracing = setupTracing({}, { exporter: new InMemorySpanExporter() });
    try {
      const traceId = await trace.getTracer('test').startActiveSpan('model', async (span) => {
        await model.complete(classifyTask, input, { signal: signal() });
        span.end();
        return span.spanContext().traceId;
      });
      expect(requests[1]?.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    } finally {
      await tracing.shutdown();
    }
  });

  it('sends any task generically: its own instructions and its own schema under its name', async () => {
    const answer = { actionType: 'refund', amount: 12.5, currency: 'EUR', rationale: 'Double charge.' };
    const { model, requests } = await client([completion(JSON.stringify(answer))]);
    const recommendInput = { request: { subject: 'Charged twice' }, previousFindings: [] };
    const response = await model.complete(recommendTask, recommendInput, { signal: signal() });

    expect(response.output).toEqual(answer);
    const body = requests[0]?.body;
    expect(body?.messages[0]?.content).toBe(recommendTask.instructions);
    expect(JSON.parse(body?.messages[1]?.content ?? 'null')).toEqual(recommendInput);
    expect(body?.response_format.json_schema).toMatchObject({
      name: 'recommend',
      strict: true,
      schema: { type: 'object', required: expect.arrayContaining(['actionType', 'amount', 'currency', 'rationale']) },
    });
  });

  it('sends the previous answer and its issues on a repair attempt', async () => {
    const { model, requests } = await client([completion('{"category":"billing","confidence":0.8}')]);
    await model.complete(classifyTask, input, {
      signal: signal(),
      repair: { previousOutput: 'billing!', issues: ['(root): expected object'] },
    });
    const messages = requests[0]?.body.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[2]?.content).toBe('billing!');
    expect(messages[3]?.content).toContain('- (root): expected object');
  });

  it('returns text that is not JSON as the raw output, for validation to refuse', async () => {
    const { model } = await client([
      completion('Sure! It is billing.'),
      completion(null, { refusal: 'I cannot help' }),
    ]);
    expect((await model.complete(classifyTask, input, { signal: signal() })).output).toBe('Sure! It is billing.');
    expect((await model.complete(classifyTask, input, { signal: signal() })).output).toEqual({
      refusal: 'I cannot help',
    });
  });

  it('classifies HTTP failures as retryable or permanent', async () => {
    const { model } = await client([status(429), status(503), status(401), status(400)]);
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: unknown) => (error instanceof EffectError ? [error.errorClass, error.retryable] : error),
      );
    expect(await failure(model.complete(classifyTask, input, { signal: signal() }))).toEqual(['RATE_LIMITED', true]);
    expect(await failure(model.complete(classifyTask, input, { signal: signal() }))).toEqual(['UNAVAILABLE', true]);
    expect(await failure(model.complete(classifyTask, input, { signal: signal() }))).toEqual(['UNAUTHORIZED', false]);
    expect(await failure(model.complete(classifyTask, input, { signal: signal() }))).toEqual(['INTERNAL', false]);
  });

  it('times out a request the endpoint never answers', async () => {
    const { model } = await client([], 30);
    await expect(model.complete(classifyTask, input, { signal: signal() })).rejects.toMatchObject({
      errorClass: 'TIMEOUT',
    });
  });

  it('reports an unreachable endpoint as a retryable transport error', async () => {
    const endpoint = await fakeEndpoint([]);
    const { port } = endpoint.server.address() as AddressInfo;
    await new Promise((resolve) => endpoint.server.close(resolve));
    const model = new OpenAIModelClient({ baseUrl: `http://127.0.0.1:${port}`, model: 'm', apiKey: 'k' });
    await expect(model.complete(classifyTask, input, { signal: signal() })).rejects.toMatchObject({
      errorClass: 'TRANSPORT',
      retryable: true,
    });
  });

  it('drives the classification handler through one repair to CLASSIFIED', async () => {
    const { model, requests } = await client([
      completion('{"category":"billing"}'),
      completion('{"category":"billing","confidence":0.88}'),
    ]);
    const handlers = createEffectHandlers({ ...createOfflineEffectDeps(), model });
    const artifacts = new ArtifactMemory();
    const event = await runJob(handlers, 'requestClassification', supportContext(), { artifacts });

    expect(expectEvent(event, 'CLASSIFIED')).toMatchObject({ confidence: 0.88, model: 'gpt-test-2026' });
    expect(requests).toHaveLength(2);
    expect(requests[1]?.body.messages[3]?.content).toContain('confidence');
    expect(artifacts.ofKind('model-call').map((a) => a.content)).toEqual([
      expect.objectContaining({ usage: { promptTokens: 120, completionTokens: 14 }, issues: [expect.any(String)] }),
      expect.objectContaining({ output: { category: 'billing', confidence: 0.88 } }),
    ]);
  });

  it('turns an endpoint that hangs past the handler timeout into RETRYABLE_ERROR TIMEOUT', async () => {
    const { model } = await client([]);
    const handlers = createEffectHandlers({ ...createOfflineEffectDeps(), model, timeouts: { classify: 30 } });
    const event = await runJob(handlers, 'requestClassification', supportContext());
    expect(expectEvent(event, 'RETRYABLE_ERROR').errorClass).toBe('TIMEOUT');
  });
});
