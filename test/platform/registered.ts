/**
 * What the platform's tests expect of the registered definitions, read from the registry
 * (`machines/index.ts`) and never written out: a test that counts or lists definitions (ids, keys,
 * OpenAPI component names, queues, path reports) derives what it expects from the bundles it runs
 * with, so registering another workflow breaks none of them. `test/platform/registration.test.ts`
 * runs these checks with a definition registered beside the shipped ones.
 */
import { expect } from 'vitest';
import { workflows } from '../../machines/index.ts';
import type { WorkflowRegistry } from '../../src/definitions/registry.ts';
import type { AnyWorkflowBundle } from '../../src/definitions/workflow.ts';
import { definitionKey, type WorkflowDefinition } from '../../src/engine/definition.ts';

/**
 * The registered workflows with test-only bundles beside them; a registered bundle with the id of
 * one given here is left out (the test runs its own), so a test adding `stamp` still runs when a
 * deployment registers one.
 */
export function withWorkflows(...extra: readonly AnyWorkflowBundle[]): AnyWorkflowBundle[] {
  const ids = new Set(extra.map((bundle) => bundle.id));
  return [...workflows.filter((bundle) => !ids.has(bundle.id)), ...extra];
}

/** The ids of these workflows, in registration order. */
export const idsOf = (bundles: readonly AnyWorkflowBundle[]): string[] => bundles.map((bundle) => bundle.id);

/** Every version's `id@version`, in the order the registry lists them (bundles in order, oldest version first). */
export const keysOf = (bundles: readonly AnyWorkflowBundle[]): string[] =>
  bundles.flatMap((bundle) => (bundle.versions as readonly WorkflowDefinition[]).map((v) => definitionKey(v)));

/**
 * The prefix of a definition's OpenAPI components, written here by hand (`agent-task` →
 * `AgentTask`), not taken from the code under test.
 */
export const componentPrefix = (id: string): string =>
  id
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Every event type of a workflow over all its versions, sorted. */
const eventTypesOf = (bundle: AnyWorkflowBundle): string[] =>
  [...new Set((bundle.versions as readonly WorkflowDefinition[]).flatMap((v) => Object.keys(v.eventSchemas)))].sort();

interface Document {
  components: { schemas: Record<string, unknown> };
}

/**
 * The OpenAPI document describes exactly these workflows, in order: a creation body per definition
 * (`<Id>CreateBody`, its `definition` enum the id and every `id@version`, its input `<Id>CreateInput`),
 * an event union per definition (`<Id>Event`, one alternative per event type of any version) and
 * `AnyEvent` over them, the event types (`<Id>EventType`), a view per definition (`<Id>View`) and
 * `WorkflowView` over them, a queue summary per definition with a `summarySchema` and `QueueSummary`
 * over them; every `$ref` resolves.
 */
export function expectDocumentDescribes(doc: Document, bundles: readonly AnyWorkflowBundle[]): void {
  const schemas = doc.components.schemas;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller says what it reads
  const schema = <T>(name: string) => {
    expect(schemas[name], `components.schemas.${name}`).toBeDefined();
    return schemas[name] as T;
  };
  const resolve = (pointer: string): unknown => {
    let node: unknown = doc;
    for (const part of pointer.replace(/^#\//, '').split('/')) {
      node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    return node;
  };
  const prefixes = bundles.map((bundle) => componentPrefix(bundle.id));

  const create = schema<{ oneOf: unknown[]; discriminator: { mapping: Record<string, string> } }>('CreateWorkflowBody');
  expect(create.oneOf).toEqual(prefixes.map((p) => schemaRef(`${p}CreateBody`)));
  const mapping: Record<string, string> = {};
  bundles.forEach((bundle, i) => {
    const prefix = prefixes[i] ?? '';
    const keys = [bundle.id, ...keysOf([bundle])];
    const body = schema<{ properties: { definition: { enum: string[] }; input: unknown } }>(`${prefix}CreateBody`);
    expect(body.properties.definition.enum, bundle.id).toEqual(keys);
    expect(body.properties.input, bundle.id).toEqual(schemaRef(`${prefix}CreateInput`));
    schema(`${prefix}CreateInput`);
    for (const key of keys) mapping[key] = `#/components/schemas/${prefix}CreateBody`;

    const types = eventTypesOf(bundle);
    const events = schema<{ oneOf: unknown[]; discriminator: { mapping: Record<string, string> } }>(`${prefix}Event`);
    expect(Object.keys(events.discriminator.mapping).sort(), bundle.id).toEqual(types);
    expect(events.oneOf, bundle.id).toHaveLength(types.length);
    expect([...schema<{ enum: string[] }>(`${prefix}EventType`).enum].sort(), bundle.id).toEqual(types);
    schema(`${prefix}View`);
  });
  expect(create.discriminator.mapping).toEqual(mapping);
  expect(schema<{ anyOf: unknown[] }>('AnyEvent').anyOf).toEqual(prefixes.map((p) => schemaRef(`${p}Event`)));
  expect(schema<{ oneOf: unknown[] }>('WorkflowView').oneOf).toEqual(prefixes.map((p) => schemaRef(`${p}View`)));
  const summarised = bundles.filter((bundle) => bundle.view.summarySchema).map((b) => componentPrefix(b.id));
  expect(schema<{ oneOf: unknown[] }>('QueueSummary').oneOf).toEqual([
    ...summarised.map((p) => schemaRef(`${p}QueueSummary`)),
    { type: 'null' },
  ]);
  for (const ref of refsIn(doc)) expect(resolve(ref), ref).toBeDefined();
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

/** A row of a definitions listing (`GET /v1/definitions`, `warden definitions --json`). */
interface ListedDefinition {
  key: string;
  latest: boolean;
  personEvents?: readonly string[];
  claims?: Readonly<Record<string, string>>;
  queues?: readonly { state: string }[];
}

/**
 * A definitions listing names every registered version once, in the registry's order, says which
 * is each definition's latest, and (where the listing carries them) its person events, the claims
 * its bundle reads and its queues.
 */
export function expectDefinitionsListed(rows: readonly ListedDefinition[], registry: WorkflowRegistry): void {
  expect(rows.map((row) => row.key)).toEqual([...registry.versions.keys()]);
  for (const row of rows) {
    const definition = registry.resolve(row.key);
    const bundle = definition && registry.bundle(definition.id);
    if (!definition || !bundle) throw new Error(`${row.key} is listed but not registered`);
    expect(row.latest, row.key).toBe(registry.latest(definition.id) === definition);
    if (row.personEvents) expect(row.personEvents, row.key).toEqual(definition.personEvents);
    if (row.claims) expect(Object.keys(row.claims), row.key).toEqual(Object.keys(bundle.claims ?? {}));
    if (row.queues)
      expect(
        row.queues.map((q) => q.state),
        row.key,
      ).toEqual(bundle.queues.map((q) => q.state));
  }
}
