/**
 * `defineWorkflow` checks a workflow bundle once, when it is defined, and fails with a precise
 * message: a guard, action or delay the chart names but `setup()` lacks, an event type the chart
 * handles without a schema or roles, an effect without a handler, a queue state that does not
 * exist, a start or dead-letter event the definition cannot take, a job's result or dead-letter
 * event Warden's workers may not send, a migration between unknown versions, a starter claim for a
 * role the workflow does not have, an outcome invariant for a state that is not a final state, an
 * event type no version's chart handles, an event's label or kind no button can show
 * (`event-presentation.ts`), and the effects' problems of `effect-checks.ts` (an operation that
 * cannot name a job id, two effects sharing one, a job's result without `jobId`, an effect
 * requested before its job id is in the context). A bundle that passes can be registered
 * beside any other.
 */
import { isAbsolute, relative } from 'node:path';
import type { AnyStateMachine } from 'xstate';
import { getStateNodes } from 'xstate/graph';
import { definitionKey, isJobResultEvent, type WorkflowDefinition } from '../engine/definition.ts';
import { WardenError } from '../engine/errors.ts';
import { workerRole } from '../engine/principal.ts';
import { inlineImplementations, missingImplementations } from './chart-references.ts';
import { didYouMean } from './did-you-mean.ts';
import { platformViewFields } from './platform-view-fields.ts';
import { effectProblems } from './effect-checks.ts';
import { eventPresentationProblems } from './event-presentation.ts';
import type { AnyWorkflowBundle, PathModel, WorkflowBundle, WorkflowBundleSpec } from './workflow.ts';

/** A workflow bundle that cannot be registered; `details.problems` lists every problem found. */
export class InvalidWorkflowError extends WardenError {
  /** `where`: the module that declares it (a kit's setup()), named in the message relative to the working directory. */
  constructor(id: string, problems: string[], where?: string) {
    const place = where ? ` (${shownModule(where)})` : '';
    super('INVALID_WORKFLOW', `workflow ${id} cannot be registered${place}:\n- ${problems.join('\n- ')}`, {
      problems,
      ...(where ? { module: where } : {}),
    });
  }
}

function shownModule(path: string): string {
  const near = relative(process.cwd(), path);
  return near.startsWith('..') || isAbsolute(near) ? path : near;
}

const idPattern = /^[a-z][a-z0-9-]{0,39}$/;

/** The event types a chart has transitions for, internal ones excluded. */
export function handledEventTypes(machine: AnyStateMachine): string[] {
  const types = new Set<string>();
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    for (const type of node.transitions.keys()) {
      if (!type.startsWith('xstate.') && type !== '*') types.add(type);
    }
  }
  return [...types].sort();
}

/** Leaf state paths of a chart: where a workflow can rest. */
export function leafStatePaths(machine: AnyStateMachine): string[] {
  return getStateNodes(machine.root)
    .filter((node) => node.type !== 'history' && Object.keys(node.states).length === 0)
    .map((node) => node.path.join('.'))
    .sort();
}

function guardName(guard: unknown): string | null {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && 'type' in guard && typeof guard.type === 'string')
    return guard.type;
  return null;
}

/**
 * The event types the chart takes as the answer to a job: those with a transition guarded by one
 * of the definition's job guards (the check that a result names the job in flight), with that guard,
 * and those `resultOperations` names (the authoring kit's results and failures, checked before the chart).
 */
export function jobAnswerEventTypes(
  definition: Pick<WorkflowDefinition, 'machine' | 'jobGuards' | 'resultOperations'>,
): Map<string, string> {
  const answers = new Map<string, string>(
    Object.keys(definition.resultOperations ?? {}).map((type) => [type, 'resultOperations']),
  );
  for (const node of [definition.machine.root, ...getStateNodes(definition.machine.root)]) {
    for (const [type, transitions] of node.transitions) {
      for (const transition of transitions) {
        const guard = guardName(transition.guard);
        if (guard !== null && definition.jobGuards.includes(guard) && !answers.has(type)) answers.set(type, guard);
      }
    }
  }
  return new Map([...answers].sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Warden's workers, built in or external, act as the `worker` role alone: the events that answer a
 * job and the dead-letter event must be open to it, or every one a worker sends is refused at run
 * time. An event with no roles at all is reported by `versionProblems` already.
 */
function workerProblems(definition: WorkflowDefinition): string[] {
  const key = definitionKey(definition);
  const { eventRoles } = definition;
  const closed = (type: string) => Object.hasOwn(eventRoles, type) && !eventRoles[type]?.includes(workerRole);
  const entry = (type: string) => `eventRoles.${type} is [${eventRoles[type]?.join(', ') ?? ''}]`;
  const problems: string[] = [];
  for (const [type, guard] of jobAnswerEventTypes(definition)) {
    if (closed(type)) {
      problems.push(
        `${key}: ${type} answers a job (the chart guards it with ${guard}), but ${entry(type)}: add '${workerRole}', the role Warden's workers act as, or every ${type} a worker reports is refused`,
      );
    }
  }
  const dead = definition.deadLetterEvent;
  if (dead !== null && closed(dead)) {
    problems.push(
      `${key}: deadLetterEvent ${dead} is what a worker sends when it gives up on a job, but ${entry(dead)}: add '${workerRole}', the role Warden's workers act as`,
    );
  }
  const effects = Object.keys(definition.effects);
  const types = Object.keys(eventRoles);
  if (effects.length > 0 && !types.some((type) => isJobResultEvent(definition, type))) {
    const named = [...new Set(types.flatMap((type) => eventRoles[type] ?? []))].sort();
    problems.push(
      `${key}: the chart requests ${effects.join(', ')}, but no event is a job's result, one only '${workerRole}' (the role Warden's workers act as) may send; eventRoles names ${named.join(', ') || 'no role'}`,
    );
  }
  return problems;
}

/** Each event only a person may send is one a person can send: it has a schema and roles, and is no job's result. */
function personEventProblems(definition: WorkflowDefinition): string[] {
  const key = definitionKey(definition);
  const problems: string[] = [];
  for (const type of definition.personEvents) {
    if (!Object.hasOwn(definition.eventSchemas, type) || !Object.hasOwn(definition.eventRoles, type)) {
      problems.push(`${key}: personEvents names ${type}, which is not an event with a schema and roles`);
    } else if (isJobResultEvent(definition, type)) {
      problems.push(`${key}: personEvents names ${type}, a job's result only '${workerRole}' may send, never a person`);
    }
  }
  return problems;
}

function versionProblems(
  id: string,
  definition: WorkflowDefinition,
  handlers: readonly string[],
  paths: Pick<PathModel, 'body' | 'creator'>,
): string[] {
  const key = definitionKey(definition);
  const problems: string[] = [];
  if (definition.id !== id) problems.push(`${key}: the version's id is ${definition.id}, not ${id}`);
  for (const problem of [
    ...inlineImplementations(definition.machine.config, key),
    ...missingImplementations(definition.machine, key),
  ]) {
    problems.push(problem.message);
  }
  for (const type of handledEventTypes(definition.machine)) {
    if (!Object.hasOwn(definition.eventSchemas, type))
      problems.push(`${key}: the chart handles ${type}, which has no event schema`);
    if (!Object.hasOwn(definition.eventRoles, type))
      problems.push(`${key}: the chart handles ${type}, but no role may send it`);
  }
  for (const type of Object.keys(definition.eventSchemas)) {
    if (!Object.hasOwn(definition.eventRoles, type))
      problems.push(`${key}: the event ${type} has a schema but no roles`);
  }
  const actions = definition.machine.implementations.actions as Record<string, unknown>;
  for (const effect of Object.keys(definition.effects)) {
    if (!Object.hasOwn(actions, effect)) problems.push(`${key}: the effect ${effect} is not an action of the chart`);
    if (!handlers.includes(effect)) problems.push(`${key}: the effect ${effect} has no handler`);
  }
  for (const [field, type] of [
    ['startEvent', definition.startEvent],
    ['deadLetterEvent', definition.deadLetterEvent],
  ] as const) {
    if (type !== null && !Object.hasOwn(definition.eventSchemas, type)) {
      problems.push(`${key}: ${field} ${type} has no event schema`);
    }
  }
  if (definition.deadLetterEvent !== null) {
    const schema = definition.eventSchemas[definition.deadLetterEvent];
    const sample = { reason: 'not processed after 5 deliveries', jobId: 'wf_0000000000/step/1' };
    const parsed = schema?.safeParse(sample);
    if (parsed && !parsed.success) {
      const refused = parsed.error.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ');
      problems.push(
        `${key}: deadLetterEvent ${definition.deadLetterEvent} must accept the payload { reason, jobId } a worker sends when it gives up on a job, but its schema refuses it (${refused}); write the schema as z.strictObject({ reason: z.string(), jobId: jobId.optional() }), jobId from src/definitions/event-fields.ts`,
      );
    }
  }
  const finals = Object.entries(definition.machine.root.states)
    .filter(([, node]) => node.type === 'final')
    .map(([name]) => name);
  for (const outcome of Object.keys(definition.outcomes ?? {})) {
    if (!finals.includes(outcome)) {
      problems.push(
        `${key}: outcomes.${outcome} names no top-level final state of the chart (final states: ${finals.join(', ') || 'none'})`,
      );
    }
  }
  problems.push(
    ...workerProblems(definition),
    ...personEventProblems(definition),
    ...effectProblems(definition, paths),
  );
  if (definition.createRoles.length === 0) problems.push(`${key}: no role may create it`);
  return problems;
}

/**
 * A role an event or the creation names must be one of the bundle's `roles` (the worker's aside):
 * the starter tokens, the console and the path model know only those, so a misspelt role would
 * leave an event nobody's token may send.
 */
function unknownRoles(id: string, versions: readonly WorkflowDefinition[], roles: readonly string[]): string[] {
  const problems = new Set<string>();
  const listed = `the roles of ${id} (${roles.join(', ')})`;
  const fix = 'add it to roles, or name one of them';
  for (const version of versions) {
    const key = definitionKey(version);
    for (const [type, senders] of Object.entries(version.eventRoles)) {
      for (const role of senders.filter((r) => r !== workerRole && !roles.includes(r))) {
        problems.add(
          `${key}: the event ${type} may be sent by ${role}, which is not one of ${listed}${didYouMean(role, roles)}: ${fix}`,
        );
      }
    }
    for (const role of version.createRoles.filter((r) => !roles.includes(r))) {
      problems.add(`${key}: ${role} may create it, which is not one of ${listed}${didYouMean(role, roles)}: ${fix}`);
    }
  }
  return [...problems];
}

/** Checks a workflow bundle and returns it ready to register; throws `InvalidWorkflowError` listing every problem. */
export function defineWorkflow<TContext, TAdapters extends object = object>(
  spec: WorkflowBundleSpec<TContext, TAdapters>,
): WorkflowBundle<TContext, TAdapters> {
  const problems: string[] = [];
  if (!idPattern.test(spec.id)) problems.push(`the id ${spec.id} must be lower-case letters, digits and dashes`);
  const versions = spec.versions;
  const latest = versions.at(-1);
  if (!latest) throw new InvalidWorkflowError(spec.id, ['no version is given']);
  const handlers = Object.keys(spec.handlers);
  versions.forEach((version, i) => {
    const previous = versions[i - 1];
    if (previous && version.version <= previous.version) {
      problems.push(`versions must be listed oldest first: ${definitionKey(version)} after ${definitionKey(previous)}`);
    }
    problems.push(...versionProblems(spec.id, version, handlers, spec.paths));
  });
  // An event type no version's chart handles is refused in every state: a typo or a leftover.
  const handled = new Set(versions.flatMap((v) => handledEventTypes(v.machine)));
  const declared = [
    ...new Set(versions.flatMap((v) => [...Object.keys(v.eventRoles), ...Object.keys(v.eventSchemas)])),
  ];
  for (const type of declared.filter((t) => !handled.has(t)).sort()) {
    problems.push(
      `the event ${type} has a schema or roles, but no version's chart handles it, so it is refused in every state: add a transition on ${type} to the chart, or remove it from eventSchemas and eventRoles`,
    );
  }
  const effects = new Set(versions.flatMap((v) => Object.keys(v.effects)));
  for (const handler of handlers) {
    if (!effects.has(handler)) problems.push(`a handler is given for ${handler}, which no version requests`);
  }
  const leaves = leafStatePaths(latest.machine);
  for (const queue of spec.queues) {
    if (!leaves.includes(queue.state)) {
      problems.push(`the queue state ${queue.state} is not a leaf state of ${definitionKey(latest)}`);
    }
  }
  problems.push(...eventPresentationProblems(spec.view.events ?? {}, declared));
  const viewShape = (spec.view.schema as { shape?: unknown }).shape;
  const declaredFields = typeof viewShape === 'object' && viewShape !== null ? Object.keys(viewShape) : [];
  const taken = platformViewFields.filter((field) => declaredFields.includes(field));
  if (taken.length > 0) {
    problems.push(
      `view.schema declares ${taken.join(', ')}, which the platform’s fields of a view already are (${platformViewFields.join(', ')}): name them otherwise`,
    );
  }
  if (spec.view.summary && !spec.view.summarySchema) {
    problems.push('view.summary has no view.summarySchema: the OpenAPI document describes queue items by it');
  }
  const roleValues = Object.values(spec.roles);
  problems.push(...unknownRoles(spec.id, versions, roleValues));
  for (const [claim, claimSpec] of Object.entries(spec.claims ?? {})) {
    for (const role of Object.keys(claimSpec.starter ?? {})) {
      if (!roleValues.includes(role))
        problems.push(`the claim ${claim} has a starter value for ${role}, which is not a role of ${spec.id}`);
    }
  }
  const keys = versions.map((v) => definitionKey(v));
  for (const migration of spec.migrations ?? []) {
    for (const end of [migration.from, migration.to]) {
      if (!keys.includes(end)) problems.push(`a migration names ${end}, which is not a version of ${spec.id}`);
    }
  }
  if (problems.length > 0) throw new InvalidWorkflowError(spec.id, problems);
  return { ...spec, migrations: spec.migrations ?? [], latest };
}

/** Throws when two bundles share an id. */
export function checkUnique(bundles: readonly AnyWorkflowBundle[]): void {
  const seen = new Set<string>();
  for (const bundle of bundles) {
    if (seen.has(bundle.id)) throw new InvalidWorkflowError(bundle.id, ['another workflow has the same id']);
    seen.add(bundle.id);
  }
}
