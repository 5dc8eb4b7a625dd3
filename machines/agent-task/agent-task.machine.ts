/**
 * An AI agent's task, from proposal to execution, as an XState v5 statechart (seed 002: "the model
 * can recommend the next action; the application decides whether that action is allowed").
 *
 * The config is a static literal the Stately editor can open: guards, actions and delays are named
 * here and implemented in `setup()`. Effect actions (`requestPlan`, `executeOperation`,
 * `reconcileOperation`, `voidOperation`) are markers the engine turns into durable jobs. Default deny: an event not
 * listed in a state is refused. Nothing in this file does I/O.
 */
import { setup } from 'xstate';
import type { AgentTaskContext, AgentTaskInput } from './context.ts';
import { createInitialContext } from './context.ts';
import type { AgentTaskEvent } from './events.ts';
import { agentTaskActions, agentTaskDelays, agentTaskGuards } from './implementations.ts';

export const agentTaskMachine = setup({
  types: {
    context: {} as AgentTaskContext,
    events: {} as AgentTaskEvent,
    input: {} as AgentTaskInput,
  },
  guards: agentTaskGuards,
  actions: agentTaskActions,
  delays: agentTaskDelays,
}).createMachine({
  id: 'agentTask',
  description:
    'An AI agent task: a model proposes a plan, deterministic code validates it, a person approves the exact plan version, and the operation executes under one idempotency key, retried only when that is safe.',
  context: ({ input }) => createInitialContext(input),
  initial: 'created',
  states: {
    created: {
      description: 'The task was accepted into the workflow; nothing has been planned yet.',
      on: {
        START: { target: 'planning' },
        CANCEL_REQUESTED: { guard: 'cancellationAllowed', target: 'cancelled', actions: 'recordCancellation' },
      },
    },
    planning: {
      description: 'A model proposes a plan (operation, parameters, rationale). A proposal grants no authority.',
      initial: 'checkingBudget',
      entry: 'resetPlanning',
      on: {
        CANCEL_REQUESTED: { guard: 'cancellationAllowed', target: 'cancelled', actions: 'recordCancellation' },
        ESCALATE: {
          guard: 'escalationIsAuthorised',
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'ESCALATED', step: 'planning' } },
          description:
            'The requester, or a worker giving up on its plan job (or the model answering invalid output twice).',
        },
      },
      states: {
        checkingBudget: {
          description:
            'Transient: before each planning call (the first, after a retry wait, after a replan), the task’s model budget (tokens and their estimated cost) must not be spent.',
          always: [
            {
              guard: 'modelBudgetExhausted',
              target: '#agentTask.escalated',
              actions: { type: 'escalate', params: { reason: 'MODEL_BUDGET_EXHAUSTED', step: 'planning' } },
              description: 'The model budget is spent: no further model call, a person takes over.',
            },
            { target: 'attempting' },
          ],
        },
        attempting: {
          description: 'A planning job is in flight.',
          entry: [{ type: 'startAttempt', params: { operation: 'plan' } }, 'requestPlan'],
          exit: { type: 'finishJob', params: { operation: 'plan' } },
          on: {
            PLAN_PROPOSED: [
              {
                guard: 'isRepeatedPlan',
                target: '#agentTask.escalated',
                actions: [
                  'recordModelUsage',
                  { type: 'escalate', params: { reason: 'REPEATED_OUTPUT', step: 'planning' } },
                ],
                description:
                  'The model proposed a refused plan again (same content hash): the loop does not converge, a person decides.',
              },
              {
                guard: { type: 'isCurrentJob', params: { operation: 'plan' } },
                target: '#agentTask.validating',
                actions: ['recordModelUsage', 'recordPlan'],
                description:
                  'Counts what the call spent, records the next plan version and validates it deterministically at the event time.',
              },
            ],
            PLAN_FAILED: {
              guard: { type: 'isCurrentJob', params: { operation: 'plan' } },
              target: 'checkingRetry',
              actions: { type: 'recordError', params: { operation: 'plan' } },
            },
          },
        },
        checkingRetry: {
          description:
            'Transient: a retryable model error with attempts left waits out a backoff; otherwise a person takes over.',
          always: [
            { guard: 'canRetryPlan', target: 'retryWait' },
            {
              target: '#agentTask.escalated',
              actions: { type: 'escalate', params: { reason: 'PLANNING_FAILED', step: 'planning' } },
            },
          ],
        },
        retryWait: {
          description: 'Waiting out the backoff before the next planning attempt.',
          after: { planBackoff: { target: 'checkingBudget' } },
        },
      },
    },
    validating: {
      description:
        'Transient: the plan was checked against the operation catalogue and the policy (operation allowed, parameters, limits, data freshness).',
      always: [{ guard: 'planIsValid', target: 'validated' }, { target: 'validationFailed' }],
    },
    validated: {
      description: 'Transient: a valid plan always needs a human approval before anything executes.',
      always: { target: 'awaitingApproval' },
    },
    awaitingApproval: {
      description: 'A person approves or rejects this exact plan version and hash. Queue: Awaiting approval.',
      after: {
        approvalTimeout: {
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'APPROVAL_TIMEOUT', step: 'awaitingApproval' } },
        },
      },
      on: {
        APPROVED: {
          guard: 'approvalIsCurrentAndAuthorized',
          target: 'approved',
          actions: 'recordApproval',
          description: 'Current version and hash, an approver of the same tenant who is not the requester.',
        },
        REJECTED: { guard: 'approverMayDecide', target: 'rejected', actions: 'recordRejection' },
        CANCEL_REQUESTED: { guard: 'cancellationAllowed', target: 'cancelled', actions: 'recordCancellation' },
        ESCALATE: {
          guard: 'escalationIsAuthorised',
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'ESCALATED', step: 'awaitingApproval' } },
        },
      },
    },
    approved: {
      description: 'Transient: the approval names the current validated plan; execution starts.',
      always: { target: 'executing' },
    },
    executing: {
      description:
        'The approved operation runs under the idempotency key of its plan version. No cancellation from here on.',
      entry: [{ type: 'startAttempt', params: { operation: 'execute' } }, 'executeOperation'],
      exit: { type: 'finishJob', params: { operation: 'execute' } },
      on: {
        OPERATION_SUCCEEDED: {
          guard: { type: 'isCurrentJob', params: { operation: 'execute' } },
          target: 'completed',
          actions: 'recordReceipt',
        },
        OPERATION_FAILED: {
          guard: { type: 'isCurrentJob', params: { operation: 'execute' } },
          target: 'executionFailed',
          actions: [{ type: 'recordError', params: { operation: 'execute' } }, 'recordExecutionFailed'],
        },
        OPERATION_OUTCOME_UNKNOWN: {
          guard: { type: 'isCurrentJob', params: { operation: 'execute' } },
          target: 'reconciling',
          actions: [{ type: 'recordError', params: { operation: 'execute' } }, 'recordOutcomeUnknown'],
        },
        ESCALATE: {
          guard: { type: 'isCurrentJob', params: { operation: 'execute' } },
          target: 'reconciling',
          actions: [{ type: 'recordError', params: { operation: 'execute' } }, 'recordOutcomeUnknown'],
          description: 'A worker gave up on the execute job: it may have executed, so reconcile first.',
        },
      },
    },
    reconciling: {
      description: 'Whether the operation executed is unknown: ask the executor under the same idempotency key.',
      entry: [{ type: 'startAttempt', params: { operation: 'reconcile' } }, 'reconcileOperation'],
      exit: { type: 'finishJob', params: { operation: 'reconcile' } },
      on: {
        OPERATION_FOUND: {
          guard: { type: 'isCurrentJob', params: { operation: 'reconcile' } },
          target: 'completed',
          actions: 'recordReceipt',
        },
        OPERATION_NOT_FOUND: {
          guard: { type: 'isCurrentJob', params: { operation: 'reconcile' } },
          target: 'voiding',
          actions: 'recordNotFound',
          description: 'Not found is not proof: a request still in flight can land later, so fence the key first.',
        },
        ESCALATE: {
          guard: { type: 'isCurrentJob', params: { operation: 'reconcile' } },
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'RECONCILIATION_FAILED', step: 'reconciling' } },
        },
      },
    },
    voiding: {
      description:
        'The executor fences the idempotency key so that no request under it can land later; only then is the execution known not to have happened.',
      entry: [{ type: 'startAttempt', params: { operation: 'void' } }, 'voidOperation'],
      exit: { type: 'finishJob', params: { operation: 'void' } },
      on: {
        OPERATION_VOIDED: {
          guard: { type: 'isCurrentJob', params: { operation: 'void' } },
          target: 'executionFailed',
          actions: 'recordVoided',
          description: 'Nothing executed under the key and nothing can any more.',
        },
        OPERATION_FOUND: {
          guard: { type: 'isCurrentJob', params: { operation: 'void' } },
          target: 'completed',
          actions: 'recordReceipt',
          description: 'The request landed after all: the action stands.',
        },
        ESCALATE: {
          guard: { type: 'isCurrentJob', params: { operation: 'void' } },
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'VOID_FAILED', step: 'voiding' } },
          description: 'The fence failed: whether the operation executed is still unknown.',
        },
      },
    },
    executionFailed: {
      description:
        'Transient: retry only when the operation is idempotent, attempts remain and the error is retryable (under a new key after a fence); a fenced execution that may not be retried goes to a person; otherwise fail.',
      always: [
        { guard: 'executionMayBeRetried', target: 'retryPending' },
        {
          guard: 'executionWasVoided',
          target: 'escalated',
          actions: { type: 'escalate', params: { reason: 'EXECUTION_VOIDED', step: 'executionFailed' } },
          description: 'Nothing executed and nothing can land under the fenced key: a person replans or cancels.',
        },
        { target: 'failed' },
      ],
    },
    retryPending: {
      description:
        'Waiting out a deterministic backoff before the next attempt under the same idempotency key (a new one once the key was fenced).',
      after: { executionRetryDelay: { target: 'executing' } },
    },
    escalated: {
      description:
        'A person works the task: replan or cancel while nothing can have executed (never started, or fenced with nothing under the key), reconcile while the outcome is unknown. Queue: Escalated.',
      exit: 'closeEscalation',
      on: {
        REPLAN: {
          guard: 'executionCannotHaveHappened',
          target: 'planning',
          actions: 'recordReplan',
          description: 'A plan sent back before any approval counts as refused: proposed again, it escalates.',
        },
        RECONCILE: { guard: 'executionOutcomeUncertain', target: 'reconciling' },
        CANCEL_REQUESTED: { guard: 'cancellationAllowed', target: 'cancelled', actions: 'recordCancellation' },
      },
    },
    completed: { description: 'The approved operation executed; its receipt is recorded.', type: 'final' },
    validationFailed: {
      description: 'The plan failed deterministic validation; the reasons are recorded.',
      type: 'final',
    },
    rejected: { description: 'An approver rejected the plan.', type: 'final' },
    cancelled: { description: 'Cancelled before anything executed.', type: 'final' },
    failed: { description: 'Execution failed and could not safely be retried.', type: 'final' },
  },
});

export type AgentTaskMachine = typeof agentTaskMachine;
