/**
 * The plug-in unit of Warden: one workflow, bundled by `defineWorkflow` from its own folder and
 * handed to the system at the composition root. The platform (engine, runtime, API, console, path
 * generator, Stately tooling) reads a workflow only through this contract; it never imports one.
 */
import type { z } from 'zod';
import type { AuditEntry, Decision, WorkflowRecord } from '../engine/decision.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';
import type { SnapshotMigration } from '../engine/migrate.ts';
import type { ClaimValue, Principal } from '../engine/principal.ts';
import type { EffectHandler } from '../effects/effect.ts';
import type { ModelClient } from '../effects/model-client.ts';
import type { Notifier } from '../effects/notifier.ts';
import type { RedisClient } from '../store/redis/connect.ts';
import type { DeclaredEventPresentation } from './event-presentation.ts';
import type { Rendered } from './present-over.ts';

/** What the platform hands every workflow's adapters and effect handlers. */
export interface PlatformAdapters {
  /** The configured model: the offline local model by default, or an OpenAI-compatible endpoint. */
  model: ModelClient;
  notifier: Notifier;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** The timeout of one effect call of this operation, ms. */
  timeoutMs: (operation: string) => number;
  /** The Redis connection when the store is Redis (ledgers that must survive a crash); null on the memory store. */
  redis: RedisClient | null;
  /**
   * The key prefix of this deployment (`WARDEN_PREFIX`, e.g. `warden`), with no separator after it:
   * a workflow's own keys are built with `key`, not by appending to it.
   */
  prefix: string;
  /**
   * A Redis key of this workflow's own: `key('ledger', id)` is `<prefix>:{<definition id>}:ledger:<id>`
   * (the definition's, `loan`, not one workflow's), each part encoded, the definition's id the hash
   * tag (one slot on Redis Cluster), never another workflow's or Warden's keys.
   */
  key: (...parts: string[]) => string;
}

/** One event of a generated path: an event type (or an armed timer's id) and a payload variant. */
export interface WalkEvent {
  type: string;
  variant: string;
}

/** A catalogue event resolved against the workflow's context: who sends which payload. */
export interface ResolvedCatalogueEvent {
  type: string;
  payload: Record<string, unknown>;
  principal: Principal;
}

/** One step the path generator took, as a definition's invariants see it. */
export interface PathObservation<TContext> {
  before: WorkflowRecord;
  decision: Decision;
  /** Context after the step (before the step when refused). */
  context: TContext;
  /** Every accepted audit entry of the walk so far, this step's included. */
  trail: readonly AuditEntry[];
}

/** What the path generator needs from a definition beyond its chart. */
export interface PathModel<TContext = never> {
  /** The caller's creation body of the generated workflows (the first start of the walk). */
  body: Record<string, unknown>;
  /**
   * More creation bodies: the walk starts from `body` and from each of these (one equal to `body`
   * is skipped), so a branch decided by the input is reached from the body that takes it.
   */
  bodies?: readonly Record<string, unknown>[];
  /** Who creates the generated workflows. */
  creator: Principal;
  /**
   * The catalogue events to try in a state: every payload variant (valid and refused) of the event
   * types the state handles (`handled`, guards not evaluated). The platform adds both firings of
   * every armed timer and probes (an unknown type, an unhandled type, and events to finished workflows).
   */
  events(args: { record: WorkflowRecord; handled: readonly string[]; context: TContext }): WalkEvent[];
  /** The payload and principal of a catalogue event in this context (of this record: the walk passes it). */
  resolve(event: WalkEvent, context: TContext, record?: WorkflowRecord): ResolvedCatalogueEvent;
  /** The definition's invariants of one step (the platform checks versions, job ids and finished workflows). */
  invariants(observation: PathObservation<TContext>): string[];
  /**
   * The facts of the context that decide which events are taken next, beyond status, state paths
   * and armed timers, which the platform always includes. Must be bounded: no counters that only grow.
   * The walk always passes `facts`, what it knows of the record besides its context (a test calling
   * a model itself may leave them out).
   */
  behaviour(context: TContext, record: WorkflowRecord, facts?: BehaviourFacts): unknown;
  /** Event types sent (valid) to a finished workflow, which must not change; default every type people may send. */
  finishedProbes?: readonly string[];
  /** Transitions of the config no event can take, kept on purpose as safety nets (their labels). */
  defensiveTransitions?: readonly string[];
}

/** What a path model's `behaviour` is told of a walk's record besides its context. */
export interface BehaviourFacts {
  /** The jobs in flight, by operation, as the record's version keeps them (its `currentJobs` over the active states). */
  jobs: Readonly<Record<string, string | undefined>>;
  /** Is `state` (a dotted path) or a state inside it active? */
  within: (state: string) => boolean;
}

/** A state people work from: the console lists it and the API pages it. */
export interface QueueSpec {
  /** A leaf state path, e.g. `beforeAction.awaitingApproval`. */
  state: string;
  title: string;
}

/** What the console shows of a workflow, from its definition: the console's code names no workflow. */
export interface Presentation {
  /**
   * The evidence card: what a person decides from, in order. A `supporting` fact (a model's
   * rationale) is shown as supporting information, not proof.
   */
  facts: { label: string; value: string; supporting?: true }[];
  /** Payload fields the console fills in itself, by event type (what the person decides on: versions, hashes). */
  prefill: Record<string, Record<string, unknown>>;
  /** What the confirmation dialog says before an event type is sent. */
  confirm: Record<string, string>;
  /** What the latest accepted event of a type brought in, for the audit timeline. */
  artifacts: Record<string, string>;
}

/** What a caller sees of a workflow beyond the platform's fields (id, state, version, allowed events, timers). */
export interface WorkflowView<TContext> {
  /** Describes what `render` returns, for the OpenAPI document. */
  schema: z.ZodType;
  render(context: TContext, record: WorkflowRecord): Record<string, unknown>;
  /** A short line for queue listings (customer, amount, reason...), from the context. */
  summary?(context: TContext, record: WorkflowRecord): Record<string, unknown>;
  /** Describes what `summary` returns, for the OpenAPI document (required with `summary`). */
  summarySchema?: z.ZodType;
  /**
   * What the console shows and pre-fills; returned in the API view as `presentation`. `rendered` is
   * given only to a `present` marked as built over this view's `render` (`presentOver`, as
   * `presentFromSpec` marks it): what `render` returned for the same context and record.
   */
  present?(context: TContext, record: WorkflowRecord, rendered?: Rendered): Presentation;
  /**
   * How each event is shown, by type: its button's `label`, `kind` (`primary`, `danger`, `neutral`)
   * and `description`. The API gives every event one (an event left out: its type in words,
   * neutral); presentation only, no part of a version or of what a release pins.
   */
  events?: Readonly<Record<string, DeclaredEventPresentation>>;
}

/** A claim a workflow reads from its callers' tokens. */
export interface TokenClaimSpec {
  /** What the claim grants, for `warden token --help` and the README. */
  description: string;
  /** The value the starter tokens `warden serve` prints carry, by role; none for a role not listed. */
  starter?: Readonly<Record<string, ClaimValue>>;
}

/** A local, offline answer to a model task: deterministic rules standing in for a model. */
export type LocalModelRule = (input: unknown) => unknown;

/** A human decision the demo takes: the event, its payload, who sends it, and what to print. */
export interface DemoDecision {
  type: string;
  payload: Record<string, unknown>;
  principal: Principal;
  /** What the person saw, printed before the event is sent. */
  note: string;
}

/** How `warden demo --definition <id>` drives one workflow to its end. */
export interface DemoScript<TContext> {
  /** The creation input, given the time now (ms since the epoch). */
  input: (now: number) => Record<string, unknown>;
  creator: Principal;
  /** The person's decision in this state (an approval...), or null while the runtime works. */
  decide(context: TContext, record: WorkflowRecord): DemoDecision | null;
  /** The final state a successful demo ends in (`completed` by default): `warden demo` exits 1 elsewhere. */
  finalState?: string;
}

export interface WorkflowBundleSpec<TContext, TAdapters extends object> {
  /** The definition's id: letters, digits and dashes (`agent-task`). */
  id: string;
  title: string;
  description: string;
  /** Every registered version, oldest first; the last is what new workflows start on. */
  versions: readonly WorkflowDefinition<TContext>[];
  /** Explicit migrations between registered versions (`support@1` → `support@2`). */
  migrations?: readonly SnapshotMigration[];
  /** The caller's creation input (what `POST /v1/workflows` takes as `input`). */
  createSchema: z.ZodType;
  /** Roles of this workflow by what they do (for documentation, tokens and the console). */
  roles: Readonly<Record<string, string>>;
  /**
   * The token claims beyond the standard ones this workflow reads (`principal.claims`), by name. Its
   * guards validate them; this says what each means and what the starter tokens carry.
   */
  claims?: Readonly<Record<string, TokenClaimSpec>>;
  /** Builds the adapters only this workflow uses (its provider, its account service...). */
  adapters?: (platform: PlatformAdapters) => TAdapters;
  /** One handler factory per effect type the definition requests. */
  handlers: Readonly<Record<string, (deps: PlatformAdapters & TAdapters) => EffectHandler>>;
  /** Offline answers for the model tasks this workflow asks, by task name. */
  localModel?: Readonly<Record<string, LocalModelRule>>;
  view: WorkflowView<TContext>;
  queues: readonly QueueSpec[];
  paths: PathModel<TContext>;
  demo: DemoScript<TContext>;
}

/** A checked workflow bundle, as the platform consumes it. */
export interface WorkflowBundle<TContext = never, TAdapters extends object = object> extends WorkflowBundleSpec<
  TContext,
  TAdapters
> {
  migrations: readonly SnapshotMigration[];
  /** The newest version. */
  latest: WorkflowDefinition<TContext>;
}

/**
 * A workflow bundle the platform can hold in a list whatever its context type. Definitions are
 * typed where they are written; the platform reads their contexts as opaque data.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyWorkflowBundle = WorkflowBundle<any, any>;
