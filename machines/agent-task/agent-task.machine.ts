/**
 * An agent's task, from proposal to execution (seed 002): the model proposes, code validates, a
 * person approves that plan version, and it executes once. Default deny; no I/O in this file.
 */
import { z } from 'zod';
import { contentHash, text } from '../../src/definitions/event-fields.ts';
import { attemptOf, deadLetter, decisionChecks, event, failure, result, setup } from '../../src/authoring/index.ts';
import { executionAfter, jobsFromCounts, ledgerEventDeclarations, spendingOf } from '../../src/authoring/index.ts';
import { modelBudgetExhausted, operationReceipt, proposalFields, type EngineInput } from '../../src/authoring/index.ts';
import { deciderOf, escalationOf, nextProposal } from '../../src/authoring/index.ts';
import { agentTaskConfigSchema, agentTaskCreateSchema, completedChecks, dataAsOfMs } from './context.ts';
import { operations, refusedPlanHashesOf, validationOf, type AgentTaskContext as Context } from './context.ts';
import { executeOperation, operationEvents, reconcileOperation, requestPlan, voidOperation } from './effects.ts';

export const roles = {
  requester: 'task_requester',
  approver: 'task_approver',
  reviewer: 'task_reviewer',
  worker: 'worker',
};

const planned = { operation: text(100), parameters: z.record(z.string().max(100), z.unknown()), rationale: text(4000) };
const decision = { planVersion: z.number().int().positive(), planHash: contentHash };
const note = { note: text(2000) };
const withRefused = (c: Context, hash: string) =>
  refusedPlanHashesOf(c).includes(hash) ? {} : { refusedPlanHashes: [...refusedPlanHashesOf(c), hash] };
/** Never requested, or the only key used was fenced with nothing under it. */
const executionCannotHaveHappened = ({ context: c }: { context: Context }) =>
  c.execution.status === 'notStarted' || c.execution.status === 'voided';
const planIsValid = ({ context }: { context: Context }) => completedChecks.planValidated(context);
const approverChecks = decisionChecks({ subject: 'plan', decider: 'approver', role: roles.approver });

export const agentTaskMachine = setup({
  input: agentTaskCreateSchema,
  context: ({ task, config, ...engine }: z.infer<typeof agentTaskCreateSchema> & EngineInput): Context => ({
    ...engine,
    task,
    config: agentTaskConfigSchema.parse(config ?? {}),
    ...{ plan: null, validation: null, approval: null, rejection: null, cancellation: null, escalation: null },
    execution: { status: 'notStarted', idempotencyKey: null, planVersion: null, receipt: null, failure: null },
  }),
  events: {
    PLAN_PROPOSED: result(proposalFields('plan', planned)),
    PLAN_FAILED: failure({ flat: true }),
    APPROVED: event(
      { ...decision, comment: text(2000).optional() },
      {
        roles: [roles.approver],
        label: 'Approve plan',
        kind: 'primary',
        description: 'Approve this version of the plan; its operation then runs.',
      },
    ),
    REJECTED: event(
      { ...decision, reason: text(2000) },
      {
        roles: [roles.approver],
        label: 'Reject plan',
        kind: 'danger',
        description: 'Refuse the plan, with your reason.',
      },
    ),
    ...ledgerEventDeclarations('OPERATION', operationReceipt),
    CANCEL_REQUESTED: event(
      { reason: text(2000) },
      { roles: [roles.requester, roles.approver, roles.reviewer], label: 'Cancel task', kind: 'danger' },
    ),
    ESCALATE: deadLetter({
      roles: [roles.requester],
      label: 'Escalate',
      kind: 'neutral',
      description: 'Hand the task to a reviewer.',
    }),
    REPLAN: event(note, {
      roles: [roles.reviewer],
      label: 'Plan again',
      kind: 'neutral',
      description: 'Ask the model for a new plan.',
    }),
    RECONCILE: event(note, {
      roles: [roles.reviewer],
      label: 'Reconcile operation',
      kind: 'neutral',
      description: 'Find out whether the operation took effect.',
    }),
  },
  effects: { requestPlan, executeOperation, reconcileOperation, voidOperation },
  backoffDelays: ['planBackoff', 'executionRetryDelay'],
  /** Before the kit, the context counted jobs per operation (`attempts`), per planning visit and per plan. */
  legacyJobs: (c) => {
    const old = c as Context & { attempts?: Record<string, number>; planAttempts?: number };
    const execute = (c.execution as { attempts?: number }).attempts ?? 1;
    return jobsFromCounts(c.workflowId, old.attempts, { plan: old.planAttempts ?? 1, execute });
  },
  guards: {
    modelBudgetExhausted: ({ context }) => modelBudgetExhausted(context),
    isRepeatedPlan: ({ context, event: e }) =>
      e.type === 'PLAN_PROPOSED' && refusedPlanHashesOf(context).includes(e.payload.planHash),
    planIsValid,
    approverMayDecide: approverChecks,
    approvalIsCurrentAndAuthorized: {
      ...approverChecks,
      validationPassedForCurrentPlan: planIsValid,
      /** Validation checked the data at proposal time; an approval may come days later: within `maxDataAgeMs` of it. */
      evidenceIsStillFresh: ({ context: c, event: e }) => (dataAsOfMs(c) ?? -Infinity) + c.config.maxDataAgeMs >= e.at,
      operationIsReversibleOrRecoverable: ({ context }) =>
        operations.isReversibleOrRecoverable(context.plan?.operation),
    },
    cancellationAllowed: {
      cancellerMayCancel: ({ context: c, event: { actor: a } }) =>
        a.tenantId === c.tenantId &&
        (a.roles.includes(roles.approver) ||
          a.roles.includes(roles.reviewer) ||
          (a.roles.includes(roles.requester) && a.id === c.requesterId)),
      executionCannotHaveHappened,
    },
    /** A worker about its own job in flight (the engine refuses stale ids), or the requester in person. */
    escalationIsAuthorised: ({ context, event: e }) =>
      typeof (e.payload as { jobId?: unknown } | undefined)?.jobId === 'string' ||
      (e.actor.id === context.requesterId && e.actor.roles.includes(roles.requester)),
    executionCannotHaveHappened,
    executionOutcomeUncertain: ({ context }) => ['inFlight', 'unknown', 'notFound'].includes(context.execution.status),
    executionWasVoided: ({ context }) => context.execution.status === 'voided',
  },
  updates: {
    recordModelUsage: ({ context: c, event: e }) => (e.type === 'PLAN_PROPOSED' ? spendingOf(c, e.payload.usage) : {}),
    recordPlan: ({ context: c, event: e }) => {
      if (e.type !== 'PLAN_PROPOSED') return {};
      const plan = nextProposal(c.plan, 'plan', e.payload, e.at);
      const validation = validationOf(plan, c, e.at);
      return { plan, validation, approval: null, rejection: null, ...(validation.ok ? {} : withRefused(c, plan.hash)) };
    },
    /** A plan sent back before any approval is refused with it (an approved, fenced one may come again). */
    recordReplan: ({ context: c }) =>
      !c.plan || c.approval?.planVersion === c.plan.version ? {} : withRefused(c, c.plan.hash),
    recordApproval: ({ event: e }) => {
      if (e.type !== 'APPROVED') return {};
      const approver = deciderOf(e.actor, 'approver');
      return { approval: { ...approver, ...e.payload, comment: e.payload.comment ?? null, at: e.at } };
    },
    recordRejection: ({ context: c, event: e }) =>
      e.type !== 'REJECTED'
        ? {}
        : { ...withRefused(c, e.payload.planHash), rejection: { by: e.actor.id, ...e.payload, at: e.at } },
    recordCancellation: ({ event: e }) => ({
      cancellation: { by: e.actor.id, reason: e.type === 'CANCEL_REQUESTED' ? e.payload.reason : e.type, at: e.at },
    }),
    escalate: ({ context: c, event: e }, params) => ({ escalation: escalationOf(e, params, c.execution.failure) }),
    closeEscalation: () => ({ escalation: null }),
    /** The plan version's key, kept across retries; a fresh one per attempt once it was fenced. */
    startExecution: ({ context: c }) => {
      const [x, planVersion] = [c.execution, c.plan?.version ?? 0];
      const planKey = `agent-task:${c.workflowId}:plan-v${planVersion}`;
      const fenced = x.status === 'voided' ? `${planKey}:attempt-${attemptOf(c, 'execute')}` : x.idempotencyKey;
      const idempotencyKey = x.planVersion === planVersion ? (fenced ?? planKey) : planKey;
      return { execution: { ...x, status: 'inFlight' as const, idempotencyKey, planVersion, failure: null } };
    },
    recordExecution: ({ context: c, event: e }) => ({ execution: executionAfter(c.execution, operationEvents, e) }),
  },
  delays: { approvalTimeout: ({ context }) => context.config.approvalTimeoutMs },
}).createMachine({
  id: 'agentTask',
  description:
    'An agent task: a model proposes a plan, code validates it, a person approves that exact version, and it executes once under one idempotency key.',
  initial: 'created',
  states: {
    created: {
      description: 'Accepted; nothing planned yet.',
      on: {
        START: 'planning',
        CANCEL_REQUESTED: { guard: 'cancellationAllowed', target: 'cancelled', actions: 'recordCancellation' },
      },
    },
    planning: {
      description: 'A model proposes a plan (operation, parameters, rationale); a proposal grants no authority.',
      initial: 'checkingBudget',
      on: {
        CANCEL_REQUESTED: { guard: 'cancellationAllowed', target: 'cancelled', actions: 'recordCancellation' },
        ESCALATE: {
          guard: 'escalationIsAuthorised',
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'ESCALATED', step: 'planning' } },
          description: 'The requester, or a worker giving up on the plan job (or on invalid model output twice).',
        },
      },
      states: {
        checkingBudget: {
          description: 'Transient: before each planning call, the model budget (tokens, cost) must not be spent.',
          always: [
            {
              guard: 'modelBudgetExhausted',
              target: '#agentTask.escalated',
              actions: { type: 'escalate', params: { reason: 'MODEL_BUDGET_EXHAUSTED', step: 'planning' } },
              description: 'Budget spent: no further model call.',
            },
            { target: 'attempting' },
          ],
        },
        attempting: {
          description: 'A planning job is in flight.',
          entry: 'requestPlan',
          on: {
            PLAN_PROPOSED: [
              {
                guard: 'isRepeatedPlan',
                target: '#agentTask.escalated',
                actions: [
                  'recordModelUsage',
                  { type: 'escalate', params: { reason: 'REPEATED_OUTPUT', step: 'planning' } },
                ],
                description: 'A refused plan proposed again: the loop does not converge.',
              },
              { target: '#agentTask.validating', actions: ['recordModelUsage', 'recordPlan'] },
            ],
            PLAN_FAILED: { target: 'checkingRetry' },
          },
        },
        checkingRetry: {
          description: 'Transient: a retryable error with attempts left waits a backoff; otherwise a person.',
          always: [
            { guard: 'canRetry', target: 'retryWait' },
            {
              target: '#agentTask.escalated',
              actions: { type: 'escalate', params: { reason: 'PLANNING_FAILED', step: 'planning' } },
            },
          ],
        },
        retryWait: {
          description: 'The backoff before the next planning attempt.',
          after: { planBackoff: 'checkingBudget' },
        },
      },
    },
    validating: {
      description: 'Transient: the plan was checked against the catalogue and the policy.',
      always: [{ guard: 'planIsValid', target: 'validated' }, { target: 'validationFailed' }],
    },
    validated: { description: 'Transient: a valid plan always needs a person’s approval.', always: 'awaitingApproval' },
    awaitingApproval: {
      description: 'A person approves or rejects this plan version and hash. Queue: Awaiting approval.',
      after: {
        approvalTimeout: {
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'APPROVAL_TIMEOUT', step: 'awaitingApproval' } },
        },
      },
      on: {
        APPROVED: { guard: 'approvalIsCurrentAndAuthorized', target: 'approved', actions: 'recordApproval' },
        REJECTED: { guard: 'approverMayDecide', target: 'rejected', actions: 'recordRejection' },
        CANCEL_REQUESTED: { guard: 'cancellationAllowed', target: 'cancelled', actions: 'recordCancellation' },
        ESCALATE: {
          guard: 'escalationIsAuthorised',
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'ESCALATED', step: 'awaitingApproval' } },
        },
      },
    },
    approved: { description: 'Transient: the approval names the current validated plan.', always: 'executing' },
    executing: {
      description: 'The operation runs under its plan version’s idempotency key; no cancellation from here.',
      entry: ['executeOperation', 'startExecution'],
      on: {
        OPERATION_SUCCEEDED: { target: 'completed', actions: 'recordExecution' },
        OPERATION_FAILED: { target: 'executionFailed', actions: 'recordExecution' },
        OPERATION_OUTCOME_UNKNOWN: { target: 'reconciling', actions: 'recordExecution' },
        ESCALATE: {
          guard: 'answersTheJob',
          target: 'reconciling',
          actions: 'recordExecution',
          description: 'A worker gave up on the job: it may have executed.',
        },
      },
    },
    reconciling: {
      description: 'Whether it executed is unknown: ask the executor under the same key.',
      entry: 'reconcileOperation',
      on: {
        OPERATION_FOUND: { target: 'completed', actions: 'recordExecution' },
        OPERATION_NOT_FOUND: {
          target: 'voiding',
          actions: 'recordExecution',
          description: 'Not found is not proof: a request in flight can still land.',
        },
        ESCALATE: {
          guard: 'answersTheJob',
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'RECONCILIATION_FAILED', step: 'reconciling' } },
        },
      },
    },
    voiding: {
      description: 'The executor fences the key: only then is the execution known not to have happened.',
      entry: 'voidOperation',
      on: {
        OPERATION_VOIDED: {
          target: 'executionFailed',
          actions: 'recordExecution',
          description: 'Nothing executed under the key, and nothing can.',
        },
        OPERATION_FOUND: {
          target: 'completed',
          actions: 'recordExecution',
          description: 'The request landed after all.',
        },
        ESCALATE: {
          guard: 'answersTheJob',
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'VOID_FAILED', step: 'voiding' } },
          description: 'The fence failed: the outcome is still unknown.',
        },
      },
    },
    executionFailed: {
      description: 'Transient: retry when safe (a new key after a fence), a fenced one to a person, else fail.',
      always: [
        { guard: 'canRetry', target: 'retryPending' },
        {
          guard: 'executionWasVoided',
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'EXECUTION_VOIDED', step: 'executionFailed' } },
          description: 'Nothing executed and nothing can land: a person replans or cancels.',
        },
        { target: 'failed' },
      ],
    },
    retryPending: {
      description: 'A deterministic backoff before the next attempt.',
      after: { executionRetryDelay: 'executing' },
    },
    escalated: {
      description: 'A person replans or cancels while nothing can have executed, or reconciles. Queue: Escalated.',
      exit: 'closeEscalation',
      on: {
        REPLAN: { guard: 'executionCannotHaveHappened', target: 'planning', actions: 'recordReplan' },
        RECONCILE: { guard: 'executionOutcomeUncertain', target: 'reconciling' },
        CANCEL_REQUESTED: { guard: 'cancellationAllowed', target: 'cancelled', actions: 'recordCancellation' },
      },
    },
    completed: { description: 'The approved operation executed; its receipt is recorded.', type: 'final' },
    validationFailed: { description: 'The plan failed validation; the reasons are recorded.', type: 'final' },
    rejected: { description: 'An approver rejected the plan.', type: 'final' },
    cancelled: { description: 'Cancelled before anything executed.', type: 'final' },
    failed: { description: 'Execution failed and could not safely be retried.', type: 'final' },
  },
});
