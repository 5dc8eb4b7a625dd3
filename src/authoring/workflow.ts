/**
 * `workflow()`: a chart made with the kit's `setup()`, plus what people see, bundled into the
 * platform's contract (`WorkflowDefinition`, `WorkflowBundle`) and checked by `defineWorkflow`.
 * Everything the platform can say for itself is derived: the input schema with the engine's
 * fields, the event schemas and roles, `START`, the dead-letter event, the job specs and their
 * handlers, the events only people may send, the guards' explanations, the jobs in flight.
 */
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
import { failureFacts, jobHandler } from '../effects/handler-kit.ts';
import type { EffectHandler, ResultEvent } from '../effects/effect.ts';
import { callModelWithRepair } from '../effects/model-call.ts';
import { derivePathModel, type DerivePathInput } from '../paths/derive.ts';
import type { EffectDeclaration } from './effect.ts';
import { personEventsOf, presentationsOf, type EventDeclaration } from './events.ts';
import { presentFromSpec, type PresentationSpec } from './presentation.ts';
import { kitProblems, reportedEvents } from './kit-checks.ts';
import { releasedChartUses, releasedDefinition, type ReleasedKitVersion } from './released-kit-version.ts';
import { kitOf, type KitMachine } from './setup.ts';

export type { ReleasedKitVersion } from './released-kit-version.ts';

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
  /**
   * Versions released with `warden release` and kept as data (what `warden version new` writes in
   * `versions/`): each chart is made again on this kit's implementations, which its pins and parts hold
   * to what was released. This version's number is then the next one unless `version` says otherwise.
   */
  released?: readonly ReleasedKitVersion[];
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

/** Outcomes as the engine takes them (`missing(context)`): one written as named checks is missing the failing ones. */
export function outcomesOf<TContext>(
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
    jobHandler<never, unknown>({
      timeoutMs: declaration.timeoutMs ?? deps.timeoutMs(operation),
      schemas,
      ...(declaration.paramsSchema ? { params: declaration.paramsSchema } : {}),
      run: async (params, ctx, signal) => {
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
        return outcome;
      },
      onError: (ctx, error) => {
        const own = declaration.onError?.(error, ctx.job);
        if (own) return own;
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
          return { type, payload: facts };
        }
        return { type: deadLetterEvent ?? 'ESCALATE', payload: { reason: `${errorClass}: ${message}` } };
      },
    });
}

/** Each result and failure event type → the operations of the effects that report it. */
export function resultOperationsOf(
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

/**
 * The bundle's view: a presentation spec becomes `present` over what `render` returns, and the
 * events' buttons (`event(shape, { label, kind })`) its `events`.
 */
function viewOf<TContext>(
  view: WorkflowSpec<TContext>['view'],
  events: Readonly<Record<string, EventDeclaration>>,
): WorkflowView<TContext> {
  const { present, ...own } = view;
  const buttons = presentationsOf(events);
  const rest = Object.keys(buttons).length === 0 ? own : { ...own, events: buttons };
  if (present === undefined || typeof present === 'function') return { ...rest, ...(present ? { present } : {}) };
  const personEvents = Object.fromEntries(
    Object.entries(events)
      .filter(([, e]) => e.kind === 'person')
      .map(([type, e]) => [type, e.schema]),
  );
  return { ...rest, present: presentFromSpec(present, personEvents, (c, record) => view.render(c, record)) };
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
  const problems = kitProblems(id, kit, events, releasedChartUses(spec.released ?? []));
  for (const guard of spec.jobGuards ?? []) {
    if (!Object.hasOwn(kit.spec.guards ?? {}, guard))
      problems.push(`jobGuards names ${guard}, which is none of the guards: declare it in guards`);
  }
  if (problems.length > 0) throw new InvalidWorkflowError(id, problems, kit.module);

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
  const releasedVersions = [...(spec.released ?? [])].sort((a, b) => a.version - b.version);
  const definition: WorkflowDefinition<TContext> & ReleasableParts = {
    id,
    version: spec.version ?? (releasedVersions.at(-1)?.version ?? 0) + 1,
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
    jobAttempts: kit.jobAttempts,
    explainGuard: kit.explainGuard,
    startEvent,
    deadLetterEvent,
    ...(spec.outcomes ? { outcomes: outcomesOf(spec.outcomes) } : {}),
    personEvents: personEventsOf(events),
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
  const earlier = [...(spec.earlier ?? []), ...releasedVersions.map((r) => releasedDefinition(definition, kit, r))];
  const paths =
    'resolve' in spec.paths
      ? spec.paths
      : derivePathModel({
          ...spec.paths,
          definition,
          roles,
          ...(spec.claims ? { claims: spec.claims } : {}),
          ...(releasedVersions.length > 0 ? { versions: earlier } : {}),
        });
  return defineWorkflow<TContext, TDeps>({
    id,
    title: spec.title,
    description: spec.description,
    versions: [...earlier, definition],
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
