/**
 * Checks `defineWorkflow` runs on a version's effects and job results, each a failure that would
 * otherwise show only at run time: an operation that cannot name a job id, two effects sharing one
 * operation, a job's result that does not say which job it answers, and an effect requested before
 * its job id is in the context (found by entering each state that requests one, from the context
 * the path model's creation body gives, exactly as the engine creates a workflow).
 */
import { createMachine, type AnyStateMachine } from 'xstate';
import { getStateNodes } from 'xstate/graph';
import { z } from 'zod';
import { decideCreate } from '../engine/decider.ts';
import { definitionKey, isJobResultEvent, type WorkflowDefinition } from '../engine/definition.ts';
import { DefinitionError } from '../engine/errors.ts';
import type { PathModel } from './workflow.ts';

/**
 * What an operation may be: it names the job id `<workflowId>/<operation>/<attempt>`, which the
 * shared `jobId` field of `event-fields.ts` matches with this same `[a-z]+`.
 */
export const operationPattern = /^[a-z]+$/;

/** An operation name the pattern takes, from the one given (else from the effect's name). */
function suggestedOperation(effect: string, operation: string): string {
  const letters = (text: string) => text.toLowerCase().replace(/[^a-z]/g, '');
  return letters(operation) || letters(effect.replace(/^(request|run|execute|do)(?=[A-Z])/, '')) || 'work';
}

function operationProblems(definition: WorkflowDefinition): string[] {
  const key = definitionKey(definition);
  const problems: string[] = [];
  const byOperation = new Map<string, string[]>();
  for (const [effect, spec] of Object.entries(definition.effects)) {
    const { operation } = spec;
    if (!operationPattern.test(operation)) {
      problems.push(
        `${key}: the effect ${effect} runs the operation '${operation}', which cannot name its job id <workflowId>/<operation>/<attempt>: an operation is lower-case letters only (${operationPattern.source}, as the jobId field of src/definitions/event-fields.ts matches it); name it '${suggestedOperation(effect, operation)}'`,
      );
    }
    byOperation.set(operation, [...(byOperation.get(operation) ?? []), effect]);
  }
  for (const [operation, effects] of byOperation) {
    if (effects.length > 1) {
      problems.push(
        `${key}: the effects ${effects.join(' and ')} share the operation '${operation}': currentJobs holds one job id per operation, so a result of one would answer the other; give each effect its own operation`,
      );
    }
  }
  return problems;
}

type JsonSchema = Record<string, unknown>;

/** Does every alternative of this JSON Schema require the field? Null when the schema cannot say. */
function requiresField(schema: JsonSchema, field: string): boolean {
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(alternatives)) return alternatives.every((alternative) => requiresField(alternative, field));
  if (Array.isArray(schema.allOf)) return (schema.allOf as JsonSchema[]).some((part) => requiresField(part, field));
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  return required.includes(field);
}

/** A job's result names the job it answers (`jobId`): the job guard compares it with the job in flight. */
function jobResultProblems(definition: WorkflowDefinition): string[] {
  const key = definitionKey(definition);
  const problems: string[] = [];
  for (const type of Object.keys(definition.eventRoles)) {
    const schema = Object.hasOwn(definition.eventSchemas, type) ? definition.eventSchemas[type] : undefined;
    if (!schema || !isJobResultEvent(definition, type)) continue;
    let json: JsonSchema;
    try {
      json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    } catch {
      continue; // a schema JSON Schema cannot describe: nothing to say about it here
    }
    if (!requiresField(json, 'jobId')) {
      problems.push(
        `${key}: ${type} is a job's result (only 'worker' may send it), but its schema does not require jobId, the job it answers; add jobId to it: z.strictObject({ jobId, ... }) with jobId from src/definitions/event-fields.ts`,
      );
    }
  }
  return problems;
}

type Config = Record<string, unknown>;

/** A state kept only as structure, so transitions still find their targets: no actions, no transitions. */
function stub(config: Config): Config {
  const states = (config.states ?? {}) as Record<string, Config>;
  return {
    ...(typeof config.type === 'string' ? { type: config.type } : {}),
    ...(typeof config.initial === 'string' ? { initial: config.initial } : {}),
    ...(Object.keys(states).length > 0
      ? { states: Object.fromEntries(Object.entries(states).map(([name, child]) => [name, stub(child)])) }
      : {}),
  };
}

/**
 * The config whose first step enters the state at `path`: each ancestor's initial state points down
 * it (a parallel one enters all its regions, as it must) and takes no event; every state off the
 * path is a stub; the state itself and everything under it are as written.
 */
function enteringAt(config: Config, path: readonly string[]): Config {
  const [head, ...rest] = path;
  if (head === undefined) return config;
  const states = (config.states ?? {}) as Record<string, Config>;
  const { on: _events, ...own } = config;
  return {
    ...own,
    ...(config.type === 'parallel' ? {} : { initial: head }),
    states: Object.fromEntries(
      Object.entries(states).map(([name, child]) => [
        name,
        name === head ? enteringAt(child, rest) : config.type === 'parallel' ? child : stub(child),
      ]),
    ),
  };
}

/** Names of the actions a state's entry lists. */
function entryNames(entry: unknown): string[] {
  const list: unknown[] = Array.isArray(entry) ? entry : entry === undefined ? [] : [entry];
  return list.flatMap((action) => {
    if (typeof action === 'string') return [action];
    if (typeof action === 'object' && action !== null && 'type' in action && typeof action.type === 'string')
      return [action.type];
    return [];
  });
}

/** Does any transition of the chart that targets `node` (or enters it through a descendant) carry actions? */
function enteredWithActions(machine: AnyStateMachine, path: readonly string[]): boolean {
  const id = [machine.id, ...path].join('.');
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    const transitions = [...node.transitions.values()].flat().concat(node.always ?? []);
    for (const transition of transitions) {
      const enters = (transition.target ?? []).some((target) => target.id === id || target.id.startsWith(`${id}.`));
      if (enters && transition.actions.length > 0) return true;
    }
  }
  return false;
}

/**
 * Each state whose entry requests an effect is entered from the workflow's first context (the path
 * model's creation body, validated and filled in as the engine does), and the engine plans its
 * commands: an effect whose job id `currentJobs` does not name then fails here, not in production.
 * A state entered by a transition that carries actions (which might write the job id) is left to
 * the run-time error, as is a state the first context cannot enter.
 */
function jobIdProblems(definition: WorkflowDefinition, paths: Pick<PathModel, 'body' | 'creator'>): string[] {
  const machine = definition.machine;
  const effects = new Set(Object.keys(definition.effects));
  const problems = new Set<string>();
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    const requested = entryNames((node.config as Config).entry).filter((name) => effects.has(name));
    if (requested.length === 0 || enteredWithActions(machine, node.path)) continue;
    const entering = createMachine(
      enteringAt(machine.config as Config, node.path) as never,
      machine.implementations as never,
    ) as AnyStateMachine;
    try {
      decideCreate({
        definition: { ...definition, machine: entering },
        workflowId: 'wf_registration',
        body: paths.body,
        principal: { ...paths.creator, roles: [...definition.createRoles] },
        eventId: 'registration',
        now: 0,
      });
    } catch (error) {
      // Only this state's own effects: an ancestor's or a region's are checked where they are requested.
      const effect = error instanceof DefinitionError ? error.details.effect : undefined;
      if (typeof effect === 'string' && requested.includes(effect)) {
        problems.add(
          `${(error as Error).message} (found entering ${node.path.join('.') || 'the chart'} from the first context)`,
        );
      }
      // Anything else (a guard that needs an event) says nothing about job ids.
    }
  }
  return [...problems];
}

/** Every problem of a version's effects and job results. */
export function effectProblems(definition: WorkflowDefinition, paths: Pick<PathModel, 'body' | 'creator'>): string[] {
  return [...operationProblems(definition), ...jobResultProblems(definition), ...jobIdProblems(definition, paths)];
}
