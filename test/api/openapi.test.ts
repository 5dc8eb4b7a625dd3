/**
 * The OpenAPI document describes every route the app serves, every event type and every error
 * code; `/docs` is an HTML page whose scripts and styles all come from this server.
 */
import { workflows } from '../../machines/index.ts';
import { support } from '../../machines/support/index.ts';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventSchemas, supportEventTypes } from '../../machines/support/support.events.ts';
import { createAuthenticator, mintToken } from '../../src/api/auth.ts';
import { createApp } from '../../src/api/create-app.ts';
import { ApiError, statusOf } from '../../src/api/errors.ts';
import { errorCodes, errorResponseSchema, openApiDocument } from '../../src/api/openapi.ts';
import { jsonSchema } from '../../src/api/openapi-components.ts';
import { eventComponents } from '../../src/api/openapi-definitions.ts';
import { streamExampleSteps } from '../../src/api/openapi-stream.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import { agentTask } from '../../machines/agent-task/index.ts';
import { createWorkflowBody, eventBody, proposalBody } from '../../src/api/schemas.ts';
import { apiDeps } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createSystem } from '../../src/system.ts';
import { expectDocumentDescribes } from '../platform/registered.ts';

const secret = 'openapi-test-secret-0123456789';
const system = createSystem(loadConfig({ LOG_LEVEL: 'silent' }), { definitions: workflows });
const deps = apiDeps(system, createAuthenticator({ secret }));
const app = createApp(deps);
const doc = openApiDocument(deps.registry);

const jsonSchemaOf = (schema: z.ZodType) => jsonSchema(schema, 'input');

/** Every operation of the document with its path and method. */
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path, method, operation: operation })),
);

/** Follows a local `$ref` (`#/components/...`). */
function resolve(pointer: string): unknown {
  let node: unknown = doc;
  for (const part of pointer.replace(/^#\//, '').split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else refsIn(value, found);
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  it('is served at /openapi.json as OpenAPI 3.1, built once', async () => {
    const response = await app.request('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const served = (await response.json()) as typeof doc;
    expect(served).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(served.openapi).toBe('3.1.0');
    expect(served.info).toMatchObject({ title: 'Warden', version: expect.any(String) });
    expect(openApiDocument(deps.registry)).toBe(doc);
    expect(Object.isFrozen(doc.paths)).toBe(true);
  });

  it('is serialised once per app: the same bytes and ETag every time, and a 304 for a matching If-None-Match', async () => {
    let builds = 0;
    const counted = createApp({
      ...deps,
      buildOpenApi: (registry) => {
        builds += 1;
        return openApiDocument(registry);
      },
    });
    const first = await counted.request('/openapi.json');
    const second = await counted.request('/openapi.json');
    const etag = first.headers.get('ETag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(second.headers.get('ETag')).toBe(etag);
    expect(await second.text()).toBe(await first.text());
    const unchanged = await counted.request('/openapi.json', { headers: { 'If-None-Match': etag ?? '' } });
    expect(unchanged.status).toBe(304);
    expect(builds).toBe(1);
  });

  it('is gzipped when Accept-Encoding asks, the same bytes once decompressed, and plain otherwise', async () => {
    const plain = await app.request('/openapi.json');
    expect(plain.headers.get('Content-Encoding')).toBeNull();
    expect(plain.headers.get('Vary')).toBe('Accept-Encoding');
    const plainBytes = Buffer.from(await plain.arrayBuffer());
    for (const acceptEncoding of ['gzip', 'gzip, deflate, br', 'br;q=1, gzip;q=0.5']) {
      const zipped = await app.request('/openapi.json', { headers: { 'Accept-Encoding': acceptEncoding } });
      expect(zipped.status).toBe(200);
      expect(zipped.headers.get('Content-Encoding'), acceptEncoding).toBe('gzip');
      expect(zipped.headers.get('Content-Type')).toMatch(/^application\/json/);
      expect(zipped.headers.get('Vary')).toBe('Accept-Encoding');
      const bytes = Buffer.from(await zipped.arrayBuffer());
      expect(bytes.length).toBeLessThan(plainBytes.length / 4);
      expect(gunzipSync(bytes).equals(plainBytes)).toBe(true);
    }
    for (const acceptEncoding of ['identity', 'br', 'gzip;q=0']) {
      const response = await app.request('/openapi.json', { headers: { 'Accept-Encoding': acceptEncoding } });
      expect(response.headers.get('Content-Encoding'), acceptEncoding).toBeNull();
      expect(Buffer.from(await response.arrayBuffer()).equals(plainBytes)).toBe(true);
    }
  });

  it('tags the gzipped document with an ETag of its own and answers 304 to either tag', async () => {
    const plainTag = (await app.request('/openapi.json')).headers.get('ETag') ?? '';
    const gzip = { 'Accept-Encoding': 'gzip' };
    const gzipTag = (await app.request('/openapi.json', { headers: gzip })).headers.get('ETag') ?? '';
    expect(gzipTag).toMatch(/^"[\w-]+"$/);
    expect(gzipTag).not.toBe(plainTag);
    for (const tag of [plainTag, gzipTag, `W/${gzipTag}`, `"other", ${gzipTag}`]) {
      const unchanged = await app.request('/openapi.json', { headers: { ...gzip, 'If-None-Match': tag } });
      expect(unchanged.status, tag).toBe(304);
      expect(unchanged.headers.get('ETag')).toBe(gzipTag);
      expect(await unchanged.text()).toBe('');
    }
    const changed = await app.request('/openapi.json', { headers: { ...gzip, 'If-None-Match': '"other"' } });
    expect(changed.status).toBe(200);
  });

  it('describes every route the app serves, with its method', () => {
    const routes = app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => ({ method: r.method.toLowerCase(), path: r.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}') }));
    expect(routes.length).toBeGreaterThanOrEqual(16);
    for (const route of routes) {
      expect(doc.paths[route.path], `${route.method} ${route.path}`).toBeDefined();
      expect(doc.paths[route.path]?.[route.method as 'get' | 'post'], `${route.method} ${route.path}`).toBeDefined();
    }
    for (const path of [
      '/v1/workflows',
      '/v1/workflows/{id}',
      '/v1/workflows/{id}/events',
      '/v1/workflows/{id}/audit',
      '/v1/workflows/{id}/stream',
      '/v1/workflows/{id}/tools',
      '/v1/workflows/{id}/proposals',
      '/v1/definitions',
      '/v1/definitions/{id}/{version}',
      '/v1/definitions/{id}/{version}/diff',
      '/healthz',
      '/readyz',
      '/metrics',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });

  it('documents only routes the app serves', async () => {
    const token = await mintToken(secret, { sub: 'docs', tenant: 'acme', roles: ['support_agent'] });
    for (const { path, method } of operations) {
      const url = path
        .replace('{id}/{version}', 'support/2')
        .replace('{id}', 's000-doesnotexist')
        .replace('{file}', 'swagger-ui.css');
      const response = await app.request(url, {
        method: method.toUpperCase(),
        headers: { Authorization: `Bearer ${token}` },
      });
      const text = await response.text();
      expect(text, `${method} ${path}`).not.toContain('no route');
      expect(response.status, `${method} ${path}`).toBeLessThan(500);
    }
  });

  it('has unique operation ids, and every $ref resolves', () => {
    const ids = operations.map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^#\/components\//);
      expect(resolve(ref), ref).toBeDefined();
    }
  });

  it('takes request bodies and event payloads from the zod schemas the routes validate with', () => {
    const schemas = doc.components.schemas;
    // One alternative per definition, its `input` typed by that definition's creation input.
    const create = schemas.CreateWorkflowBody as {
      oneOf: { $ref: string }[];
      discriminator: { propertyName: string; mapping: Record<string, string> };
      example: unknown;
    };
    const alternatives = create.oneOf.map(
      (o) =>
        resolve(o.$ref) as {
          properties: { definition: { enum: string[] }; input: { $ref: string } };
          required: string[];
        },
    );
    // Every registered definition's, in order (read from the registry: another workflow changes no line here).
    expectDocumentDescribes(doc, workflows);
    expect(alternatives.every((o) => o.required.includes('definition'))).toBe(true);
    expect(create.discriminator.propertyName).toBe('definition');
    expect(create.discriminator.mapping['support@2']).toBe('#/components/schemas/SupportCreateBody');
    expect(create.discriminator.mapping['agent-task']).toBe('#/components/schemas/AgentTaskCreateBody');
    expect(createWorkflowBody.safeParse(create.example).success).toBe(true);
    expect(support.createSchema.safeParse((create.example as { input: unknown }).input).success).toBe(true);
    expect(schemas.Proposal).toEqual(jsonSchemaOf(proposalBody));

    const event = schemas.SupportEvent as {
      oneOf: { $ref: string }[];
      discriminator: { propertyName: string; mapping: Record<string, string> };
    };
    const mapping = event.discriminator.mapping;
    expect(event.discriminator.propertyName).toBe('type');
    expect(Object.keys(mapping).sort()).toEqual([...supportEventTypes].sort());
    expect(event.oneOf).toHaveLength(supportEventTypes.length);
    const eventIdSchema = (jsonSchemaOf(eventBody) as unknown as { properties: { eventId: { pattern: string } } })
      .properties.eventId;
    for (const type of supportEventTypes) {
      const envelope = resolve(mapping[type]!) as {
        properties: { type: { const: string }; payload: { $ref: string }; eventId: { pattern: string } };
        required: string[];
      };
      expect(event.oneOf).toContainEqual({ $ref: mapping[type] });
      expect(envelope.properties.type.const).toBe(type);
      expect(envelope.properties.eventId.pattern).toBe(eventIdSchema.pattern);
      expect(resolve(envelope.properties.payload.$ref), type).toEqual(jsonSchemaOf(eventSchemas[type]));
      expect(envelope.required.includes('payload')).toBe(!eventSchemas[type].safeParse({}).success);
    }
  });

  it('documents the model’s lack of authority: the proposal’s model, proposedBy in the audit, personEvents', () => {
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, unknown> }>;
    expect(schemas.Proposal!.properties.model).toMatchObject({
      type: 'object',
      properties: { id: { type: 'string' }, version: { type: 'string' } },
      required: ['id'],
    });
    const entry = (schemas.AuditPage!.properties.entries as { items: { properties: Record<string, unknown> } }).items;
    expect(entry.properties.proposedBy).toMatchObject({
      type: 'object',
      properties: { kind: { const: 'model' }, proposalId: { type: 'string' } },
      required: ['kind', 'model', 'proposalId'],
    });
    const listed = (
      schemas.DefinitionList!.properties.definitions as { items: { properties: Record<string, unknown> } }
    ).items.properties;
    expect(listed.personEvents).toMatchObject({ type: 'array', items: { type: 'string' } });
    const propose = doc.paths['/v1/workflows/{id}/proposals']!.post as { description: string };
    expect(propose.description).toContain('PERSON_EVENT');
  });

  it('names every error code with its status, and every error response refers to the shared one of its status', () => {
    expect([...errorCodes].sort()).toEqual(Object.keys(statusOf).sort());
    for (const code of errorCodes) expect(doc.info.description).toContain(`| \`${code}\` | ${statusOf[code]} |`);
    const shared = doc.components.responses as Record<string, { description: string; content: unknown }>;
    type Body = { schema: { $ref?: string; anyOf?: { $ref: string }[] }; examples: Record<string, { value: unknown }> };
    const sharedCodes = Object.values(shared).flatMap((response) => {
      const body = (response.content as Record<string, Body>)['application/json']!;
      // Each code of the status by its own schema (its `details`), and each with its own example.
      const codes = (body.schema.anyOf ?? [body.schema]).map((one) => {
        type Own = { properties: { error: { properties: { code: { const: string } } } } };
        const schema = resolve(one.$ref!) as { allOf: [{ $ref: string }, Own] };
        expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Error' });
        return schema.allOf[1].properties.error.properties.code.const;
      });
      expect(Object.keys(body.examples)).toEqual(codes);
      for (const code of codes) {
        expect(body.examples[code]?.value).toMatchObject({ error: { code } });
        expect(errorResponseSchema.safeParse(body.examples[code]?.value).success, code).toBe(true);
      }
      return codes;
    });
    expect(sharedCodes.sort()).toEqual([...errorCodes].sort());

    const documented = new Set<string>();
    for (const { path, method, operation } of operations) {
      const where = `${method} ${path}`;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400 || path === '/readyz') continue;
        const { $ref, description } = response as { $ref: string; description: string };
        expect($ref, where).toMatch(/^#\/components\/responses\//);
        const target = shared[$ref.split('/').pop()!];
        expect(target?.description, where).toMatch(new RegExp(`^${status}: `));
        // The description opens with the codes: `A`, `B` (then, perhaps, a colon and why).
        for (const [, code] of description.split(':')[0]!.matchAll(/`([A-Z_]+)`/g)) {
          expect((statusOf as Record<string, number>)[code!], `${where} ${code}`).toBe(Number(status));
          expect(target?.description, `${where} ${code}`).toContain(`\`${code}\``);
          documented.add(code!);
        }
      }
      if (path.startsWith('/v1/')) {
        // The stream alone also opens with a ticket, for a browser's EventSource.
        const security = path === '/v1/workflows/{id}/stream' ? [{ bearerAuth: [] }, { streamTicket: [] }] : undefined;
        expect(operation.security, where).toEqual(security);
        expect(Object.keys(operation.responses), where).toEqual(expect.arrayContaining(['401', '429', '500', '503']));
      } else {
        // No JWT, no rate limit: never a 429, and a 401 only from /metrics behind its own token.
        expect(operation.security, where).toEqual(path === '/metrics' ? [{}, { metricsToken: [] }] : []);
        expect(Object.keys(operation.responses), where).not.toContain('429');
        if (path !== '/metrics') expect(Object.keys(operation.responses), where).not.toContain('401');
      }
    }
    // Migrations and timers answer these outside the routes above; any path answers a method it
    // does not serve with 405, and the server a request that does not arrive whole in time, or
    // whose headers are over Node's limit, before any route sees it.
    const elsewhere = ['NO_MIGRATION', 'STALE_TIMER', 'METHOD_NOT_ALLOWED', 'REQUEST_TIMEOUT', 'HEADERS_TOO_LARGE'];
    expect([...documented, ...elsewhere].sort()).toEqual([...errorCodes].sort());

    const error = resolve('#/components/schemas/Error') as { properties: { error: { properties: { code: unknown } } } };
    expect(error.properties.error.properties.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    expect(resolve('#/components/schemas/ErrorCode')).toEqual({ type: 'string', enum: errorCodes });
    expect(errorResponseSchema.safeParse({ error: { code: 'NOT_FOUND', message: 'x', details: {} } }).success).toBe(
      true,
    );
  });

  it('answers a code from another layer that it does not know as INTERNAL naming it, never as a status of its own', () => {
    const known = ApiError.of('GUARD_REJECTED', 'refused', { guards: ['g'] });
    expect([known.code, known.status, known.details]).toEqual(['GUARD_REJECTED', 403, { guards: ['g'] }]);
    const unknown = ApiError.of('NOT_A_CODE', 'odd', { a: 1 });
    expect([unknown.code, unknown.status, unknown.details]).toEqual(['INTERNAL', 500, { a: 1, code: 'NOT_A_CODE' }]);
  });

  it('names its server, relative to where it is served', () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('carries none of zod’s leftovers: no ±MAX_SAFE_INTEGER bounds, no date-time regular expressions', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const formats = JSON.stringify(doc.components.schemas.PlatformView);
    expect(formats).toContain('"format":"date-time"');
    expect(text).not.toContain('02-29');
  });

  it('has a bearer JWT scheme and the Idempotency-Key, If-Match and ETag headers', () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    const create = doc.paths['/v1/workflows']?.post;
    expect(create?.parameters).toContainEqual({ $ref: '#/components/parameters/Idempotency-Key' });
    expect(create?.responses['201']).toMatchObject({
      headers: { ETag: { $ref: '#/components/headers/ETag' }, Location: expect.anything() },
    });
    expect(doc.paths['/v1/workflows/{id}/events']?.post?.parameters).toContainEqual({
      $ref: '#/components/parameters/If-Match',
    });
    expect(doc.paths['/v1/workflows/{id}']?.get?.responses['200']).toMatchObject({
      headers: { ETag: { $ref: '#/components/headers/ETag' } },
    });
    expect(doc.paths['/v1/workflows/{id}/stream']?.get?.responses['200']).toMatchObject({
      content: { 'text/event-stream': expect.anything() },
    });
    expect(doc.components.parameters['Idempotency-Key']).toMatchObject({ in: 'header', required: false });
    expect(doc.components.parameters['If-Match']).toMatchObject({ in: 'header', required: false });
  });
});

describe('the stream in the document', () => {
  it('describes one event per version, Last-Event-ID resumption, the finished event and 204', () => {
    const stream = doc.paths['/v1/workflows/{id}/stream']?.get;
    expect(stream?.parameters).toEqual(
      expect.arrayContaining([
        { $ref: '#/components/parameters/Last-Event-ID' },
        expect.objectContaining({ name: 'lastEventId', in: 'query', required: false }),
      ]),
    );
    expect(doc.components.parameters['Last-Event-ID']).toMatchObject({ in: 'header', required: false });
    expect(Object.keys(stream?.responses ?? {})).toEqual(expect.arrayContaining(['200', '204', '400']));
    expect(JSON.stringify(stream?.responses['200'])).toContain('event: finished');
    expect(doc.components.schemas.StreamVersion).toMatchObject({
      properties: { status: { enum: ['active', 'finished'] }, eventType: { type: 'string' } },
    });
    // Typed as the events a client reads, each `data` a StreamVersion.
    expect(stream?.responses['200']).toMatchObject({
      content: { 'text/event-stream': { schema: { $ref: '#/components/schemas/StreamEvent' } } },
    });
    expect(doc.components.schemas.StreamEvent).toMatchObject({ discriminator: { propertyName: 'event' } });
    for (const [event, name] of [
      ['state', 'StreamStateEvent'],
      ['finished', 'StreamFinishedEvent'],
    ]) {
      expect(doc.components.schemas[name!], event).toMatchObject({
        properties: {
          event: { const: event },
          data: { $ref: '#/components/schemas/StreamVersion' },
        },
        required: ['event', 'id', 'data'],
      });
    }
    expect(JSON.stringify(stream)).not.toContain('done');
  });

  it('takes its example from the first registered definition’s chart, naming nothing else', () => {
    const example = (registryDoc: typeof doc) => {
      const content = registryDoc.paths['/v1/workflows/{id}/stream']?.get?.responses['200'] as {
        content: { 'text/event-stream': { examples: Record<string, { value: { data: Record<string, unknown> } }> } };
      };
      const { state, finished } = content.content['text/event-stream'].examples;
      return { state: state?.value.data, finished: finished?.value.data };
    };
    const steps = streamExampleSteps(support.latest.machine);
    expect(steps).toEqual({
      into: { eventType: 'FRAUD_CLEARED', state: 'beforeAction.awaitingApproval' },
      last: { eventType: 'REJECTED_BY_REVIEWER', state: 'rejected' },
    });
    expect(example(doc)).toMatchObject({
      state: { eventType: 'FRAUD_CLEARED', state: ['beforeAction.awaitingApproval'], status: 'active' },
      finished: { state: ['rejected'], status: 'finished' },
    });
    // With agent-task registered first, its chart gives the example, and no support name appears.
    const agentFirst = openApiDocument(createRegistry([agentTask, support]));
    const agentSteps = streamExampleSteps(agentTask.latest.machine);
    expect(example(agentFirst)).toMatchObject({
      state: { eventType: agentSteps?.into.eventType, state: [agentSteps?.into.state] },
      finished: { state: [agentSteps?.last.state] },
    });
    const stream = JSON.stringify(agentFirst.paths['/v1/workflows/{id}/stream']);
    for (const name of supportEventTypes) expect(stream).not.toContain(name);
    expect(agentFirst.paths['/v1/definitions/{id}/{version}']?.get?.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'id', example: 'agent-task' })]),
    );
    expect(agentFirst.paths['/v1/workflows']?.get?.description).toContain(
      '`state=awaitingApproval&definition=agent-task`',
    );
  });
});

describe('/docs', () => {
  const packageDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

  it('is an HTML page whose scripts and styles are all local and load', async () => {
    const response = await app.request('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await response.text();
    expect(html).not.toMatch(/https?:|\/\/[a-z]/i);

    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    const links = [...html.matchAll(/<link\b[^>]*\bhref="([^"]+)"[^>]*>/g)];
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    expect(links.some((l) => l[0].includes('stylesheet'))).toBe(true);
    const urls: string[] = [];
    for (const [, attributes, inline] of scripts) {
      const src = /\bsrc="([^"]+)"/.exec(attributes ?? '')?.[1];
      expect(src, 'no inline script').toBeDefined();
      expect(inline?.trim()).toBe('');
      urls.push(src!);
    }
    urls.push(...links.map((l) => l[1]!));
    for (const url of urls) {
      expect(url).toMatch(/^\/docs\/assets\/[\w.-]+$/);
      const asset = await app.request(url);
      expect(asset.status, url).toBe(200);
      const type = asset.headers.get('content-type') ?? '';
      if (url.endsWith('.js')) expect(type, url).toMatch(/^text\/javascript/);
      if (url.endsWith('.css')) expect(type, url).toMatch(/^text\/css/);
      if (url.endsWith('.png')) expect(type, url).toBe('image/png');
      expect((await asset.arrayBuffer()).byteLength, url).toBeGreaterThan(0);
    }
  });

  it('serves the package files from disk, and its own start-up script on this document', async () => {
    const bundle = await app.request('/docs/assets/swagger-ui-bundle.js');
    const onDisk = await readFile(join(packageDir, 'swagger-ui-bundle.js'));
    expect(Buffer.from(await bundle.arrayBuffer()).equals(onDisk)).toBe(true);
    const init = await (await app.request('/docs/assets/init.js')).text();
    expect(init).toContain("url: '/openapi.json'");
    expect(init).toContain('validatorUrl: null');
  });

  it('describes each definition’s creation input, events and view with its own schemas', () => {
    const schemas = doc.components.schemas as Record<string, Record<string, unknown>>;
    const agentInput = schemas.AgentTaskCreateInput as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(agentInput.properties)).toEqual(['task', 'config']);
    expect(agentInput.required).toEqual(['task']);
    expect(Object.keys((schemas.SupportCreateInput as { properties: object }).properties)).toEqual([
      'request',
      'config',
    ]);
    const agentEvents = schemas.AgentTaskEvent as { discriminator: { mapping: Record<string, string> } };
    expect(Object.keys(agentEvents.discriminator.mapping)).toContain('PLAN_PROPOSED');
    expect(resolve(agentEvents.discriminator.mapping.APPROVED ?? '')).toMatchObject({ title: 'APPROVED (agent-task)' });
    const approved = schemas.AgentTaskApprovedPayload as { properties: Record<string, unknown> };
    expect(Object.keys(approved.properties).sort()).toEqual(['comment', 'planHash', 'planVersion']);
    type Part = {
      properties?: Record<string, unknown>;
      oneOf?: { title: string; properties: Record<string, unknown> }[];
    };
    const view = schemas.AgentTaskView as { allOf: Part[] };
    expect(Object.keys(view.allOf[2]?.properties ?? {})).toEqual(
      expect.arrayContaining(['task', 'plan', 'validation', 'approval', 'execution']),
    );
    // Told apart by status: while active, the events a caller may send now, typed by the
    // definition's own event types, and the timers; once finished, neither.
    const [whileActive, finished] = view.allOf[1]?.oneOf ?? [];
    expect(whileActive?.properties.allowedEvents).toMatchObject({
      items: {
        properties: {
          type: { $ref: '#/components/schemas/AgentTaskEventType' },
          label: { type: 'string' },
          kind: { enum: ['primary', 'danger', 'neutral'] },
          description: { type: 'string' },
        },
        required: ['type', 'label', 'kind', 'schema'],
      },
    });
    expect(Object.keys(whileActive?.properties ?? {})).toEqual(['status', 'allowedEvents', 'timers']);
    expect(finished?.properties).toEqual({ status: { type: 'string', const: 'finished' } });
    expect((schemas.AgentTaskEventType as { enum: string[] }).enum).toEqual(
      expect.arrayContaining(['PLAN_PROPOSED', 'APPROVED']),
    );
    expect([...(schemas.SupportEventType as { enum: string[] }).enum].sort()).toEqual([...supportEventTypes].sort());
    // Sending an event takes any definition's event.
    expect(doc.paths['/v1/workflows/{id}/events']?.post?.requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/AnyEvent' } } },
    });
    expect((schemas.AnyEvent as { anyOf: unknown[] }).anyOf).toEqual(
      expect.arrayContaining([
        { $ref: '#/components/schemas/SupportEvent' },
        { $ref: '#/components/schemas/AgentTaskEvent' },
      ]),
    );
    // Every definition's schemas are prefixed with its id, the first registered's too.
    expect(resolve('#/components/schemas/SupportApprovedPayload')).toEqual(jsonSchemaOf(eventSchemas.APPROVED));
    for (const bare of ['Event', 'ApprovedEvent', 'ApprovedPayload', 'View', 'CreateInput']) {
      expect(schemas[bare], bare).toBeUndefined();
    }
    // Names two definitions would both claim are refused, not overwritten.
    expect(() => eventComponents([support, { ...agentTask, id: 'support-approved' }])).toThrow(
      'two definitions name the OpenAPI schema SupportApprovedEvent',
    );
    expect((schemas.WorkflowView as { oneOf: unknown[] }).oneOf).toHaveLength(workflows.length);
    // A queue item's summary is its definition's, as the definition's summarySchema says.
    expect(resolve('#/components/schemas/QueuePage')).toMatchObject({
      properties: { items: { items: { properties: { summary: { $ref: '#/components/schemas/QueueSummary' } } } } },
    });
    expect((schemas.QueueSummary as { oneOf: unknown[] }).oneOf).toEqual(
      expect.arrayContaining([
        { $ref: '#/components/schemas/SupportQueueSummary' },
        { $ref: '#/components/schemas/AgentTaskQueueSummary' },
        { type: 'null' },
      ]),
    );
    expect(Object.keys((schemas.SupportQueueSummary as { properties: object }).properties)).toEqual(
      expect.arrayContaining(['customerId', 'amount', 'reviewReason', 'owner']),
    );
    for (const ref of refsIn(doc)) expect(resolve(ref), ref).toBeDefined();
  });

  it('serves nothing else from the package directory', async () => {
    for (const path of [
      '/docs/assets/package.json',
      '/docs/assets/index.html',
      '/docs/assets/..%2Fpackage.json',
      '/docs/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/docs/assets/__proto__',
      '/docs/assets/constructor',
    ]) {
      const response = await app.request(path);
      expect(response.status, path).toBe(404);
      expect(errorResponseSchema.safeParse(await response.json()).success, path).toBe(true);
    }
  });
});

describe('/', () => {
  it('answers, without a token, a JSON index of the console, the reference and this document, each served', async () => {
    const response = await app.request('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const index = (await response.json()) as Record<string, string>;
    expect(index).toEqual({ name: 'warden', console: '/console', docs: '/docs', openapi: '/openapi.json' });
    for (const path of [index.console, index.docs, index.openapi]) {
      expect((await app.request(path ?? '')).status, path).toBe(200);
    }
  });
});
