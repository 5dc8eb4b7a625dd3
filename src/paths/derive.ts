/**
 * The path model, derived from the definition where it can be: the payload variants of every event
 * come from its zod schema (a valid sample and refused ones), its principals from the roles allowed
 * to send it (one per role, the starter claims of the role included, and one of a role that is not
 * allowed), the job a result names from `currentJobs`, and a bounded digest of the context stands
 * in for `behaviour`. The author adds only the business facts that decide branches: named example
 * payloads per event type, more creation bodies, invariants, and a `behaviour` of their own when the
 * digest merges or splits too much. Versions that share the model (`versions`) read their jobs in
 * flight and try them on their own definitions.
 *
 * Variants of an event type, in a state that handles it:
 * - `valid` (the author's example named `valid`, else the sample), and `valid:<name>` for each other
 *   example, sent by the first role allowed (or the example's own principal);
 * - `as:<role>`: the valid payload sent by each other role allowed;
 * - `job:<operation>`: with several jobs in flight, the valid payload naming each (a job's result or
 *   an event with a `jobId`); `valid` names the one the decider takes (a trial), else the first;
 * - with `failingChecks`, `fails:<check>`: the valid event changed so that one named check of the
 *   guards it meets fails (`check-variants.ts`);
 * - refused ones: `wrongRole` (a role not allowed), `otherTenant` (a person of another tenant),
 *   `staleJob` (a result naming no job in flight), and the schema's invalid samples by name
 *   (`missing:<field>`, `wrongType:<field>`, `outOfBounds:<field>`, `badFormat:<field>`, `unknownField`).
 * A job's result is offered only while a job is in flight (its refused variants always).
 */
import { getNextTransitions } from 'xstate';
import { decideEvent, guardName } from '../engine/decider.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import { failingSides } from './check-variants.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import { definitionKey, isJobResultEvent, type WorkflowDefinition } from '../engine/definition.ts';
import { isWorker, workerRole, type ClaimValue, type Principal } from '../engine/principal.ts';
import { handledEventTypes } from '../definitions/define-workflow.ts';
import type {
  PathModel,
  PathObservation,
  ResolvedCatalogueEvent,
  TokenClaimSpec,
  WalkEvent,
} from '../definitions/workflow.ts';
import { invalidVariants, sampleValid, UnsampleableError, type InvalidSample } from './zod-sample.ts';
import { walkWorkflowId } from './walk.ts';

/** A payload an author lists because it decides a branch: a value, or one made from the context. */
export type ExamplePayload<TContext> =
  Record<string, unknown> | ((context: TContext, record: WorkflowRecord | undefined) => Record<string, unknown>);

export interface EventExample<TContext> {
  /** The payload; the schema's sample when absent (an example of a principal only). */
  payload?: ExamplePayload<TContext>;
  /** Who sends it: a role (its derived principal) or a principal; the first role allowed when absent. */
  principal?: string | Principal;
}

export interface DerivePathInput<TContext> {
  /** The definition the payloads, principals and refused variants are derived from (the latest version). */
  definition: WorkflowDefinition<TContext>;
  /**
   * Other versions that share the model (a bundle's released ones): a walk of one of them reads its
   * jobs in flight and tries its results on its own definition. Their schemas may differ from
   * `definition`'s: a payload the version refuses is an edge refused, as for any version.
   */
  versions?: readonly WorkflowDefinition<TContext>[];
  /** The bundle's roles (by what they do), as `WorkflowBundleSpec.roles`. */
  roles: Readonly<Record<string, string>>;
  /** The bundle's claims: each role's principal carries the starter value of every claim for it. */
  claims?: Readonly<Record<string, TokenClaimSpec>>;
  /** One or more creation bodies: the walk starts from each. */
  bodies: readonly Record<string, unknown>[];
  /** The role of the creator; the first of `createRoles` when absent. */
  creatorRole?: string;
  /** The tenant of the derived principals (default `acme`). */
  tenantId?: string;
  /** Business facts: named payloads per event type, tried before (instead of) the schema's sample. */
  examples?: Readonly<Record<string, Readonly<Record<string, EventExample<TContext>>>>>;
  /** The definition's invariants of one step; none when absent. */
  invariants?: (observation: PathObservation<TContext>) => string[];
  /**
   * The facts that decide what happens next (the walk tells it the jobs in flight and the active
   * states: `BehaviourFacts`); `digestContext` of the context when absent.
   */
  behaviour?: PathModel<TContext>['behaviour'];
  /**
   * Numbers (and digit runs of strings) above this are one value in the default behaviour (default 3),
   * but for the numbers of the bodies, the examples and the starter claims, kept as they are.
   */
  counterCap?: number;
  /**
   * Derive the failing side of each named check of an event's guards (`check-variants.ts`): a
   * variant `fails:<check>` per check that a small change of the valid payload or of its sender
   * makes fail in the walk's state. Off by default.
   */
  failingChecks?: boolean;
  finishedProbes?: readonly string[];
  defensiveTransitions?: readonly string[];
}

/** The derived principals: one per role, the workers' service, and the creator. */
export interface DerivedPrincipals {
  byRole: Readonly<Record<string, Principal>>;
  creator: Principal;
  /** The same role's person in another tenant. */
  otherTenant(role: string): Principal;
}

export const derivedWorker: Principal = { id: 'worker-1', tenantId: 'system', kind: 'service', roles: [workerRole] };

/** One principal per role of the bundle (and the worker), each with the starter claims of its role. */
export function derivePrincipals(
  input: Pick<DerivePathInput<unknown>, 'roles' | 'claims' | 'tenantId' | 'creatorRole'> & {
    definition: Pick<WorkflowDefinition, 'createRoles' | 'eventRoles'>;
  },
): DerivedPrincipals {
  const tenantId = input.tenantId ?? 'acme';
  const named = [
    ...Object.values(input.roles),
    ...Object.values(input.definition.eventRoles).flat(),
    ...input.definition.createRoles,
  ];
  const person = (role: string, tenant: string, id: string): Principal => {
    const claims: Record<string, ClaimValue> = {};
    for (const [claim, spec] of Object.entries(input.claims ?? {})) {
      if (spec.starter && Object.hasOwn(spec.starter, role)) claims[claim] = spec.starter[role] as ClaimValue;
    }
    return { id, tenantId: tenant, kind: 'user', roles: [role], ...(Object.keys(claims).length > 0 ? { claims } : {}) };
  };
  const byRole: Record<string, Principal> = {};
  for (const role of new Set(named)) {
    byRole[role] = role === workerRole ? derivedWorker : person(role, tenantId, `${role}-1`);
  }
  const creatorRole = input.creatorRole ?? input.definition.createRoles[0];
  const creator = creatorRole === undefined ? undefined : byRole[creatorRole];
  if (!creator) throw new Error('derivePathModel: no role may create the workflow');
  return { byRole, creator, otherTenant: (role) => person(role, `${tenantId}-other`, `${role}-9`) };
}

/**
 * A bounded digest of a context: keys sorted, the workflow id taken out of strings, numbers above
 * `cap` (and digit runs of strings above it: attempts in job ids, versions in keys) one value, lists
 * longer than `cap` cut to their first `cap` items and a marker; numbers in `keep` (the author's: those
 * of the creation bodies and examples, facts a branch may read) stay as they are. What it keeps may still split states
 * that behave alike (a text that changes on every step); what it merges may hide a branch that reads
 * an amount: a definition whose guards read such facts gives its own `behaviour`.
 */
export function digestContext(
  value: unknown,
  options: { workflowId?: string; cap?: number; keep?: ReadonlySet<number> } = {},
): unknown {
  const cap = options.cap ?? 3;
  const keep = options.keep ?? new Set<number>();
  const number = (n: number) =>
    Math.abs(n) <= cap || !Number.isFinite(n) || keep.has(n) ? n : n > 0 ? `>${cap}` : `<-${cap}`;
  const digest = (v: unknown, depth: number): unknown => {
    if (typeof v === 'number') return number(v);
    if (typeof v === 'string') {
      const id = options.workflowId;
      const plain = id ? v.split(id).join('<workflow>') : v;
      return plain.replace(/\d+/g, (run) => String(number(Number(run))));
    }
    if (typeof v !== 'object' || v === null) return v;
    if (depth > 8) return '…';
    if (Array.isArray(v)) {
      const items = v.slice(0, cap).map((item: unknown) => digest(item, depth + 1));
      return v.length > cap ? [...items, `+more`] : items;
    }
    const record = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, digest(record[key], depth + 1)]),
    );
  };
  return digest(value, 0);
}

interface EventPlan<TContext> {
  type: string;
  allowed: readonly string[];
  /** A job's result: sent by a worker with the job's lease. */
  result: boolean;
  /** The schema's object has a `jobId` field (optional or not). */
  jobId: 'required' | 'optional' | null;
  sample: Record<string, unknown> | null;
  problem: UnsampleableError | null;
  invalid: InvalidSample[];
  /** Variant name → example. */
  examples: Map<string, EventExample<TContext>>;
  /** Variant names of the valid payloads (examples first, else `valid`). */
  valid: string[];
  wrongRole: string | null;
  otherTenantRole: string | null;
}

function jobIdField(schema: unknown): EventPlan<unknown>['jobId'] {
  const shape = (schema as { shape?: Record<string, { safeParse(v: unknown): { success: boolean } }> }).shape;
  const field = shape && Object.hasOwn(shape, 'jobId') ? shape.jobId : undefined;
  if (!field) return null;
  return field.safeParse(undefined).success ? 'optional' : 'required';
}

const placeholderJob = 'wf_path/job/1';

function sampleOf(schema: Parameters<typeof sampleValid>[0], jobId: EventPlan<unknown>['jobId']) {
  try {
    return { sample: sampleValid(schema) as Record<string, unknown>, problem: null };
  } catch (error) {
    if (!(error instanceof UnsampleableError)) throw error;
    // The job id is filled in from the job in flight anyway: a pattern the sampler cannot read is no matter.
    if (jobId !== null && error.path === 'jobId') {
      try {
        return {
          sample: sampleValid(schema, { at: { jobId: placeholderJob } }) as Record<string, unknown>,
          problem: null,
        };
      } catch (again) {
        if (!(again instanceof UnsampleableError)) throw again;
        return { sample: null, problem: again };
      }
    }
    return { sample: null, problem: error };
  }
}

/** Derives the whole path model of a definition from its schemas and roles, and the author's facts. */
export function derivePathModel<TContext>(input: DerivePathInput<TContext>): PathModel<TContext> {
  const { definition } = input;
  const key = definitionKey(definition);
  const [body, ...bodies] = input.bodies;
  if (!body) throw new Error(`derivePathModel(${key}): give at least one creation body`);
  const principals = derivePrincipals(input);
  const roleNames = Object.keys(principals.byRole);
  const handled = new Set(handledEventTypes(definition.machine));
  const problems: string[] = [];
  const plans = new Map<string, EventPlan<TContext>>();
  for (const [type, schema] of Object.entries(definition.eventSchemas)) {
    const allowed = definition.eventRoles[type] ?? [];
    const result = isJobResultEvent(definition, type);
    const jobId = jobIdField(schema);
    const { sample, problem } = sampleOf(schema, jobId);
    const given = Object.entries(input.examples?.[type] ?? {});
    const examples = new Map(given.map(([name, example]) => [name === 'valid' ? 'valid' : `valid:${name}`, example]));
    // Refused payloads are made from the sample, else from the first example given as a value.
    const first = given[0]?.[1].payload;
    const base = sample ?? (first && typeof first === 'object' ? first : null);
    if (!base && handled.has(type)) {
      problems.push(
        `${type}: ${problem?.message ?? 'no sample'} (examples.${type}: a payload the schema accepts, as a value)`,
      );
    }
    const wrongRole = roleNames.find((role) => !allowed.includes(role) && (!result || role !== workerRole)) ?? null;
    const people = allowed.filter((role) => role !== workerRole);
    plans.set(type, {
      type,
      allowed,
      result,
      jobId,
      sample,
      problem,
      invalid: base ? invalidVariants(schema, base) : [],
      examples,
      valid: examples.size > 0 ? [...examples.keys()] : ['valid'],
      wrongRole,
      otherTenantRole: people[0] ?? null,
    });
  }
  for (const type of Object.keys(input.examples ?? {})) {
    if (!plans.has(type)) problems.push(`examples.${type}: ${type} is no event of the definition`);
  }
  if (problems.length > 0) {
    throw new Error(`derivePathModel(${key}) cannot derive every payload:\n- ${problems.join('\n- ')}`);
  }

  const versions = [definition, ...(input.versions ?? [])];
  /** The definition a record runs on: its own version's, else (no record, or one of no version given) `definition`. */
  const definitionOf = (record: WorkflowRecord | undefined): WorkflowDefinition<TContext> =>
    (record && versions.find((v) => v.id === record.definitionId && v.version === record.definitionVersion)) ??
    definition;
  const principalOf = (role: string | undefined): Principal =>
    (role === undefined ? undefined : principals.byRole[role]) ?? principals.creator;
  const inFlight = (context: TContext, record: WorkflowRecord | undefined): [string, string][] =>
    Object.entries(definitionOf(record).currentJobs(context, record?.statePaths)).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    );
  const workflowIdOf = (context: TContext, record: WorkflowRecord | undefined): string => {
    const fromContext = (context as { workflowId?: unknown } | null)?.workflowId;
    return record?.workflowId ?? (typeof fromContext === 'string' ? fromContext : walkWorkflowId);
  };

  const payloadOf = (
    plan: EventPlan<TContext>,
    example: EventExample<TContext> | undefined,
    context: TContext,
    record: WorkflowRecord | undefined,
  ): Record<string, unknown> => {
    const given = example?.payload;
    if (typeof given === 'function') return given(context, record);
    if (given) return structuredClone(given);
    return structuredClone(plan.sample ?? {});
  };
  const basePayload = (plan: EventPlan<TContext>, context: TContext, record: WorkflowRecord | undefined) =>
    payloadOf(plan, plan.examples.get(plan.valid[0] ?? 'valid'), context, record);

  /** The job the valid payload names: with several in flight, the first the decider takes. */
  const chosenJob = (
    plan: EventPlan<TContext>,
    payload: Record<string, unknown>,
    principal: Principal,
    jobs: [string, string][],
    record: WorkflowRecord | undefined,
  ): string | undefined => {
    if (jobs.length <= 1 || !record) return jobs[0]?.[1];
    for (const [, jobId] of jobs) {
      const decision = decideEvent({
        definition: definitionOf(record),
        record,
        event: { type: plan.type, eventId: 'derive/trial', payload: { ...payload, jobId } },
        principal,
        now: record.updatedAt,
        ...(plan.result ? { job: { jobId, lease: 'held' as const } } : {}),
      });
      if (decision.outcome === 'accepted') return jobId;
    }
    return jobs[0]?.[1];
  };

  /** The principal the valid payload is sent by: the example's own, else the first role allowed. */
  const validPrincipal = (plan: EventPlan<TContext>): Principal => {
    const own = plan.examples.get(plan.valid[0] ?? 'valid')?.principal;
    return typeof own === 'string' ? principalOf(own) : (own ?? principalOf(plan.allowed[0]));
  };
  /** The failing sides of the named checks of the guards `plan.type` meets in the record's state. */
  const sidesOf = (plan: EventPlan<TContext>, context: TContext, record: WorkflowRecord | undefined) => {
    if (!input.failingChecks || record?.status !== 'active') return [];
    const version = definitionOf(record);
    const snapshot = restoreSnapshot(version.machine, record.workflowId, record.snapshot);
    const guards = new Set<string>();
    for (const transition of getNextTransitions(snapshot)) {
      const name = transition.eventType === plan.type ? guardName(transition.guard) : null;
      if (name !== null) guards.add(name);
    }
    const schema = version.eventSchemas[plan.type];
    if (guards.size === 0 || !schema) return [];
    return failingSides({
      payload: basePayload(plan, context, record),
      principal: validPrincipal(plan),
      creator: principals.creator,
      accepts: (payload) => schema.safeParse(plan.jobId ? { jobId: placeholderJob, ...payload } : payload).success,
      failing: (payload, actor) => {
        const event = { type: plan.type, eventId: 'derive/check', payload, actor, at: record.updatedAt };
        return [...guards].flatMap((guard) => version.explainGuard(guard, context, event));
      },
    });
  };

  const events: PathModel<TContext>['events'] = ({ record, handled: types, context }) => {
    const out: WalkEvent[] = [];
    for (const type of types) {
      const plan = plans.get(type);
      if (!plan) continue;
      const jobs = plan.jobId ? inFlight(context, record) : [];
      const names: string[] = [];
      if (!(plan.result && plan.jobId) || jobs.length > 0) {
        names.push(...plan.valid);
        if (jobs.length > 1) names.push(...jobs.map(([operation]) => `job:${operation}`));
        names.push(...plan.allowed.slice(1).map((role) => `as:${role}`));
        names.push(...sidesOf(plan, context, record).map((side) => `fails:${side.check}`));
      }
      if (plan.wrongRole) names.push('wrongRole');
      if (plan.otherTenantRole) names.push('otherTenant');
      if (plan.result && plan.jobId) names.push('staleJob');
      names.push(...plan.invalid.map((s) => s.name));
      out.push(...names.map((variant) => ({ type, variant })));
    }
    return out;
  };

  const resolve: PathModel<TContext>['resolve'] = (event, context, record): ResolvedCatalogueEvent => {
    const plan = plans.get(event.type);
    if (!plan) return { type: event.type, payload: {}, principal: principals.creator };
    const { variant } = event;
    let principal = principalOf(plan.allowed[0]);
    let payload: Record<string, unknown>;
    const invalid = plan.invalid.find((s) => s.name === variant);
    const example = plan.examples.get(variant);
    const side = variant.startsWith('fails:')
      ? sidesOf(plan, context, record).find((s) => `fails:${s.check}` === variant)
      : undefined;
    if (invalid) payload = structuredClone(invalid.value) as Record<string, unknown>;
    else if (side) {
      payload = structuredClone(side.payload);
      principal = side.principal;
    } else if (example) {
      payload = payloadOf(plan, example, context, record);
      if (typeof example.principal === 'string') principal = principalOf(example.principal);
      else if (example.principal) principal = example.principal;
    } else payload = basePayload(plan, context, record);
    if (variant.startsWith('as:')) principal = principalOf(variant.slice(3));
    if (variant === 'wrongRole') principal = principalOf(plan.wrongRole ?? undefined);
    if (variant === 'otherTenant' && plan.otherTenantRole) principal = principals.otherTenant(plan.otherTenantRole);
    const jobs = plan.jobId ? inFlight(context, record) : [];
    const touchesJobId = invalid !== undefined && (invalid.path === 'jobId' || invalid.path.startsWith('jobId.'));
    // A refused payload may be no object at all (`wrongType`): it is sent as it is.
    const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    if (plan.jobId && !touchesJobId && isObject(payload)) {
      let jobId: string | undefined;
      if (variant === 'staleJob') {
        jobId = `${workflowIdOf(context, record)}/${jobs[0]?.[0] ?? 'job'}/99`;
      } else if (variant.startsWith('job:')) {
        jobId = jobs.find(([operation]) => operation === variant.slice(4))?.[1];
      } else if (event.type === definition.deadLetterEvent && !isWorker(principal)) {
        // A person's hand-over names no job: only a worker gives one up (the decider refuses it otherwise).
        jobId = undefined;
      } else jobId = chosenJob(plan, payload, principal, jobs, record);
      if (jobId !== undefined) payload.jobId = jobId;
      else if (plan.jobId === 'optional') delete payload.jobId;
    }
    return { type: event.type, payload, principal };
  };

  const cap = input.counterCap ?? 3;
  // The numbers the author gave (amounts of the bodies, limits of the examples) may decide a branch: kept.
  const keep = new Set<number>();
  const collect = (v: unknown, depth = 0): void => {
    if (typeof v === 'number') keep.add(v);
    else if (typeof v === 'object' && v !== null && depth < 8)
      Object.values(v).forEach((x) => {
        collect(x, depth + 1);
      });
  };
  input.bodies.forEach((b) => {
    collect(b);
  });
  for (const byName of Object.values(input.examples ?? {})) {
    for (const example of Object.values(byName)) if (typeof example.payload === 'object') collect(example.payload);
  }
  for (const spec of Object.values(input.claims ?? {})) collect(spec.starter);
  return {
    body,
    ...(bodies.length > 0 ? { bodies } : {}),
    creator: principals.creator,
    events,
    resolve,
    invariants: input.invariants ?? (() => []),
    behaviour:
      input.behaviour ?? ((context, record) => digestContext(context, { workflowId: record.workflowId, cap, keep })),
    ...(input.finishedProbes ? { finishedProbes: input.finishedProbes } : {}),
    ...(input.defensiveTransitions ? { defensiveTransitions: input.defensiveTransitions } : {}),
  };
}
