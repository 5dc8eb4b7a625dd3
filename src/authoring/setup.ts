/**
 * The kit's `setup()`: XState's, with the platform's plumbing merged in. The author names, in a
 * static chart the Stately editor opens, only business implementations; the kit supplies
 *
 * - the action of each declared effect: it starts a job, whose id `<workflowId>/<operation>/<n>`
 *   and attempt the kit keeps in a context slot of its own (`$warden`), never in the author's fields;
 * - the guard `canRetry` (on an effect's failure event: attempts left and an error another attempt
 *   may cure), and `errorIsRetryable` (the error alone) and the delay `backoff` (the effect's backoff for that attempt), which a retry in the
 *   chart names: `FAILED: [{ guard: 'canRetry', target: 'waiting' }, …]`, `waiting: { after: { backoff: 'working' } }`;
 * - the in-flight bookkeeping: a job is in flight while the state whose entry started it is
 *   active, and a result naming any other job is refused as stale before the chart sees it.
 *
 * A job started by a `backoff` timer is a retry (attempt + 1); any other start is attempt 1.
 *
 * Each implementation made from the author's declarations is marked with where it was declared (the
 * module that called `setup()`, the section and name): a released version's pins fingerprint the
 * author's TypeScript source, not these closures (src/definitions/source-fingerprint.ts).
 */
import {
  assign,
  enqueueActions,
  setup as xstateSetup,
  type AnyEventObject,
  type AnyStateMachine,
  type AnyStateNode,
  type MachineConfig,
  type MachineContext,
} from 'xstate';
import type { z } from 'zod';
import { fileURLToPath } from 'node:url';
import { authoredSections, callerModule, markAuthored, type AuthoredSection } from '../definitions/authored-source.ts';
import { backoffDelay } from '../definitions/backoff.ts';
import { eachReference } from '../definitions/chart-references.ts';
import { jobMarkerAction } from '../engine/commands.ts';
import type { JobAttempts } from '../engine/definition.ts';
import { defaultBackoff, mayRetry, operationOf, type EffectDeclaration } from './effect.ts';
import { failureError, type AnyEnvelope, type EnvelopeOf, type EventDeclarations } from './events.ts';

/** What the engine fills into every creation input. */
export interface EngineInput {
  workflowId: string;
  tenantId: string;
  requesterId: string;
  correlationId: string;
  createdAt: number;
}

/** The kit's own slot of the context: jobs by operation. Authors never read or write it. */
export interface JobBook {
  workflowId: string;
  jobs: Record<string, { id: string; n: number; attempt: number }>;
}
export interface KitContext {
  $warden: JobBook;
}

export interface Args<TContext, TEvents extends EventDeclarations> {
  context: TContext;
  event: EnvelopeOf<TEvents>;
}
export type Check<TContext, TEvents extends EventDeclarations> = (
  args: Args<TContext, TEvents>,
  params: Record<string, unknown> | undefined,
) => boolean;
/** A guard: one check, or named checks that must all pass (a refusal lists the failing ones). */
export type GuardDeclaration<TContext, TEvents extends EventDeclarations> =
  Check<TContext, TEvents> | Readonly<Record<string, Check<TContext, TEvents>>>;
export type Update<TContext, TEvents extends EventDeclarations> = (
  args: Args<TContext, TEvents>,
  params: Record<string, unknown> | undefined,
) => Partial<TContext>;

export interface KitSpec<
  TContext,
  TEvents extends EventDeclarations,
  TInput extends z.ZodObject,
  TDeps,
  TParams extends Record<string, unknown> = Record<string, unknown>,
  TGuard extends string = string,
  TUpdate extends string = string,
  TDelay extends string = string,
  TBackoff extends string = string,
> {
  /** The caller's creation input (what `POST /v1/workflows` takes as `input`). */
  input: TInput;
  /** The initial context, from the creation input and the fields the engine fills in. */
  context: (input: z.infer<TInput> & EngineInput) => TContext;
  events: TEvents;
  /** The effects, by the action name the chart starts each with; the kit owns their jobs. */
  effects?: { readonly [K in keyof TParams]: EffectDeclaration<NoInfer<TContext>, TParams[K], TDeps> };
  guards?: { readonly [K in TGuard]: GuardDeclaration<NoInfer<TContext>, TEvents> };
  /** Named `assign`s: each returns the fields it changes. */
  updates?: { readonly [K in TUpdate]: Update<NoInfer<TContext>, TEvents> };
  /** Named delays, ms. */
  delays?: { readonly [K in TDelay]: (args: Args<NoInfer<TContext>, TEvents>) => number };
  /**
   * A context persisted before the workflow moved to the kit has no `$warden` slot: its jobs as its
   * own fields held them (by operation: the last job's id, its number, its attempt). None by default.
   */
  legacyJobs?: (context: NoInfer<TContext>) => JobBook['jobs'];
  // With legacyJobs, results reach guards, updates and delays with their jobId: the workflow's
  // updates predate the kit and may read it. Without, the kit keeps it to itself.
  /**
   * More names of the kit's `backoff` delay: a chart that predates the kit keeps its delay names, so
   * the timers its running workflows armed still fire (`after: { planBackoff: 'planning' }`).
   */
  backoffDelays?: readonly TBackoff[];
}

/** A name the chart may give, with the params XState lets it pass. */
type Named<TName extends string> = { type: TName; params: Record<string, unknown> | undefined };

/**
 * What `createMachine` takes: XState's own config type over the names the kit's `setup()` knows (the
 * author's guards, updates, effects and delays, the kit's `canRetry`, `errorIsRetryable`,
 * `answersTheJob` and `backoff`) and the declared events with `START`, so a misspelled name fails
 * `tsc` as under XState's `setup()`. The context is the kit's to give.
 */
export type KitChart<
  TContext,
  TEvents extends EventDeclarations,
  TAction extends string,
  TGuard extends string,
  TDelay extends string,
> = Omit<
  MachineConfig<
    TContext & KitContext & MachineContext,
    { type: (keyof TEvents & string) | 'START' } & AnyEventObject,
    never,
    Named<TAction>,
    Named<TGuard | (typeof kitNames.guards)[number]>,
    TDelay | (typeof kitNames.delays)[number]
  >,
  'context'
> & { id: string; states: Record<string, unknown> };

/** The implementations the kit supplies under these names; a workflow may not use them for its own. */
export const kitNames = {
  guards: ['canRetry', 'errorIsRetryable', 'answersTheJob'],
  delays: ['backoff'],
  actions: [jobMarkerAction],
} as const;

/** What the kit knows about a machine it made (read by `workflow()`). */
export interface Kit {
  spec: KitSpec<unknown, EventDeclarations, z.ZodObject, object>;
  /** Effect name → operation. */
  operations: Readonly<Record<string, string>>;
  /** Effect name → the state paths whose entry starts it. */
  jobStates: Readonly<Record<string, readonly string[]>>;
  explainGuard: (guard: string, context: unknown, event: unknown) => string[];
  currentJobs: (context: unknown, statePaths?: readonly string[]) => Record<string, string | undefined>;
  /** Each operation's latest job, its attempt and the policy's most, and the armed backoff timer that retries it. */
  jobAttempts: (context: unknown, armedTimers: readonly string[]) => Record<string, JobAttempts>;
  /**
   * Marks a function made from the author's declaration `section.name` (its `member`, e.g. an
   * effect's `params`), so that a pin of it fingerprints the author's source (see authored-source.ts).
   */
  authored: <T extends object>(implementation: T, section: AuthoredSection, name: string, member?: string) => T;
  /** The module whose `setup()` made the kit, when the stack tells: named in registration errors. */
  module?: string;
  /** The kit's `createMachine`: a released chart (JSON) is made again on the kit's implementations. */
  createMachine: (chart: unknown) => AnyStateMachine;
}

const kits = new WeakMap<AnyStateMachine, Kit>();
const thisModule = fileURLToPath(import.meta.url);
/** The machine each kit made (for checks that read the chart's state nodes). */
export const kitMachines = new WeakMap<Kit, AnyStateMachine>();

/** A machine the kit made, typed by its context (for `workflow()`'s view, outcomes and paths). */
export type KitMachine<TContext> = AnyStateMachine & { readonly __kitContext?: TContext };

/** The kit of a machine made with the kit's `setup()`, if it was. */
export function kitOf(machine: AnyStateMachine): Kit | undefined {
  return kits.get(machine);
}

type Loose = Record<string, unknown>;

/** The attempt of the last job of `operation` (1 for a first start, +1 per retry), 0 before any. */
export function attemptOf(context: unknown, operation: string): number {
  return (context as Partial<KitContext>).$warden?.jobs[operation]?.attempt ?? 0;
}

function checksOf(name: string, guard: GuardDeclaration<never, EventDeclarations>): [string, Check<never, never>][] {
  return typeof guard === 'function'
    ? [[name, guard as unknown as Check<never, never>]]
    : (Object.entries(guard) as never);
}

/** Effect name → the state paths (dotted) whose `entry` names it, from a chart's config. */
function statesEntering(config: Loose, effects: readonly string[]): Record<string, string[]> {
  const found: Record<string, string[]> = Object.fromEntries(effects.map((name) => [name, []]));
  eachReference(config, (kind, name, at) => {
    const state = /^states\.(.+)\.entry$/.exec(at)?.[1];
    if (kind === 'action' && state !== undefined) found[name]?.push(state.split('.states.').join('.'));
  });
  return found;
}

/**
 * The backoff timers of a chart (`waiting: { after: { backoff: 'running' } }`) by timer id, each to
 * the operation whose job the state it leads to starts: the timer that retries that operation.
 */
function retryTimersOf(
  machine: AnyStateMachine,
  backoffNames: readonly string[],
  jobStates: Readonly<Record<string, readonly string[]>>,
  operations: Readonly<Record<string, string>>,
): Map<string, string> {
  const retries = new Map<string, string>();
  const visit = (node: AnyStateNode) => {
    for (const transition of node.after) {
      if (typeof transition.delay !== 'string' || !backoffNames.includes(transition.delay)) continue;
      for (const target of transition.target ?? []) {
        const path = target.path.join('.');
        const effect = Object.entries(jobStates).find(([, states]) =>
          states.some((state) => state === path || state.startsWith(`${path}.`)),
        )?.[0];
        const timer: string = String(transition.eventType);
        if (effect !== undefined) retries.set(timer, operations[effect] ?? effect);
      }
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return retries;
}

/** XState's `setup()` for a Warden workflow: give it the business parts, get `createMachine`. */
export function setup<
  TContext,
  TEvents extends EventDeclarations,
  TInput extends z.ZodObject,
  TDeps = object,
  TParams extends Record<string, unknown> = Record<string, unknown>,
  TGuard extends string = never,
  TUpdate extends string = never,
  TDelay extends string = never,
  TBackoff extends string = never,
>(spec: KitSpec<TContext, TEvents, TInput, TDeps, TParams, TGuard, TUpdate, TDelay, TBackoff>) {
  const effects = (spec.effects ?? {}) as Readonly<Record<string, EffectDeclaration<TContext, unknown, TDeps>>>;
  // Where the author declared each implementation: its pins fingerprint the author's source, not the kit's closures.
  const caller = callerModule([thisModule]);
  const declared = Object.fromEntries(
    authoredSections.map((section) => [section, Object.keys(spec[section] ?? {})]),
  ) as Record<AuthoredSection, string[]>;
  const authored = <T extends object>(
    implementation: T,
    section: AuthoredSection,
    name: string,
    member?: string,
  ): T => {
    // Without a caller its pins are unverifiable, never the kit's wrapper's.
    markAuthored(implementation, { module: '', ...caller, section, name, declared, ...(member ? { member } : {}) });
    return implementation;
  };
  const operations = Object.fromEntries(
    Object.keys(effects).map((name) => [name, operationOf(name, effects[name] ?? {})]),
  );
  const backoffNames = ['backoff', ...(spec.backoffDelays ?? [])];
  /** A job started by one of these timers is a retry. */
  /** Do all these checks pass for this context and event? */
  function allPass(
    checks: Readonly<Record<string, (context: unknown, event: AnyEnvelope) => boolean>>,
    context: unknown,
    event: AnyEnvelope,
  ): boolean {
    return Object.values(checks).every((check) => check(context, event));
  }

  const isBackoffTimer = (type: string) => backoffNames.some((name) => type.startsWith(`xstate.after.${name}.`));
  const byOperation = new Map(Object.entries(operations).map(([name, operation]) => [operation, name]));
  const bookOf = (context: unknown): JobBook =>
    (context as Partial<KitContext>).$warden ?? {
      workflowId: (context as { workflowId?: string }).workflowId ?? '',
      jobs: spec.legacyJobs?.(context as never) ?? {},
    };
  /**
   * The effect another attempt of which this event may lead to: the one whose failure it reports
   * (by its job id's operation), with the error, or one whose `retry.after` names it (no error).
   */
  const failed = (event: AnyEnvelope) => {
    const payload = event.payload as { jobId?: unknown } | undefined;
    const operation = typeof payload?.jobId === 'string' ? payload.jobId.split('/').at(-2) : undefined;
    const name = operation === undefined ? undefined : byOperation.get(operation);
    const declaration = name === undefined ? undefined : effects[name];
    const reports = declaration?.failure === event.type || declaration?.permanentFailure === event.type;
    const failing = declaration?.retry?.failingResults?.includes(event.type) === true;
    const error = reports
      ? failureError(payload, spec.events[event.type])
      : failing
        ? failureError(payload, { retryable: true })
        : null;
    if (name !== undefined && declaration && error) return { name, declaration, error };
    if (name !== undefined && declaration?.retry?.after?.includes(event.type)) return { name, declaration, error };
    const after = Object.entries(effects).find(([, d]) => d.retry?.after?.includes(event.type));
    return after ? { name: after[0], declaration: after[1], error: null } : null;
  };
  const policy = <T>(value: T | ((context: never) => T), context: unknown): T =>
    typeof value === 'function' ? (value as (context: unknown) => T)(context) : value;
  /** `answersTheJob`: the event names a job; with `params.effect`, that effect's last job. */
  function answersJob(context: unknown, event: AnyEnvelope, params: unknown): boolean {
    const jobId = (event.payload as { jobId?: unknown } | undefined)?.jobId;
    if (typeof jobId !== 'string') return false;
    const effect = (params as { effect?: unknown } | undefined)?.effect;
    if (effect === undefined) return true;
    const operation = typeof effect === 'string' ? operations[effect] : undefined;
    return operation !== undefined && bookOf(context).jobs[operation]?.id === jobId;
  }
  const retryChecks = {
    attemptsRemain: (context: unknown, event: AnyEnvelope) => {
      const f = failed(event);
      const job = f ? bookOf(context).jobs[operations[f.name] ?? ''] : undefined;
      return f !== null && job !== undefined && job.attempt < policy(f.declaration.retry?.maxAttempts ?? 1, context);
    },
    errorMayBeRetried: (_context: unknown, event: AnyEnvelope) => {
      const f = failed(event);
      return f !== null && (f.error === null || mayRetry(f.declaration, f.error.class, f.error.retryable));
    },
    retryAllowed: (context: unknown, event: AnyEnvelope) => {
      const when = failed(event)?.declaration.retry?.when;
      return when === undefined || when(context as TContext);
    },
  };

  const guards: Record<string, (args: { context: never; event: never }, params: never) => boolean> = {
    // No inline callback: its text must print the same from every compiler (the pins fingerprint it).
    canRetry: ({ context, event }) => allPass(retryChecks, context, event),
    /**
     * The failure's error is one another attempt may cure, attempts aside (`canRetry`'s
     * `errorMayBeRetried`): after `canRetry` refused, it tells attempts exhausted from an error no
     * attempt cures.
     */
    errorIsRetryable: ({ context, event }) => retryChecks.errorMayBeRetried(context, event),
    /**
     * The event names a job (the engine refuses one not in flight before the chart): a worker's dead
     * letter about the job a state waits for, where a person's hand-over does not count. With
     * `params: { effect }`, only that effect's current job: in a region of a parallel state, the
     * transitions on a failure event several effects share (XState hands it to every region) take
     * only their own effect's report. A job guard: its refusal is `STALE_JOB`.
     */
    answersTheJob: ({ context, event }, params) => answersJob(context, event, params),
  };
  const resultTypes = new Set(Object.keys(spec.events).filter((type) => spec.events[type]?.kind === 'result'));
  /**
   * The event as the author's guards, updates and delays see it: a result's payload without the
   * `jobId` the kit added (job ids are the platform's plumbing; the engine, the kit's own guards and
   * the audit read the event as sent), so `{ memo: event.payload }` stores no job id.
   */
  const authorsEvent = (event: AnyEnvelope): AnyEnvelope => {
    const payload = event.payload;
    if (spec.legacyJobs || !resultTypes.has(event.type) || typeof payload !== 'object' || payload === null)
      return event;
    if (!('jobId' in payload)) return event;
    const { jobId: _jobId, ...rest } = payload as Record<string, unknown>;
    return { ...event, payload: rest };
  };
  const authorsArgs = (args: { context: never; event: never }) =>
    ({ context: args.context, event: authorsEvent(args.event) }) as never;
  const checks = new Map<string, [string, Check<never, never>][]>();
  for (const [name, guard] of Object.entries(spec.guards ?? {})) {
    const list = checksOf(name, guard as GuardDeclaration<never, EventDeclarations>);
    checks.set(name, list);
    guards[name] = authored(
      (args, params) => list.every(([, check]) => check(authorsArgs(args), params)),
      'guards',
      name,
    );
  }

  const actions: Record<string, unknown> = { [jobMarkerAction]: () => undefined };
  for (const [name, update] of Object.entries(spec.updates ?? {})) {
    actions[name] = authored(
      assign(({ context, event }, params: Record<string, unknown> | undefined) =>
        (update as Update<never, EventDeclarations>)(authorsArgs({ context, event } as never), params),
      ),
      'updates',
      name,
    );
  }
  const inside = (path: string, scope: string) => path === scope || path.startsWith(`${scope}.`);
  /**
   * The action that starts effect `name`'s job, for a chart whose states start the effects as
   * `started` says (effect name → state paths): the budgets of `retry.within` scopes follow them.
   */
  const effectAction = (name: string, started: Readonly<Record<string, readonly string[]>>) => {
    const operation = operations[name] ?? name;
    const after = effects[name]?.retry?.after ?? [];
    const countsWithin = effects[name]?.retry?.within !== undefined;
    const startsInside = (effect: string, scope: string) => (started[effect] ?? []).some((path) => inside(path, scope));
    const scopes = [...new Set(Object.values(effects).map((d) => d.retry?.within))].filter(
      (scope): scope is string => scope !== undefined && startsInside(name, scope),
    );
    /**
     * The jobs, with the budgets set back of effects counting over a scope this start begins a new
     * visit of: only a start on an event the scope's effects name in `retry.renewOn` does (never a
     * timer, a report or any other event: a visit is not guessed, so no event re-arms the budget
     * unless the author said it may).
     */
    const visited = (event: AnyEnvelope, jobs: JobBook['jobs']): JobBook['jobs'] => {
      const fresh = scopes.filter((scope) =>
        Object.values(effects).some((d) => d.retry?.within === scope && d.retry.renewOn?.includes(event.type)),
      );
      if (fresh.length === 0) return jobs;
      const next = { ...jobs };
      for (const [other, d] of Object.entries(effects)) {
        const job = next[operations[other] ?? other];
        const within = d.retry?.within;
        if (job && within !== undefined && fresh.includes(within))
          next[operations[other] ?? other] = { ...job, attempt: 0 };
      }
      return next;
    };
    const start = enqueueActions(({ context, event, enqueue }) => {
      const book = bookOf(context);
      const jobs = visited(event, book.jobs);
      const previous = jobs[operation];
      const n = (previous?.n ?? 0) + 1;
      const retry = isBackoffTimer(event.type) || after.includes(event.type);
      // Counting over a scope, every start inside it is the next attempt: only `visited` (a start on
      // an event named in `renewOn`) set the budget back, so no other event re-arms it.
      const attempt = previous && (retry || countsWithin) ? previous.attempt + 1 : 1;
      const id = `${book.workflowId}/${operation}/${n}`;
      enqueue.assign({ $warden: { ...book, jobs: { ...jobs, [operation]: { id, n, attempt } } } });
      enqueue({ type: jobMarkerAction, params: { effect: name, jobId: id } });
    });
    return authored(start, 'effects', name);
  };
  for (const name of Object.keys(effects)) actions[name] = effectAction(name, {});

  const backoff = ({ context, event }: { context: unknown; event: AnyEnvelope }) => {
    const f = failed(event);
    if (!f) return defaultBackoff.initialIntervalMs;
    const operation = operations[f.name] ?? f.name;
    const book = bookOf(context);
    const attempt = book.jobs[operation]?.attempt ?? 1;
    return backoffDelay(
      policy(f.declaration.retry?.backoff ?? defaultBackoff, context),
      book.workflowId,
      operation,
      attempt,
    );
  };
  const delays: Record<string, unknown> = Object.fromEntries(backoffNames.map((name) => [name, backoff]));
  for (const [name, delay] of Object.entries(spec.delays ?? {})) {
    const ms = delay as (args: never) => number;
    delays[name] = authored((args: { context: never; event: never }) => ms(authorsArgs(args)), 'delays', name);
  }

  // The implementations are typed where the author writes them; XState holds them untyped here.
  const machines = xstateSetup({ guards, actions, delays } as unknown as Parameters<typeof xstateSetup>[0]);

  const explainGuard = (guard: string, context: unknown, event: unknown): string[] => {
    if (guard === 'errorIsRetryable')
      return retryChecks.errorMayBeRetried(context, event as AnyEnvelope) ? [] : [guard];
    if (guard === 'canRetry') {
      return Object.entries(retryChecks)
        .filter(([, check]) => !check(context, event as AnyEnvelope))
        .map(([name]) => name);
    }
    const list = checks.get(guard);
    if (!list) return [guard];
    const seen = authorsArgs({ context, event } as never);
    return list.filter(([, check]) => !check(seen, undefined)).map(([name]) => name);
  };

  const made = {
    /** The chart: a static config literal (guards, actions and delays by name), as the Stately editor writes it. */
    createMachine(
      config: KitChart<TContext, TEvents, (keyof TParams & string) | TUpdate, TGuard, TDelay | TBackoff>,
    ): KitMachine<TContext> {
      const jobStates = statesEntering(config, Object.keys(effects));
      const machine = (
        machines.createMachine({
          ...config,
          context: ({ input }: { input: z.infer<TInput> & EngineInput }) => ({
            ...spec.context(input),
            $warden: { workflowId: input.workflowId, jobs: {} },
          }),
        } as never) as unknown as AnyStateMachine
      ).provide({
        actions: Object.fromEntries(Object.keys(effects).map((name) => [name, effectAction(name, jobStates)])),
      });
      const currentJobs = (context: unknown, statePaths?: readonly string[]) => {
        const jobs: Record<string, string | undefined> = {};
        const book = bookOf(context);
        for (const [name, states] of Object.entries(jobStates)) {
          const operation = operations[name] ?? name;
          const job = book.jobs[operation];
          const active =
            statePaths === undefined ||
            states.some((state) => statePaths.some((path) => path === state || path.startsWith(`${state}.`)));
          if (job && active) jobs[operation] = job.id;
        }
        return jobs;
      };
      const retries = retryTimersOf(machine, backoffNames, jobStates, operations);
      const jobAttempts = (context: unknown, armedTimers: readonly string[]) => {
        const book = bookOf(context);
        const attempts: Record<string, JobAttempts> = {};
        for (const [name, declaration] of Object.entries(effects)) {
          const operation = operations[name] ?? name;
          const job = book.jobs[operation];
          if (!job) continue;
          attempts[operation] = {
            jobId: job.id,
            attempt: job.attempt,
            maxAttempts: policy(declaration.retry?.maxAttempts ?? 1, context),
            retryTimer: armedTimers.find((timer) => retries.get(timer) === operation) ?? null,
          };
        }
        return attempts;
      };
      const kit: Kit = {
        spec: spec as never,
        operations,
        jobStates,
        explainGuard,
        currentJobs,
        jobAttempts,
        authored,
        ...(caller ? { module: caller.module } : {}),
        createMachine: (chart: unknown) => made.createMachine(chart as never),
      };
      kits.set(machine, kit);
      kitMachines.set(kit, machine);
      return machine;
    },
  };
  return made;
}
