/**
 * The OpenAPI document is enough to write a client by: the types openapi-typescript generates from
 * it are committed (`typed-client/schema.d.ts`, checked here to be what the document gives now),
 * and `typed-client/drive.ts`, an openapi-fetch client written against them without a cast, `any`
 * or type predicate (which `tsc` checks), drives a support request and an agent task to completion
 * against the app, approving from what the view pre-fills; every answer it gets is checked against
 * the schema the document gives its operation and status.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crmUpdateTask } from '../support/agent-task-input.ts';
import { tokenMinter } from '../support/tokens.ts';
import { registry } from '../../machines/index.ts';
import { openApiDocument } from '../../src/api/openapi.ts';
import { observedAnswers } from './answers-observed.ts';
import { apiWorld, refundRequest, secret, type ApiWorld } from './support.ts';
import { client, driveAgentTask, driveSupport } from './typed-client/drive.ts';
import { conformance, type Conformance } from './typed-client/conforms.ts';
import { clientTypes, schemaFile } from './typed-client/generate.ts';

describe('the generated client types', () => {
  it('are what openapi-typescript makes of the document now (WARDEN_WRITE_CLIENT_TYPES=1 writes them)', async () => {
    const generated = await clientTypes();
    if (process.env.WARDEN_WRITE_CLIENT_TYPES === '1') await writeFile(schemaFile, generated);
    expect(await readFile(schemaFile, 'utf8')).toBe(generated);
  }, 30_000);

  it('are used by the client without a cast, `any` or type predicate', async () => {
    const source = await readFile(fileURLToPath(new URL('./typed-client/drive.ts', import.meta.url)), 'utf8');
    const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(code).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]|\bany\b|\)\s*:\s*\w+\s+is\s|<[A-Za-z]+>\s*\w|!\./);
  });
});

describe('the conformance check of answers', () => {
  it('finds an answer the document does not describe', async () => {
    const answer =
      (body: unknown, status = 200) =>
      () =>
        Promise.resolve(Response.json(body, { status }));
    const document = openApiDocument(registry);
    const view = conformance(document, answer({ workflowId: 's001-abcdefgh', definition: 'support@2' }));
    await view.fetch(new Request('http://warden.test/v1/workflows/s001-abcdefgh'));
    expect(view.mismatches).toEqual([expect.stringMatching(/^GET \/v1\/workflows\/s001-abcdefgh 200: /)]);
    const details = { error: { code: 'PRECONDITION_FAILED', message: 'm', details: { version: 'twelve' } } };
    const refused = conformance(document, answer(details, 412));
    await refused.fetch(new Request('http://warden.test/v1/workflows/s001-abcdefgh/events', { method: 'POST' }));
    expect(refused.mismatches).toEqual([expect.stringContaining('412')]);
    const unknown = conformance(document, answer({}, 418));
    await unknown.fetch(new Request('http://warden.test/v1/workflows/s001-abcdefgh'));
    expect(unknown.mismatches).toEqual([expect.stringContaining('not in the document')]);
  });
});

/** What the view pre-fills is of the events its definition's `<Id>Prefill` names (it admits no other). */
function expectPrefillDocumented(view: { presentation?: { prefill: object } }, component: string) {
  const documented = openApiDocument(registry).components.schemas[component] as { properties: object };
  const prefill = view.presentation?.prefill ?? {};
  expect(Object.keys(prefill).length).toBeGreaterThan(0);
  expect(Object.keys(documented.properties)).toEqual(expect.arrayContaining(Object.keys(prefill)));
}

describe('a client written from the document', () => {
  let w: ApiWorld;
  let checked: Conformance;
  const fetch = (request: Request) => checked.fetch(request);
  const observed = observedAnswers();

  beforeAll(async () => {
    w = await apiWorld({ observeValidation: observed.observeValidation });
    checked = conformance(openApiDocument(w.deps.registry), (request) => Promise.resolve(w.app.request(request)));
  });
  afterAll(() => w.stop());

  afterEach(() => {
    // Every answer the client got, errors included, is what the document says of its operation and status.
    expect(checked.mismatches).toEqual([]);
    expect(checked.checked()).toBeGreaterThan(3);
    // And each was typed, by the route, by the very schema the document describes it with.
    expect(observed.mismatched).toEqual([]);
    expect(observed.answered.size).toBeGreaterThan(3);
  });

  it('drives a support request to completion, approving what the view pre-fills', async () => {
    const agent = client(fetch, w.tokens.agent);
    const { waiting, done } = await driveSupport(agent, client(fetch, w.tokens.approver), refundRequest);
    expectPrefillDocumented(waiting, 'SupportPrefill');
    expect(done).toMatchObject({ definition: 'support@2', status: 'finished', state: ['completed'] });
  }, 30_000);

  it('drives an agent task to completion, approving the plan the view pre-fills', async () => {
    const token = tokenMinter(secret);
    const requester = client(fetch, await token('riley', 'acme', ['task_requester']));
    const approver = client(fetch, await token('avery', 'acme', ['task_approver']));
    const { waiting, done } = await driveAgentTask(requester, approver, crmUpdateTask().input);
    expectPrefillDocumented(waiting, 'AgentTaskPrefill');
    expect(done).toMatchObject({ definition: 'agent-task@1', status: 'finished', state: ['completed'] });
  }, 30_000);
});
