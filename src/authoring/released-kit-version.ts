/**
 * A kit workflow's released version (`workflow({ released })`): its chart as released, made again on
 * the kit's implementations, and the parts of its release. One `setup()` declares the events and
 * effects of every version, so a released version takes only those its release names, with their
 * roles as released: what the next version adds is not added to it, and what it changes in an event
 * it was released with is reported by the check (`changedParts`).
 */
import { InvalidWorkflowError } from '../definitions/define-workflow.ts';
import {
  loadReleasedParts,
  releasedPartsSchema,
  type LoadedParts,
  type ReleasableParts,
} from '../definitions/released-parts.ts';
import { loadReleasedMachine, type ReleasedVersion } from '../definitions/released-version.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';
import type { Kit } from './setup.ts';

/** A version released as data: its chart (`<id>.v<N>.json`), pins and parts as `warden release` wrote them. */
export interface ReleasedKitVersion {
  version: number;
  config: unknown;
  pins?: unknown;
  parts?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the charts of released versions take and start, which the latest chart need not. */
export interface ReleasedChartUses {
  /** Event types they have transitions for. */
  events: ReadonlySet<string>;
  /** Actions they run on entry of a state (an effect's job starts there). */
  entries: ReadonlySet<string>;
}

/**
 * What the released charts (their JSON) take and start: an event or effect only released versions
 * use stays declared in `setup()`, without a transition or an entry in the latest chart.
 */
export function releasedChartUses(released: readonly ReleasedKitVersion[]): ReleasedChartUses {
  const events = new Set<string>();
  const entries = new Set<string>();
  const visit = (node: unknown) => {
    if (!isObject(node)) return;
    if (isObject(node.on)) for (const type of Object.keys(node.on)) events.add(type);
    for (const action of [node.entry].flat()) {
      if (typeof action === 'string') entries.add(action);
      else if (isObject(action) && typeof action.type === 'string') entries.add(action.type);
    }
    if (isObject(node.states)) for (const child of Object.values(node.states)) visit(child);
  };
  for (const version of released) visit(version.config);
  return { events, entries };
}

/** A released version: the latest's definition with the released chart, made on the kit, and its pins and parts. */
export function releasedDefinition<TContext>(
  latest: WorkflowDefinition<TContext> & ReleasableParts,
  kit: Kit,
  released: ReleasedKitVersion,
): WorkflowDefinition<TContext> & ReleasableParts & ReleasedVersion {
  const key = `${latest.id}@${released.version}`;
  // The kit gives the context (the release file shows the kit's factory as an expression).
  const { context: _kitContext, ...config } = released.config as Record<string, unknown>;
  const { machine, pins } = loadReleasedMachine({
    key,
    config,
    implementations: {},
    createMachine: (config) => kit.createMachine(config),
    pins: released.pins,
  });
  const parts = released.parts === undefined ? undefined : releasedPartsSchema.safeParse(released.parts);
  if (parts && !parts.success)
    throw new InvalidWorkflowError(latest.id, [`${key}: its parts file is not a parts list`]);
  const version = { ...latest, version: released.version, machine, ...(pins ? { pins } : {}) };
  if (!parts) return version;
  const lacking = [
    ...Object.keys(parts.data.events)
      .filter((type) => !Object.hasOwn(latest.eventSchemas, type))
      .map((type) => `the event ${type}`),
    ...Object.keys(parts.data.effects)
      .filter((name) => !Object.hasOwn(latest.effects, name))
      .map((name) => `the effect ${name}`),
  ];
  if (lacking.length > 0) {
    throw new InvalidWorkflowError(latest.id, [
      `${key} was released with ${lacking.join(', ')}, which setup() no longer declares: workflows running on ${key} still take it, so keep it in setup() as it was released (the latest chart need not use it)`,
    ]);
  }
  const own: LoadedParts<TContext> = loadReleasedParts({ key, parts: parts.data, code: latest });
  // Who must be a person is the current policy (see `LoadedParts`), for the events this version has.
  const personEvents = latest.personEvents.filter((type) => Object.hasOwn(own.eventSchemas, type));
  return { ...version, ...own, personEvents };
}
