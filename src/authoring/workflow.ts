/**
 * `workflow()`: a chart made with the kit's `setup()`, plus what people see, bundled into the
 * platform's contract (`WorkflowDefinition`, `WorkflowBundle`) and checked by `defineWorkflow`.
 * Everything the platform can say for itself is derived: the input schema with the engine's
 * fields, the event schemas and roles, `START`, the dead-letter event, the job specs and their
 * handlers, the events only people may send, the guards' explanations, the jobs in flight.
 */
import type { AnyStateNode } from 'xstate';
import { z } from 'zod';
import { defineWorkflow, handledEventTypes, InvalidWorkflowError } from '../definitions/define-workflow.ts';
import type {
  DemoScript,
  PathModel,
  PlatformAdapters,
  Presentation,
  QueueSpec,
  TokenClaimSpec,
  WorkflowBundle,
  WorkflowView,
  LocalModelRule,
} from '../definitions/workflow.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import type { OutcomeInvariant, WorkflowDefinition } from '../engine/definition.ts';
import type { SnapshotMigration } from '../engine/migrate.ts';
import type { ReleasableParts } from '../definitions/released-parts.ts';
import { workerRole, type Principal } from '../engine/principal.ts';
import { failureFacts, createHandler } from '../effects/handler-kit.ts';
import type { EffectContext, EffectHandler, ResultEvent } from '../effects/effect.ts';
import { parseParams } from '../effects/handler-kit.ts';
import { callModelWithRepair } from '../effects/model-call.ts';
import { derivePathModel, type DerivePathInput } from '../paths/derive.ts';
import type { EffectDeclaration } from './effect.ts';
import type { EventDeclaration } from './events.ts';
import { presentationOf, type PresentationSpec } from './presentation.ts';
import { kitMachines, kitNames, kitOf, type Kit, type KitMachine } from './setup.ts';

/** What `workflow()` takes beside the machine. */
export interface WorkflowSpec<TContext, TDeps extends object = object> {
  /** A machine made with the kit's `setup().createMachine()`; its id is the definition's id unless `id` says otherwise. */
  machine: KitMachine<TContext>;
  id?: string;
  title: string;
  description: string;
  /** Roles that may create a workflow. */
  create: readonly string[];
  /** Every role by what it does (documentation, tokens, the console); by default each role of the events, as itself. */
  roles?: Readonly<Record<string, string>>;
  claims?: Readonly<Record<string, TokenClaimSpec>>;
  /** What each final state proves: `missing(context)`, or named `checks` (the failing ones are what is missing). */
  outcomes?: Readonly<Record<string, OutcomeInvariant<TContext> | OutcomeChecks<TContext>>>;
  adapters?: (platform: PlatformAdapters) => TDeps;
  localModel?: Readonly<Record<string, LocalModelRule>>;
  view: {
    schema: z.ZodType;
    render(context: TContext, record: WorkflowRecord): Record<string, unknown>;
    summary?: WorkflowView<TContext>['summary'];
    summarySchema?: z.ZodType;
    /**
     * What the console shows: templates over the rendered view or functions of the context, the
     * decision payloads pre-filled from the view (see `PresentationSpec`); or the whole `Presentation`.
     */
    present?: PresentationSpec<TContext> | ((context: TContext, record: WorkflowRecord) => Presentation);
  };
  queues?: readonly QueueSpec[];
  /**
   * The path model: derived from the schemas, roles and claims, given the creation bodies and the
   * business facts that decide branches (`examples`), the step invariants and, when the default
   * digest of the context does not fit, `behaviour` (see `derivePathModel`); or a full `PathModel` by hand.
   */
  paths: PathModel<TContext> | Omit<DerivePathInput<TContext>, 'definition' | 'roles' | 'claims'>;
  /**
   * This version's number (1 by default), and the definition's earlier versions, released, oldest
   * first (workflows started on one keep running on it), with the migrations between them.
   */
  version?: number;
  earlier?: readonly WorkflowDefinition<TContext>[];
  migrations?: readonly SnapshotMigration[];
  /** Functions (or tables of them) the implementations call, pinned with this version's release by name. */
  pinnedFunctions?: Readonly<Record<string, unknown>>;
  /**
   * Guards of the workflow's own that check an event answers the job in flight (beside the kit's
   * `answersTheJob`): a refusal by them alone is `STALE_JOB`, not `GUARD_REJECTED`.
   */
  jobGuards?: readonly string[];
  /** How `warden demo` drives it: the creation input, and the person's decision per state (none by default). */
  demo: Pick<DemoScript<TContext>, 'input'> & Partial<Pick<DemoScript<TContext>, 'creator' | 'decide' | 'finalState'>>;
}

/** An outcome proven by named checks of the context, all of which must hold. */
export interface OutcomeChecks<TContext> {
  means: string;
  checks: Readonly<Record<string, (context: TContext) => boolean>>;
}

function outcomesOf<TContext>(
  outcomes: Readonly<Record<string, OutcomeInvariant<TContext> | OutcomeChecks<TContext>>>,
): Record<string, OutcomeInvariant<TContext>> {
  return Object.fromEntries(
    Object.entries(outcomes).map(([state, outcome]) => {
      if (!('checks' in outcome)) return [state, outcome];
      const { means, checks } = outcome;
      const missing = (c: TContext) =>
        Object.entries(checks)
          .filter(([, holds]) => !holds(c))
          .map(([name]) => name);
      return [state, { means, missing }];
    }),
  );
}

const engineFields = {
  workflowId: z.string(),
  tenantId: z.string(),
  requesterId: z.string(),
  correlationId: z.string(),
  createdAt: z.number(),
};

const operationPattern = /^[a-z]+$/;

/** The problems of a kit's declarations that `defineWorkflow` cannot see (they are the kit's own). */
function kitProblems(id: string, kit: Kit, events: Readonly<Record<string, EventDeclaration>>): string[] {
  const { spec } = kit;
  const problems: string[] = [];
  const effects: Readonly<Record<string, EffectDeclaration<unknown>>> = spec.effects ?? {};
  const taken = new Map<string, string>();
  for (const [name, declaration] of Object.entries(effects)) {
    const operation = kit.operations[name] ?? '';
    if (!operationPattern.test(operation)) {
      problems.push(
        `effect ${name}: its operation ${JSON.stringify(operation)} must be lower-case letters (it names job ids <workflowId>/<operation>/<n>); give operation: '${name.toLowerCase().replace(/[^a-z]/g, '') || 'work'}'`,
      );
    }
    const other = taken.get(operation);
    if (other !== undefined)
      problems.push(
        `effects ${other} and ${name} share the operation ${operation}: give one of them its own operation`,
      );
    taken.set(operation, name);
    if ((kit.jobStates[name] ?? []).length === 0) {
      problems.push(
        `effect ${name} is the entry action of no state: start it on entry of the state that waits for its result (entry: '${name}')`,
      );
    }
    for (const type of declaration.results) {
      if (events[type]?.kind !== 'result')
        problems.push(`effect ${name} reports ${type}: declare it in events as ${type}: result({ … })`);
    }
    if (declaration.failure !== undefined && events[declaration.failure]?.kind !== 'failure') {
      problems.push(
        `effect ${name} reports failures as ${declaration.failure}: declare it in events as ${declaration.failure}: failure()`,
      );
    }
    const permanent = declaration.permanentFailure;
    if (permanent !== undefined && events[permanent]?.retryable !== false) {
      problems.push(
        `effect ${name} reports permanent failures as ${permanent}: declare it in events as ${permanent}: failure({ flat: true, retryable: false })`,
      );
    }
    if (declaration.failure !== undefined && events[declaration.failure]?.retryable === false) {
      problems.push(
        `effect ${name}'s failure ${declaration.failure} is declared retryable: false: name the retryable one as failure and this one as permanentFailure`,
      );
    }
    if (
      declaration.failure !== undefined &&
      events[declaration.failure]?.retryable === true &&
      permanent === undefined
    ) {
      problems.push(
        `effect ${name}'s failure ${declaration.failure} says every failure may be retried: name the event of the others as permanentFailure`,
      );
    }
    if (permanent !== undefined && declaration.failure === undefined) {
      problems.push(`effect ${name} has a permanentFailure but no failure: name the retryable one as failure`);
    }
    for (const type of declaration.retry?.after ?? []) {
      if (events[type]?.kind !== 'result')
        problems.push(`effect ${name} may be retried after ${type}: declare it in events as ${type}: result({ … })`);
    }
    if ((declaration.run === undefined) === (declaration.handler === undefined)) {
      problems.push(`effect ${name} needs one of run (the kit's) and handler (one that predates the kit)`);
    }
    const within = declaration.retry?.within;
    if (
      within !== undefined &&
      !(kit.jobStates[name] ?? []).every((path) => path === within || path.startsWith(`${within}.`))
    ) {
      problems.push(
        `effect ${name} counts its attempts within ${within}, which does not hold every state that starts it (${(kit.jobStates[name] ?? []).join(', ')})`,
      );
    }
    for (const type of declaration.retry?.renewOn ?? []) {
      if (within === undefined)
        problems.push(`effect ${name} renews its attempts on ${type} but counts within no state: add retry.within`);
      else if (!(type in events))
        problems.push(`effect ${name} renews its attempts on ${type}, which is no declared event`);
    }
    if (declaration.retry && declaration.failure === undefined && (declaration.retry.after ?? []).length === 0) {
      problems.push(
        `effect ${name} has a retry policy but no failure event to retry on: add failure: '<EVENT>' and declare it with failure(), or name results in retry.after`,
      );
    }
    if (declaration.failure === undefined && !Object.values(events).some((e) => e.kind === 'deadLetter')) {
      problems.push(
        `effect ${name} has no failure event and the workflow no deadLetter() event: a failed attempt would have nowhere to go`,
      );
    }
  }
  problems.push(...parallelSharing(id, kit, effects));
  for (const [kind, names] of Object.entries(kitNames)) {
    const own =
      kind === 'actions'
        ? { ...spec.updates, ...effects }
        : kind === 'guards'
          ? (spec.guards ?? {})
          : (spec.delays ?? {});
    for (const name of names)
      if (Object.hasOwn(own, name)) problems.push(`${kind}.${name} is the kit's own: name yours differently`);
  }
  for (const name of spec.backoffDelays ?? []) {
    if (Object.hasOwn(spec.delays ?? {}, name))
      problems.push(`delays.${name} is also one of backoffDelays: rename one`);
  }
  for (const name of Object.keys(spec.updates ?? {})) {
    if (Object.hasOwn(effects, name)) problems.push(`${name} is both an update and an effect: rename one`);
  }
  const deadLetters = Object.entries(events).filter(([, e]) => e.kind === 'deadLetter');
  if (deadLetters.length > 1)
    problems.push(`only one event may be the deadLetter(): ${deadLetters.map(([t]) => t).join(', ')}`);
  if (Object.hasOwn(events, 'START'))
    problems.push("START is the kit's own (sent right after creation when the chart handles it): do not declare it");
  return problems;
}

/** The events an effect reports: its results and failures. */
function reportedEvents(d: EffectDeclaration<unknown>): string[] {
  return [...d.results, ...[d.failure, d.permanentFailure].filter((t): t is string => t !== undefined)];
}

/** The guard `{ type: 'answersTheJob', params: { effect } }`'s effect, or null for any other guard. */
function ownJobEffect(guard: unknown): string | null {
  if (typeof guard !== 'object' || guard === null) return null;
  const { type, params } = guard as { type?: unknown; params?: { effect?: unknown } };
  return type === 'answersTheJob' && typeof params?.effect === 'string' ? params.effect : null;
}

/** The node and every node below it. */
function subtree(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states).flatMap((child) => subtree(child))];
}

/**
 * XState hands an event to every region of a parallel state: a result or failure event two effects
 * share reaches both regions when their jobs run side by side, and the region whose job it is not
 * would take it too. A shared event is accepted when, in each of the two regions, every transition
 * on it is guarded by `{ type: 'answersTheJob', params: { effect } }` naming that region's effect
 * (true only for the event naming that effect's current job); otherwise each such event must belong
 * to one effect. An `answersTheJob` naming no effect is refused too.
 */
function parallelSharing(
  id: string,
  kit: Kit,
  effects: Readonly<Record<string, EffectDeclaration<unknown>>>,
): string[] {
  const machine = kitMachines.get(kit);
  if (!machine) return [];
  const node = (path: string) => machine.getStateNodeById(`${machine.id}.${path}`);
  /** The parallel state above both and the region (its child) each is in, or null. */
  const parallelRegions = (a: string, b: string) => {
    const [x, y] = [a.split('.'), b.split('.')];
    let i = 0;
    while (i < x.length && i < y.length && x[i] === y[i]) i++;
    if (i === 0 || i === x.length || i === y.length) return null;
    const common = x.slice(0, i).join('.');
    if (node(common).type !== 'parallel') return null;
    return { parallel: common, regions: [x.slice(0, i + 1).join('.'), y.slice(0, i + 1).join('.')] as const };
  };
  /** Does every transition on `type` in this region take only `effect`'s own job's report? */
  const guardedFor = (region: string, type: string, effect: string) =>
    subtree(node(region)).every((n) => (n.transitions.get(type) ?? []).every((t) => ownJobEffect(t.guard) === effect));
  const problems: string[] = [];
  for (const n of subtree(machine.root)) {
    for (const [type, transitions] of n.transitions) {
      for (const t of transitions) {
        const effect = ownJobEffect(t.guard);
        if (effect !== null && !Object.hasOwn(effects, effect))
          problems.push(
            `${n.id}: ${type} is guarded by answersTheJob for ${effect}, which is none of the effects (${Object.keys(effects).join(', ')})`,
          );
      }
    }
  }
  const names = Object.keys(effects);
  for (const [i, first] of names.entries()) {
    for (const second of names.slice(i + 1)) {
      const events = (name: string) => {
        const d = effects[name];
        return d ? reportedEvents(d) : [];
      };
      const shared = events(first).filter((type) => events(second).includes(type));
      if (shared.length === 0) continue;
      for (const a of kit.jobStates[first] ?? []) {
        for (const b of kit.jobStates[second] ?? []) {
          const found = parallelRegions(a, b);
          if (found === null) continue;
          const [ra, rb] = found.regions;
          const unguarded = shared.filter((type) => !(guardedFor(ra, type, first) && guardedFor(rb, type, second)));
          if (unguarded.length > 0) {
            problems.push(
              `effects ${first} and ${second} both report ${unguarded.join(', ')} and run side by side in the parallel state ${found.parallel}: every region would take it; give each effect events of its own, or guard each region's transitions on it with { type: 'answersTheJob', params: { effect: '<its effect>' } }`,
            );
          }
        }
      }
    }
  }
  return problems;
}

function handlerOf(
  name: string,
  declaration: EffectDeclaration<unknown>,
  operation: string,
  events: Readonly<Record<string, EventDeclaration>>,
  deadLetterEvent: string | null,
): (deps: PlatformAdapters) => EffectHandler {
  const schemas = Object.fromEntries(Object.entries(events).map(([t, e]) => [t, e.schema]));
  const reported = new Set([...reportedEvents(declaration), ...(deadLetterEvent === null ? [] : [deadLetterEvent])]);
  if (declaration.handler) {
    const checked = (event: ResultEvent): ResultEvent => {
      if (reported.has(event.type)) return event;
      throw new Error(
        `effect ${name}'s handler reported ${event.type}, which is none of its events (${[...reported].join(', ')})`,
      );
    };
    return (deps) => {
      const built = declaration.handler?.(deps);
      if (!built) throw new Error(`effect ${name} has no handler`);
      const run: EffectHandler = async (ctx) => checked(await built(ctx));
      if (built.failure) {
        run.failure = (ctx, error) => {
          const event = built.failure?.(ctx, error);
          if (!event) throw new Error(`effect ${name}'s handler reports no failure`);
          return checked(event);
        };
      }
      return run;
    };
  }
  return (deps) =>
    createHandler<never>({
      timeoutMs: declaration.timeoutMs ?? deps.timeoutMs(operation),
      schemas,
      run: async (ctx: EffectContext<never>, signal: AbortSignal): Promise<ResultEvent> => {
        const params = declaration.paramsSchema
          ? parseParams(declaration.paramsSchema, ctx as EffectContext)
          : ctx.job.params;
        const outcome = await declaration.run?.({
          params,
          context: ctx.context,
          job: ctx.job,
          deps: deps,
          now: ctx.now,
          signal,
          saveArtifact: ctx.saveArtifact,
          loadArtifact: ctx.loadArtifact,
          ask: (task, input) => callModelWithRepair({ ctx: ctx, signal, model: deps.model, task, input }),
        });
        if (!outcome) throw new Error(`effect ${name} has neither run nor handler`);
        if (!declaration.results.includes(outcome.type) && outcome.type !== deadLetterEvent) {
          throw new Error(
            `effect ${name} returned ${outcome.type}, which is not one of its results (${declaration.results.join(', ')}) nor the dead letter`,
          );
        }
        return { type: outcome.type, payload: { ...outcome.payload, jobId: ctx.job.jobId } };
      },
      onError: (ctx, error) => {
        const own = declaration.onError?.(error, ctx.job);
        if (own) return { type: own.type, payload: { ...own.payload, jobId: ctx.job.jobId } };
        const { errorClass, retryable, message } = failureFacts(error);
        if (declaration.failure !== undefined) {
          const type =
            !retryable && declaration.permanentFailure !== undefined
              ? declaration.permanentFailure
              : declaration.failure;
          const e = events[type];
          const facts =
            e?.retryable !== undefined
              ? { errorClass, message }
              : e?.flat
                ? { errorClass, message, retryable }
                : { error: { class: errorClass, message, retryable } };
          return { type, payload: { jobId: ctx.job.jobId, ...facts } };
        }
        return {
          type: deadLetterEvent ?? 'ESCALATE',
          payload: { reason: `${errorClass}: ${message}`, jobId: ctx.job.jobId },
        };
      },
    });
}

/** Each result and failure event type → the operations of the effects that report it. */
function resultOperationsOf(
  effects: Readonly<Record<string, EffectDeclaration<unknown>>>,
  operations: Readonly<Record<string, string>>,
): Record<string, string[]> {
  const answers: Record<string, string[]> = {};
  for (const [name, declaration] of Object.entries(effects)) {
    for (const type of reportedEvents(declaration)) {
      (answers[type] ??= []).push(operations[name] ?? name);
    }
  }
  return answers;
}

/** The bundle's view: a presentation spec becomes `present` over what `render` returns. */
function viewOf<TContext>(
  view: WorkflowSpec<TContext>['view'],
  events: Readonly<Record<string, EventDeclaration>>,
): WorkflowView<TContext> {
  const { present, ...rest } = view;
  if (present === undefined || typeof present === 'function') return { ...rest, ...(present ? { present } : {}) };
  const fields = Object.fromEntries(
    Object.entries(events)
      .filter(([, e]) => e.kind === 'person' && e.schema instanceof z.ZodObject)
      .map(([type, e]) => [type, Object.keys((e.schema as z.ZodObject).shape)]),
  );
  return { ...rest, present: (c, record) => presentationOf(present, fields, view.render(c, record), c, record) };
}

/** Bundles a kit workflow into the platform's contract; throws `InvalidWorkflowError` listing every problem. */
export function workflow<TContext, TDeps extends object = object>(
  spec: WorkflowSpec<TContext, TDeps>,
): WorkflowBundle<TContext, TDeps> {
  const kit = kitOf(spec.machine);
  const id = spec.id ?? spec.machine.id;
  if (!kit)
    throw new InvalidWorkflowError(id, [
      "the machine was not made with the kit's setup(): import { setup } from 'warden'",
    ]);
  const events = kit.spec.events;
  const problems = kitProblems(id, kit, events);
  for (const guard of spec.jobGuards ?? []) {
    if (!Object.hasOwn(kit.spec.guards ?? {}, guard))
      problems.push(`jobGuards names ${guard}, which is none of the guards: declare it in guards`);
  }
  if (problems.length > 0) throw new InvalidWorkflowError(id, problems);

  const handled = handledEventTypes(spec.machine);
  const startEvent = handled.includes('START') ? 'START' : null;
  const deadLetterEvent = Object.entries(events).find(([, e]) => e.kind === 'deadLetter')?.[0] ?? null;
  const eventSchemas: Record<string, z.ZodType> = Object.fromEntries(
    Object.entries(events).map(([t, e]) => [t, e.schema]),
  );
  const eventRoles: Record<string, readonly string[]> = Object.fromEntries(
    Object.entries(events).map(([t, e]) => [t, [...new Set(e.roles)]]),
  );
  if (startEvent) {
    eventSchemas.START = z.strictObject({});
    eventRoles.START = [...new Set([...spec.create, workerRole])];
  }
  const effects: Readonly<Record<string, EffectDeclaration<unknown>>> = kit.spec.effects ?? {};
  const definition: WorkflowDefinition<TContext> & ReleasableParts = {
    id,
    version: spec.version ?? 1,
    machine: spec.machine,
    inputSchema: kit.spec.input.extend(engineFields),
    createRoles: spec.create,
    eventSchemas,
    eventRoles,
    effects: Object.fromEntries(
      Object.entries(effects).map(([name, d]) => [
        name,
        {
          operation: kit.operations[name] ?? name,
          // Its pin (the release's parts) is the author's `params`, not this wrapper.
          params: kit.authored((c: TContext) => d.params(c) as Record<string, unknown>, 'effects', name, 'params'),
        },
      ]),
    ),
    jobGuards: ['answersTheJob', ...(spec.jobGuards ?? [])],
    resultOperations: resultOperationsOf(effects, kit.operations),
    currentJobs: kit.currentJobs,
    explainGuard: kit.explainGuard,
    startEvent,
    deadLetterEvent,
    ...(spec.outcomes ? { outcomes: outcomesOf(spec.outcomes) } : {}),
    personEvents: Object.entries(events)
      .filter(([, e]) => e.kind === 'person' && !e.byModel)
      .map(([t]) => t),
    ...(spec.pinnedFunctions ? { pinnedFunctions: spec.pinnedFunctions } : {}),
  };
  const roleNames = [...new Set([...spec.create, ...Object.values(eventRoles).flat()])].sort();
  const roles = spec.roles ?? Object.fromEntries(roleNames.map((r) => [r, r]));
  const creator: Principal = {
    id: `${spec.create[0] ?? 'creator'}-1`,
    tenantId: 't1',
    kind: 'user',
    roles: [spec.create[0] ?? 'creator'],
  };
  const paths =
    'resolve' in spec.paths
      ? spec.paths
      : derivePathModel({ ...spec.paths, definition, roles, ...(spec.claims ? { claims: spec.claims } : {}) });
  return defineWorkflow<TContext, TDeps>({
    id,
    title: spec.title,
    description: spec.description,
    versions: [...(spec.earlier ?? []), definition],
    ...(spec.migrations ? { migrations: spec.migrations } : {}),
    createSchema: kit.spec.input,
    roles,
    ...(spec.claims ? { claims: spec.claims } : {}),
    ...(spec.adapters ? { adapters: spec.adapters } : {}),
    ...(spec.localModel ? { localModel: spec.localModel } : {}),
    handlers: Object.fromEntries(
      Object.entries(effects).map(([name, d]) => [
        name,
        handlerOf(name, d, kit.operations[name] ?? name, events, deadLetterEvent),
      ]),
    ),
    view: viewOf(spec.view, events),
    queues: spec.queues ?? [],
    paths,
    demo: { ...spec.demo, creator: spec.demo.creator ?? creator, decide: spec.demo.decide ?? (() => null) },
  });
}
