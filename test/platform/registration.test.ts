/**
 * Registering a workflow breaks none of the platform's checks that enumerate the registered
 * definitions: with one more definition (`ledger-stamp`, the tiny chart of `tiny-workflow.ts`)
 * beside the shipped ones, the checks the platform's tests run on the shipped registry
 * (`registered.ts`) pass on this one too — the OpenAPI document, the definitions listing over HTTP
 * and from `warden definitions`, the console's queues, the path report and the Stately check once its files are generated.
 */
import { runWarden } from '../support/cli.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/api/openapi.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import { statelyFilesOnDisk } from '../../src/cli/stately.ts';
import { stateLockPath, statelyCheck, statelyFiles } from '../../src/definitions/stately.ts';
import type { PathReport } from '../../src/paths/generate.ts';
import { httpWorld, type HttpWorld } from '../support/http-world.ts';
import { componentPrefix, expectDefinitionsListed, expectDocumentDescribes, withWorkflows } from './registered.ts';
import { tinyWorkflow } from './tiny-workflow.ts';

const extra = tinyWorkflow('ledger-stamp');
const bundles = withWorkflows(extra);
const registry = createRegistry(bundles);

const warden = (...argv: string[]) => runWarden(bundles, argv);

let world: HttpWorld;
let clerk: string;

beforeAll(async () => {
  world = await httpWorld(bundles);
  clerk = await world.token('clerk-1', 't1', ['clerk', 'signer']);
});

afterAll(async () => {
  await world.stop();
});

describe('a definition registered beside the shipped ones', () => {
  it('is described by the OpenAPI document with its own components, and every shipped one still is', async () => {
    const doc = openApiDocument(registry);
    expectDocumentDescribes(doc, bundles);
    expect(componentPrefix(extra.id)).toBe('LedgerStamp');
    expect(doc.components.schemas).toHaveProperty('LedgerStampCreateInput');
    // The served document is the same one.
    const served = await fetch(`${world.base}/openapi.json`);
    expectDocumentDescribes((await served.json()) as typeof doc, bundles);
  });

  it('is listed with every registered version by GET /v1/definitions and warden definitions', async () => {
    const listed = await world.request<{ definitions: Parameters<typeof expectDefinitionsListed>[0] }>(
      'GET',
      '/v1/definitions',
      clerk,
    );
    expect(listed.status).toBe(200);
    expectDefinitionsListed(listed.body.definitions, registry);
    expect(listed.body.definitions.at(-1)).toMatchObject({ key: 'ledger-stamp@1', latest: true });

    const { code, out } = await warden('definitions', '--json');
    expect(code).toBe(0);
    expectDefinitionsListed(JSON.parse(out) as Parameters<typeof expectDefinitionsListed>[0], registry);
  });

  it('has its queues in the console beside every other definition’s, each page its own', async () => {
    const created = await world.request('POST', '/v1/workflows', clerk, {
      definition: extra.id,
      input: { document: 'ledger-1' },
    });
    expect(created.status).toBe(201);
    const id = created.body.workflowId as string;
    await world.waitFor(id, 'awaitingSignOff', clerk);
    // What the console draws: every queue of every latest definition, paged by definition and state.
    const { body } = await world.request<{
      definitions: { id: string; latest: boolean; queues: { state: string }[] }[];
    }>('GET', '/v1/definitions', clerk);
    const queues = body.definitions.filter((d) => d.latest).flatMap((d) => d.queues.map((q) => [d.id, q.state]));
    expect(queues).toEqual(bundles.flatMap((b) => b.queues.map((q) => [b.id, q.state])));
    for (const [definition = '', state = ''] of queues) {
      const page = await world.request<{ definition: string; state: string; items: { workflowId: string }[] }>(
        'GET',
        `/v1/workflows?state=${encodeURIComponent(state)}&definition=${encodeURIComponent(definition)}&limit=100`,
        clerk,
      );
      expect(page.status, `${definition} ${state}`).toBe(200);
      expect(page.body).toMatchObject({ definition, state });
      expect(page.body.items.some((item) => item.workflowId === id)).toBe(
        definition === extra.id && state === 'awaitingSignOff',
      );
    }
    // An unknown definition is answered with every registered one.
    const unknown = await world.request<{ error: { details: { definitions: string[] } } }>(
      'GET',
      '/v1/workflows?state=awaitingSignOff&definition=nope',
      clerk,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.definitions).toEqual(bundles.map((b) => b.id));
  });

  it('has a path report, and warden paths names it among the registered definitions', async () => {
    const { code, out } = await warden('paths', '--json', '--definition', extra.id);
    expect(code).toBe(0);
    const report = JSON.parse(out) as PathReport;
    expect(report).toMatchObject({ definition: 'ledger-stamp@1', unreachable: [], invariantViolations: [] });
    expect(report.transitionsCovered).toBe(report.transitionsTotal);
    const unknown = await warden('paths', '--definition', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toBe(
      `warden paths: unknown definition nope; registered: ${[...registry.versions.keys()].join(', ')}`,
    );
  });

  it('passes the Stately check once its files are generated, every other definition’s as committed', () => {
    const generated = statelyFiles({ definitions: registry.versions });
    for (const bundle of bundles) {
      expect(
        generated.map((file) => file.path),
        bundle.id,
      ).toEqual(expect.arrayContaining([`stately/${bundle.id}.machine.json`, `stately/${bundle.id}.mmd`]));
    }
    // What `npm run stately:gen` adds or changes for it: its own two files and the lock.
    const written = generated.filter((f) => f.path.startsWith(`stately/${extra.id}.`) || f.path === stateLockPath);
    const files = { ...statelyFilesOnDisk(registry), ...Object.fromEntries(written.map((f) => [f.path, f.content])) };
    expect(statelyCheck({ definitions: registry.versions, findMigration: registry.migration }, files)).toEqual([]);
  });
});
