/**
 * Drives one workflow through the pure decider, the way the engine will: keeps the record, the
 * effects requested, the armed timers and the audit trail, with a clock the test moves.
 */
import { getNextTransitions } from 'xstate';
import { attemptOf } from '../../src/authoring/setup.ts';
import { supportV2 } from '../../machines/support/index.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import type { SupportConfig, SupportContext } from '../../machines/support/support.context.ts';
import type { SupportEventType } from '../../machines/support/support.events.ts';
import { decideCreate, decideEvent, decideTimer } from '../../src/engine/decider.ts';
import type { Accepted, AuditEntry, Decision, Effect, WorkflowRecord } from '../../src/engine/decision.ts';
import type { Principal } from '../../src/engine/principal.ts';
import { restoreSnapshot } from '../../src/engine/snapshot.ts';
import { payloadFor } from './payloads.ts';
import { principalFor, principals } from './principals.ts';
import { heldJob } from './job-results.ts';

export const t0 = Date.UTC(2026, 10, 30, 9, 0, 0);

export interface CreateOptions {
  /** The definition to run; the latest by default. */
  definition?: WorkflowDefinition;
  workflowId?: string;
  config?: Partial<SupportConfig>;
  principal?: Principal;
}

export class Harness {
  readonly effects: Effect[] = [];
  readonly audit: AuditEntry[] = [];
  now = t0;
  private seq = 0;

  private constructor(
    public record: WorkflowRecord,
    readonly definition: WorkflowDefinition,
  ) {}

  static create(options: CreateOptions = {}): Harness {
    const definition = options.definition ?? supportV2;
    const decision = decideCreate({
      definition,
      workflowId: options.workflowId ?? 'wf-1',
      body: {
        request: { customerId: 'cust-1', subject: 'Charged twice', message: 'I was charged twice for March.' },
        config: options.config ?? {},
      },
      principal: options.principal ?? principals.agent,
      eventId: 'create-1',
      now: t0,
    });
    if (decision.outcome !== 'accepted') throw new Error(`creation refused: ${decision.message}`);
    const harness = new Harness(decision.record, definition);
    harness.take(decision);
    return harness;
  }

  get context(): SupportContext {
    return restoreSnapshot(this.definition.machine, this.record.workflowId, this.record.snapshot)
      .context as SupportContext;
  }

  /** The jobs in flight by operation. */
  get jobs(): Record<string, string | undefined> {
    return this.definition.currentJobs(this.context, this.record.statePaths);
  }

  /** The attempt of `operation`'s last job in its step (the kit's count). */
  attempt(operation: string): number {
    return attemptOf(this.context, operation);
  }

  get paths(): string[] {
    return this.record.statePaths;
  }

  /** Event types the current state has a transition for (guards not evaluated), timer events excluded. */
  possibleEvents(): SupportEventType[] {
    if (this.record.status !== 'active') return [];
    const snapshot = restoreSnapshot(this.definition.machine, this.record.workflowId, this.record.snapshot);
    const types = getNextTransitions(snapshot).map((t) => t.eventType as string);
    return [...new Set(types)].filter((type): type is SupportEventType => type in this.definition.eventSchemas);
  }

  /** Sends an event with the catalogue's payload for the current context, overridden by `patch`. */
  send(type: string, patch: Record<string, unknown> = {}, principal?: Principal): Decision {
    const base =
      type in this.definition.eventSchemas ? payloadFor(type as SupportEventType, this.context, this.paths) : {};
    const sender = principal ?? principalFor(type);
    const payload = { ...base, ...patch };
    const job = heldJob(this.definition, type, payload, sender);
    const decision = decideEvent({
      definition: this.definition,
      record: this.record,
      event: { type, eventId: `evt-${++this.seq}`, payload },
      principal: sender,
      now: this.now,
      ...(job ? { job } : {}),
    });
    this.take(decision);
    return decision;
  }

  /** Sends an event that must be accepted. */
  ok(type: SupportEventType, patch: Record<string, unknown> = {}, principal?: Principal): Accepted {
    const decision = this.send(type, patch, principal);
    if (decision.outcome !== 'accepted') {
      throw new Error(`${type} refused in ${this.paths.join(', ')}: ${decision.code} ${decision.message}`);
    }
    return decision;
  }

  /** The armed timer whose delay is `delay`, e.g. `approvalTimeout`. */
  timer(delay: string): { id: string; generation: number; dueAt: number } | undefined {
    const entry = Object.entries(this.record.timers).find(([id]) => id.startsWith(`xstate.after.${delay}.`));
    return entry ? { id: entry[0], ...entry[1] } : undefined;
  }

  /** Moves the clock to the timer's due time and fires it. */
  fire(delay: string): Decision {
    const timer = this.timer(delay);
    if (!timer) throw new Error(`no ${delay} timer armed in ${this.paths.join(', ')}`);
    this.now = Math.max(this.now, timer.dueAt);
    return this.fireTimer(timer.id, timer.generation);
  }

  fireTimer(id: string, generation: number): Decision {
    const decision = decideTimer({
      definition: this.definition,
      record: this.record,
      timer: { id, generation },
      eventId: `timer-${++this.seq}`,
      now: this.now,
    });
    this.take(decision);
    return decision;
  }

  private take(decision: Decision): void {
    this.audit.push(decision.audit);
    if (decision.outcome === 'accepted') {
      this.record = decision.record;
      this.effects.push(...decision.effects);
    }
  }

  // The happy path, step by step.
  start() {
    return this.ok('START');
  }
  classify(patch: Record<string, unknown> = {}) {
    return this.ok('CLASSIFIED', patch);
  }
  gather() {
    this.ok('POLICY_RETRIEVED');
    return this.ok('ACCOUNT_INSPECTED');
  }
  recommend(patch: Record<string, unknown> = {}) {
    return this.ok('RECOMMENDATION_GENERATED', patch);
  }
  /** Policy validation, and the fraud screen where the definition has one. */
  validate() {
    const valid = this.ok('POLICY_VALID');
    return this.paths[0]?.startsWith('beforeAction.screeningFraud') ? this.ok('FRAUD_CLEARED') : valid;
  }
  approve(principal: Principal = principals.approver) {
    return this.ok('APPROVED', {}, principal);
  }
  execute() {
    return this.ok('ACTION_EXECUTED');
  }
  notify() {
    return this.ok('CUSTOMER_NOTIFIED');
  }

  toAwaitingApproval(): this {
    this.start();
    this.classify();
    this.gather();
    this.recommend();
    this.validate();
    return this;
  }

  toExecuting(): this {
    this.toAwaitingApproval();
    this.approve();
    return this;
  }
}
