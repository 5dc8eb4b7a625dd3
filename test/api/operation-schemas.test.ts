/**
 * Each route validates its query string and JSON body with the very zod schema the OpenAPI
 * document describes (`src/api/operation-schemas.ts`): the app reports the schema each request is
 * read with, and one request to every operation of the table finds the table's own object; every
 * operation of the document that takes a query or a JSON body is in the table, its query parameters
 * those of the table's schema. Each answer (a refusal, mostly) is what the document says of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { registry } from '../../machines/index.ts';
import { openApiDocument } from '../../src/api/openapi.ts';
import { componentOf } from '../../src/api/openapi-components.ts';
import { documentedPath, operationSchemas, type OperationSchemas } from '../../src/api/operation-schemas.ts';
import { observedAnswers } from './answers-observed.ts';
import { apiWorld, refundRequest, type ApiWorld } from './support.ts';
import { conformance, type Conformance } from './typed-client/conforms.ts';

type Part = 'query' | 'body' | 'response';
const seen = new Map<string, { part: Part; schema: z.ZodType }[]>();

const observed = observedAnswers((route, part, schema) => {
  const [method, path] = route.split(' ');
  const key = `${method} ${documentedPath(path ?? '')}`;
  seen.set(key, [...(seen.get(key) ?? []), { part, schema }]);
});

let w: ApiWorld;
let workflowId: string;
/** The app's answers, each checked against what the document says of its operation and status. */
let answers: Conformance;

beforeAll(async () => {
  w = await apiWorld(
    {
      observeValidation: observed.observeValidation,
    },
    // The job API answers only where some effect runs on external workers.
    { WARDEN_EXTERNAL_EFFECTS: 'support:notifyCustomer' },
  );
  const created = await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest });
  workflowId = (await w.json<{ workflowId: string }>(created)).workflowId;
  answers = conformance(openApiDocument(w.deps.registry), (request) => Promise.resolve(w.app.request(request)));
});
afterAll(() => w.stop());

/** One request to the operation: enough for its handler to read what it validates (it may well be refused then). */
async function requestTo(operation: string): Promise<number> {
  const [method = '', template = ''] = operation.split(' ');
  const path = template
    .replace('{id}', template.startsWith('/v1/definitions') ? 'support' : workflowId)
    .replace('{version}', '2')
    .replace('{jobId}', 'j-1');
  const token = path.startsWith('/v1/jobs') ? w.tokens.worker : w.tokens.agent;
  // A stream asked to resume after a version that is no number is refused before it opens.
  const query = path.endsWith('/stream') ? '?lastEventId=x' : path === '/v1/workflows' ? '?state=nowhere' : '';
  const request = new Request(`http://warden.test${path}${query}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(method === 'POST' ? { body: '{}' } : {}),
  });
  const response = await answers.fetch(request);
  await response.body?.cancel();
  return response.status;
}

describe('the schemas each operation is validated with', () => {
  it.each(
    Object.entries(operationSchemas as Record<string, OperationSchemas>).filter(
      ([, parts]) => Object.keys(parts).length > 0,
    ),
  )('%s reads what the document describes', async (operation, parts) => {
    seen.delete(operation);
    const before = answers.checked();
    const status = await requestTo(operation);
    expect(answers.checked(), `${operation} answers JSON`).toBe(before + 1);
    expect(status, operation).toBeLessThan(500);
    expect(answers.mismatches, operation).toEqual([]);
    const { response, ...read } = parts;
    const expected = Object.entries(read).map(([part, schema]) => ({ part, schema }));
    const used = seen.get(operation) ?? [];
    expect(used.filter((u) => u.part !== 'response').length, operation).toBe(expected.length);
    for (const { part, schema } of expected) {
      // The very object, not an equal one.
      expect(used.find((u) => u.part === part)?.schema === schema, `${operation} ${part}`).toBe(true);
    }
    // A success is answered through `respond`, typed by the table's response schema (the very object).
    const answered = used.filter((u) => u.part === 'response');
    if (status < 300 && response) expect(answered.map((u) => u.schema === response)).toEqual([true]);
    else expect(answered, operation).toEqual([]);
  });

  it('answer with the schemas of the table, and the document describes each by its component', () => {
    expect(observed.mismatched).toEqual([]);
    // Enough of them answered here for the check to mean something (the rest: the typed client's test).
    expect(observed.answered.size).toBeGreaterThanOrEqual(8);
    const document = openApiDocument(registry);
    for (const [key, { response }] of Object.entries(operationSchemas as Record<string, OperationSchemas>)) {
      const [method = '', path = ''] = key.split(' ');
      const operation = document.paths[path]?.[method.toLowerCase() as 'get' | 'post'];
      const successes = Object.entries(operation?.responses ?? {}).filter(([status]) => /^[23]/.test(status));
      const schemas = successes.map(
        ([, answer]) =>
          (answer as { content?: Record<string, { schema?: unknown }> }).content?.['application/json']?.schema,
      );
      if (!response) {
        // The document itself is served as its bytes, not through `respond`: a JSON object.
        const expected = key === 'GET /openapi.json' ? [{ type: 'object' }] : [];
        expect(schemas.filter(Boolean), key).toEqual(expected);
        continue;
      }
      expect(schemas.length, key).toBeGreaterThan(0);
      for (const schema of schemas)
        expect(schema, key).toEqual({ $ref: `#/components/schemas/${componentOf(response)}` });
    }
  });

  it('are all in the table, for every operation of the document that takes a query or a JSON body', () => {
    const table: Record<string, OperationSchemas> = operationSchemas;
    const document = openApiDocument(registry);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const key = `${method.toUpperCase()} ${path}`;
        const query = ((operation.parameters ?? []) as { in?: string; name?: string }[]).filter(
          (p) => p.in === 'query',
        );
        const body = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content?.[
          'application/json'
        ];
        if (query.length > 0 || body) expect(table[key], key).toBeDefined();
        const schema = table[key]?.query as z.ZodObject | undefined;
        expect(
          query.map((p) => p.name),
          key,
        ).toEqual(Object.keys(schema?.shape ?? {}));
        expect(!!body, key).toBe(!!table[key]?.body);
      }
    }
  });
});
