/**
 * The customer-support workflow as a statechart on the authoring kit: the latest version, support@2
 * (a fraud screen between policy validation and approval). Earlier versions are frozen in
 * `versions/`.
 *
 * The chart below is a static literal the Stately editor can open: every guard, action and delay is
 * referenced by name. The kit owns the plumbing: each effect's job id and attempt, which job is in
 * flight (a result naming any other is refused as stale before the chart sees it), retries
 * (`canRetry`, `errorIsRetryable`, the backoff under the chart's `*Backoff` delay names) and the
 * event envelopes. Nothing in this file does I/O.
 */
import { setup } from '../../src/authoring/index.ts';
import { jobsFromCounts } from '../../src/authoring/legacy-jobs.ts';
import type { JobsKeptBefore, SupportContext, SupportInput } from './support.context.ts';
import { supportContext, supportCreateSchema } from './support.context.ts';
import { supportEffects } from './support.effects.ts';
import { supportEvents } from './support.events.ts';
import { guards } from './support.guards.ts';
import { updates } from './support.updates.ts';

export const supportKit = setup({
  input: supportCreateSchema,
  context: (input: SupportInput): SupportContext => supportContext(input),
  events: supportEvents,
  effects: supportEffects,
  /** Before the kit, the context counted jobs per operation (`attempts`) and attempts per visit (`stepAttempts`). */
  legacyJobs: (c) => {
    const old = c as Partial<JobsKeptBefore>;
    return jobsFromCounts(c.workflowId, old.attempts, old.stepAttempts);
  },
  backoffDelays: [
    'classifyBackoff',
    'policyBackoff',
    'accountBackoff',
    'recommendBackoff',
    'validateBackoff',
    'fraudBackoff',
    'reconcileBackoff',
    'notifyBackoff',
  ],
  guards,
  updates,
  delays: {
    approvalTimeout: ({ context }) => context.config.approvalTimeoutMs,
    /**
     * Milliseconds left before the whole-workflow deadline, counted from the event's time (the creation
     * time for the initial step, whose event carries none). Never negative: a missed deadline fires at once.
     */
    workflowDeadline: ({ context, event }) => {
      const { at } = event as { at?: unknown };
      return Math.max(0, context.deadlineAt - (typeof at === 'number' ? at : context.createdAt));
    },
    reviewDeadline: ({ context }) => context.config.reviewDeadlineMs,
  },
});

export const supportMachine = supportKit.createMachine({
  id: 'support',
  description:
    'A customer-support request: classify, gather policy and account evidence in parallel, recommend, validate, wait for a human approval, execute the refund exactly once in effect, notify the customer.',
  initial: 'beforeAction',
  states: {
    beforeAction: {
      description:
        'Everything before the refund. Cancellation here is immediate and cancels every timer; the whole-workflow deadline runs here.',
      initial: 'requestReceived',
      after: {
        workflowDeadline: {
          target: '#support.manualReview',
          actions: { type: 'escalate', params: { reason: 'WORKFLOW_DEADLINE', step: 'beforeAction' } },
        },
      },
      on: {
        CANCEL_REQUESTED: {
          target: '#support.cancelled',
          actions: 'honourCancellation',
          description: 'Nothing customer-affecting has happened yet: cancel at once; leaving cancels every timer.',
        },
        ESCALATE: {
          guard: 'escalationIsAuthorised',
          target: '#support.manualReview',
          actions: { type: 'escalate', params: { reason: 'ESCALATED', step: 'beforeAction' } },
          description: 'A person, or a worker about its own job in flight, hands the request to a reviewer.',
        },
      },
      states: {
        requestReceived: {
          description: 'The request was accepted into the workflow boundary: validated, identified and deduplicated.',
          on: { START: { target: 'classifying' } },
        },
        classifying: {
          description: 'A model classifies the request; code validates the category and the confidence.',
          initial: 'attempting',
          states: {
            attempting: {
              description: 'A classification job is in flight.',
              entry: 'requestClassification',
              on: {
                CLASSIFIED: { target: 'checkingConfidence', actions: ['recordModelUsage', 'recordClassification'] },
                RETRYABLE_ERROR: {
                  target: 'checkingRetry',
                  actions: { type: 'recordError', params: { operation: 'classify' } },
                },
                PERMANENT_ERROR: {
                  target: '#support.failed',
                  actions: { type: 'recordError', params: { operation: 'classify' } },
                },
              },
            },
            checkingConfidence: {
              description: 'Transient: a confident classification proceeds; an uncertain one goes to a person.',
              always: [
                { guard: 'classificationIsConfident', target: '#support.beforeAction.gatheringEvidence' },
                {
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'LOW_CONFIDENCE', step: 'classify' } },
                },
              ],
            },
            checkingRetry: {
              description: 'Transient: retry after a backoff while attempts are left, otherwise manual review.',
              always: [
                { guard: 'canRetry', target: 'retryWait' },
                {
                  guard: 'errorIsRetryable',
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'RETRIES_EXHAUSTED', step: 'classify' } },
                },
                {
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'ERROR_NOT_RETRYABLE', step: 'classify' } },
                },
              ],
            },
            retryWait: {
              description: 'Waiting out the backoff before the next classification attempt.',
              after: { classifyBackoff: { target: 'attempting' } },
            },
          },
        },
        gatheringEvidence: {
          description:
            'Policy and account evidence, gathered in parallel. Both are mandatory: the join fires when both regions are done.',
          type: 'parallel',
          onDone: [
            {
              guard: 'modelBudgetExhausted',
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'MODEL_BUDGET_EXHAUSTED', step: 'recommend' } },
              description: 'Since support@2: the model budget is spent before the recommendation is asked for.',
            },
            { target: 'generatingRecommendation' },
          ],
          states: {
            policy: {
              description: 'Retrieve the policy that governs the classified request.',
              initial: 'attempting',
              states: {
                attempting: {
                  description: 'A policy retrieval job is in flight.',
                  entry: 'requestPolicy',
                  on: {
                    POLICY_RETRIEVED: { target: 'done', actions: 'recordPolicy' },
                    RETRYABLE_ERROR: {
                      guard: { type: 'answersTheJob', params: { effect: 'requestPolicy' } },
                      target: 'checkingRetry',
                      actions: { type: 'recordError', params: { operation: 'policy' } },
                    },
                    PERMANENT_ERROR: {
                      guard: { type: 'answersTheJob', params: { effect: 'requestPolicy' } },
                      target: '#support.manualReview',
                      actions: [
                        { type: 'recordError', params: { operation: 'policy' } },
                        { type: 'escalate', params: { reason: 'PERMANENT_ERROR', step: 'policy' } },
                      ],
                    },
                  },
                },
                checkingRetry: {
                  description: 'Transient: retry the policy retrieval while attempts are left.',
                  always: [
                    { guard: 'canRetry', target: 'retryWait' },
                    {
                      guard: 'errorIsRetryable',
                      target: '#support.manualReview',
                      actions: { type: 'escalate', params: { reason: 'RETRIES_EXHAUSTED', step: 'policy' } },
                    },
                    {
                      target: '#support.manualReview',
                      actions: { type: 'escalate', params: { reason: 'ERROR_NOT_RETRYABLE', step: 'policy' } },
                    },
                  ],
                },
                retryWait: {
                  description: 'Waiting out the backoff before the next policy retrieval.',
                  after: { policyBackoff: { target: 'attempting' } },
                },
                done: { description: 'Policy evidence recorded.', type: 'final' },
              },
            },
            account: {
              description: "Inspect the customer's account.",
              initial: 'attempting',
              states: {
                attempting: {
                  description: 'An account inspection job is in flight.',
                  entry: 'requestAccount',
                  on: {
                    ACCOUNT_INSPECTED: { target: 'done', actions: 'recordAccount' },
                    RETRYABLE_ERROR: {
                      guard: { type: 'answersTheJob', params: { effect: 'requestAccount' } },
                      target: 'checkingRetry',
                      actions: { type: 'recordError', params: { operation: 'account' } },
                    },
                    PERMANENT_ERROR: {
                      guard: { type: 'answersTheJob', params: { effect: 'requestAccount' } },
                      target: '#support.manualReview',
                      actions: [
                        { type: 'recordError', params: { operation: 'account' } },
                        { type: 'escalate', params: { reason: 'PERMANENT_ERROR', step: 'account' } },
                      ],
                    },
                  },
                },
                checkingRetry: {
                  description: 'Transient: retry the account inspection while attempts are left.',
                  always: [
                    { guard: 'canRetry', target: 'retryWait' },
                    {
                      guard: 'errorIsRetryable',
                      target: '#support.manualReview',
                      actions: { type: 'escalate', params: { reason: 'RETRIES_EXHAUSTED', step: 'account' } },
                    },
                    {
                      target: '#support.manualReview',
                      actions: { type: 'escalate', params: { reason: 'ERROR_NOT_RETRYABLE', step: 'account' } },
                    },
                  ],
                },
                retryWait: {
                  description: 'Waiting out the backoff before the next account inspection.',
                  after: { accountBackoff: { target: 'attempting' } },
                },
                done: { description: 'Account evidence recorded.', type: 'final' },
              },
            },
          },
        },
        generatingRecommendation: {
          description: 'A model proposes a typed action from the evidence; it has no authority to execute it.',
          initial: 'attempting',
          states: {
            attempting: {
              description: 'A recommendation job is in flight.',
              entry: 'requestRecommendation',
              on: {
                RECOMMENDATION_GENERATED: [
                  {
                    guard: 'isRepeatedRecommendation',
                    target: '#support.manualReview',
                    actions: [
                      'recordModelUsage',
                      { type: 'escalate', params: { reason: 'REPEATED_OUTPUT', step: 'recommend' } },
                    ],
                    description:
                      'Since support@2: the revision proposes the refused recommendation again (same content hash): the loop does not converge, a person decides.',
                  },
                  {
                    target: '#support.beforeAction.validatingPolicy',
                    actions: ['recordModelUsage', 'recordRecommendation'],
                  },
                ],
                RETRYABLE_ERROR: {
                  target: 'checkingRetry',
                  actions: { type: 'recordError', params: { operation: 'recommend' } },
                },
                PERMANENT_ERROR: {
                  target: '#support.manualReview',
                  actions: [
                    { type: 'recordError', params: { operation: 'recommend' } },
                    { type: 'escalate', params: { reason: 'PERMANENT_ERROR', step: 'recommend' } },
                  ],
                },
              },
            },
            checkingRetry: {
              description: 'Transient: retry the recommendation while attempts are left.',
              always: [
                { guard: 'canRetry', target: 'retryWait' },
                {
                  guard: 'errorIsRetryable',
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'RETRIES_EXHAUSTED', step: 'recommend' } },
                },
                {
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'ERROR_NOT_RETRYABLE', step: 'recommend' } },
                },
              ],
            },
            retryWait: {
              description: 'Waiting out the backoff before the next recommendation attempt.',
              after: { recommendBackoff: { target: 'attempting' } },
            },
          },
        },
        validatingPolicy: {
          description: 'Deterministic policy validation of the current recommendation version.',
          initial: 'attempting',
          states: {
            attempting: {
              description: 'A validation job is in flight.',
              entry: 'requestValidation',
              on: {
                POLICY_VALID: {
                  guard: 'isCurrentValidation',
                  target: '#support.beforeAction.screeningFraud',
                  actions: 'recordValidation',
                },
                POLICY_INVALID: {
                  guard: 'isCurrentValidation',
                  target: 'checkingRevisable',
                  actions: 'recordValidation',
                },
                POLICY_UNCLEAR: {
                  guard: 'isCurrentValidation',
                  target: '#support.manualReview',
                  actions: [
                    'recordValidation',
                    { type: 'escalate', params: { reason: 'POLICY_UNCLEAR', step: 'validate' } },
                  ],
                },
                RETRYABLE_ERROR: {
                  target: 'checkingRetry',
                  actions: { type: 'recordError', params: { operation: 'validate' } },
                },
                PERMANENT_ERROR: {
                  target: '#support.manualReview',
                  actions: [
                    { type: 'recordError', params: { operation: 'validate' } },
                    { type: 'escalate', params: { reason: 'PERMANENT_ERROR', step: 'validate' } },
                  ],
                },
              },
            },
            checkingRevisable: {
              description:
                'Transient: an invalid but revisable recommendation is revised; otherwise the request is rejected.',
              always: [
                { guard: 'validationIsRevisable', target: '#support.beforeAction.revising' },
                {
                  target: '#support.rejected',
                  actions: { type: 'recordResolution', params: { kind: 'policyInvalid' } },
                },
              ],
            },
            checkingRetry: {
              description: 'Transient: retry the validation while attempts are left.',
              always: [
                { guard: 'canRetry', target: 'retryWait' },
                {
                  guard: 'errorIsRetryable',
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'RETRIES_EXHAUSTED', step: 'validate' } },
                },
                {
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'ERROR_NOT_RETRYABLE', step: 'validate' } },
                },
              ],
            },
            retryWait: {
              description: 'Waiting out the backoff before the next validation attempt.',
              after: { validateBackoff: { target: 'attempting' } },
            },
          },
        },
        screeningFraud: {
          description:
            'Since support@2: a deterministic fraud screen of the validated recommendation before anyone may approve it.',
          initial: 'attempting',
          states: {
            attempting: {
              description: 'A fraud screening job is in flight.',
              entry: 'requestFraudScreen',
              on: {
                FRAUD_CLEARED: { target: '#support.beforeAction.awaitingApproval', actions: 'recordFraudScreen' },
                FRAUD_SUSPECTED: {
                  target: '#support.manualReview',
                  actions: [
                    'recordFraudScreen',
                    { type: 'escalate', params: { reason: 'FRAUD_SUSPECTED', step: 'fraud' } },
                  ],
                  description: 'A person decides on a request the screen flagged.',
                },
                RETRYABLE_ERROR: {
                  target: 'checkingRetry',
                  actions: { type: 'recordError', params: { operation: 'fraud' } },
                },
                PERMANENT_ERROR: {
                  target: '#support.manualReview',
                  actions: [
                    { type: 'recordError', params: { operation: 'fraud' } },
                    { type: 'escalate', params: { reason: 'PERMANENT_ERROR', step: 'fraud' } },
                  ],
                },
              },
            },
            checkingRetry: {
              description: 'Transient: retry the fraud screen while attempts are left.',
              always: [
                { guard: 'canRetry', target: 'retryWait' },
                {
                  guard: 'errorIsRetryable',
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'RETRIES_EXHAUSTED', step: 'fraud' } },
                },
                {
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'ERROR_NOT_RETRYABLE', step: 'fraud' } },
                },
              ],
            },
            retryWait: {
              description: 'Waiting out the backoff before the next fraud screen.',
              after: { fraudBackoff: { target: 'attempting' } },
            },
          },
        },
        revising: {
          description:
            'Transient: one revision budget, shared by policy-invalid regenerations and approvers’ change requests; since support@2 the model budget is checked first.',
          always: [
            {
              guard: 'modelBudgetExhausted',
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'MODEL_BUDGET_EXHAUSTED', step: 'recommend' } },
              description: 'Since support@2: the model budget is spent, so no revision is asked for.',
            },
            { guard: 'hasRevisionBudget', target: 'generatingRecommendation', actions: 'consumeRevision' },
            {
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'REVISION_BUDGET_EXHAUSTED', step: 'recommend' } },
            },
          ],
        },
        awaitingApproval: {
          description:
            'A person with the approver role and a sufficient limit must approve the exact recommendation version they saw.',
          after: {
            approvalTimeout: {
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'APPROVAL_TIMEOUT', step: 'approve' } },
            },
          },
          on: {
            APPROVED: {
              guard: 'approvalIsCurrentAndAuthorized',
              description:
                'Role, tenant, not the requester, the current version and hash, amount within the principal’s limit, validation passed, no cancellation pending.',
              target: '#support.executingAction',
              actions: 'recordApproval',
            },
            REJECTED_BY_REVIEWER: {
              guard: 'approverMayDecide',
              description: 'An approver of this tenant, not the requester, rejects the recommendation they saw.',
              target: '#support.rejected',
              actions: { type: 'recordResolution', params: { kind: 'rejectedByApprover' } },
            },
            CHANGES_REQUESTED: {
              guard: 'approverMayDecide',
              description: 'An approver asks for a revision; it spends the shared revision budget.',
              target: 'revising',
              actions: 'recordChangeRequest',
            },
          },
        },
      },
    },
    executingAction: {
      description:
        'The refund runs under idempotency key support-action:<workflowId>:v<recommendationVersion>. An ambiguous outcome is reconciled, never blindly retried. A cancellation here is recorded and decided after reconciliation.',
      initial: 'executing',
      on: {
        CANCEL_REQUESTED: {
          actions: 'recordCancellationRequest',
          description: 'Recorded, not applied: the action in flight is settled first.',
        },
      },
      states: {
        executing: {
          description: 'The refund job is in flight.',
          entry: ['startExecution', 'executeRefund'],
          on: {
            ESCALATE: {
              guard: 'answersTheJob',
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'ESCALATED', step: 'execute' } },
              description:
                'A worker gave up on the refund job in flight (its dead letter): a person takes over, and the outcome stays uncertain until reconciled. Only the dead letter: a result still in flight is not cut off by anyone else.',
            },
            ACTION_EXECUTED: { target: 'verifying', actions: 'recordActionReceipt' },
            ACTION_OUTCOME_UNKNOWN: { target: 'reconciliation', actions: 'recordActionUnknown' },
            ACTION_FAILED: { target: 'afterFailure', actions: 'recordActionFailed' },
            POST_ACTION_INVARIANT_FAILED: {
              target: '#support.compensating',
              actions: ['recordActionReceipt', 'recordInvariantViolation'],
            },
          },
        },
        reconciliation: {
          description: 'Ask the provider what happened under the same idempotency key.',
          initial: 'attempting',
          states: {
            attempting: {
              description: 'A reconciliation job is in flight.',
              entry: 'reconcileAction',
              on: {
                ESCALATE: {
                  guard: 'answersTheJob',
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'ESCALATED', step: 'reconcile' } },
                  description:
                    'A worker gave up on the reconciliation job in flight (its dead letter): a person takes over, and the outcome stays uncertain until reconciled. Only the dead letter: a result still in flight is not cut off by anyone else.',
                },
                ACTION_EXECUTED: { target: '#support.executingAction.verifying', actions: 'recordActionReceipt' },
                ACTION_NOT_FOUND: { target: '#support.executingAction.afterNotFound', actions: 'recordActionNotFound' },
                ACTION_FAILED: { target: '#support.executingAction.afterFailure', actions: 'recordActionFailed' },
                ACTION_OUTCOME_UNKNOWN: {
                  target: 'checkingRetry',
                  actions: { type: 'recordError', params: { operation: 'reconcile' } },
                },
                RETRYABLE_ERROR: {
                  target: 'checkingRetry',
                  actions: { type: 'recordError', params: { operation: 'reconcile' } },
                },
                PERMANENT_ERROR: {
                  target: '#support.manualReview',
                  actions: [
                    { type: 'recordError', params: { operation: 'reconcile' } },
                    { type: 'escalate', params: { reason: 'RECONCILIATION_FAILED', step: 'reconcile' } },
                  ],
                },
              },
            },
            checkingRetry: {
              description: 'Transient: reconciliation is a read, so it may be retried while attempts are left.',
              always: [
                { guard: 'canRetry', target: 'retryWait' },
                {
                  guard: 'errorIsRetryable',
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'RECONCILIATION_FAILED', step: 'reconcile' } },
                },
                {
                  target: '#support.manualReview',
                  actions: { type: 'escalate', params: { reason: 'ERROR_NOT_RETRYABLE', step: 'reconcile' } },
                },
              ],
            },
            retryWait: {
              description: 'Waiting out the backoff before asking the provider again.',
              after: { reconcileBackoff: { target: 'attempting' } },
            },
          },
        },
        afterNotFound: {
          description:
            'Transient: the provider has no action under the key. A pending cancellation is honoured; otherwise execute again with the same key, a bounded number of times.',
          always: [
            {
              guard: 'cancellationPending',
              target: 'voiding',
              description: 'A request may still be in flight: fence the key before cancelling.',
            },
            { guard: 'canRetry', target: 'executing', description: 'Execute again under the same idempotency key.' },
            {
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'ACTION_NOT_CONFIRMED', step: 'execute' } },
            },
          ],
        },
        voiding: {
          description:
            'The provider fences the idempotency key so that no request under it can land later; then the pending cancellation is honoured.',
          entry: 'voidAction',
          on: {
            ESCALATE: {
              guard: 'answersTheJob',
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'ESCALATED', step: 'void' } },
              description:
                'A worker gave up on the void job in flight (its dead letter): a person takes over, and the outcome stays uncertain until reconciled. Only the dead letter: a result still in flight is not cut off by anyone else.',
            },
            ACTION_VOIDED: { target: '#support.cancelled', actions: ['recordActionVoided', 'honourCancellation'] },
            ACTION_EXECUTED: {
              target: 'verifying',
              actions: 'recordActionReceipt',
              description: 'The request landed after all: the action stands.',
            },
            RETRYABLE_ERROR: {
              target: '#support.manualReview',
              actions: [
                { type: 'recordError', params: { operation: 'void' } },
                { type: 'escalate', params: { reason: 'VOID_FAILED', step: 'void' } },
              ],
            },
            PERMANENT_ERROR: {
              target: '#support.manualReview',
              actions: [
                { type: 'recordError', params: { operation: 'void' } },
                { type: 'escalate', params: { reason: 'VOID_FAILED', step: 'void' } },
              ],
            },
          },
        },
        afterFailure: {
          description:
            'Transient: the provider refused the action, so it did not take effect. A pending cancellation is honoured; otherwise a person decides.',
          always: [
            {
              guard: 'cancellationPending',
              target: '#support.cancelled',
              actions: 'honourCancellation',
              description: 'The provider refused the action under this key: cancelling is safe.',
            },
            {
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'ACTION_FAILED', step: 'execute' } },
            },
          ],
        },
        verifying: {
          description:
            'Transient: the post-action invariant. A receipt that matches the approval proceeds (a pending cancellation is declined: the action stands); a mismatch compensates.',
          always: [
            {
              guard: 'receiptMatchesApproval',
              target: '#support.notifyingCustomer',
              actions: 'declinePendingCancellation',
            },
            { guard: 'hasActionReceipt', target: '#support.compensating', actions: 'recordInvariantViolation' },
            {
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'ACTION_NOT_CONFIRMED', step: 'execute' } },
            },
          ],
        },
      },
    },
    notifyingCustomer: {
      description:
        'Tell the customer, with its own retries. The refund stands whatever happens here: a notification failure never compensates. Since support@2 a cancellation here is accepted and declined (declinedActionExecuted): the refund has executed and cannot be cancelled, and the notification is still sent, because the customer must learn of money that was moved (suppressing it would not undo the refund, and a notification cannot be unsent anyway).',
      initial: 'attempting',
      on: {
        CANCEL_REQUESTED: {
          actions: ['recordCancellationRequest', 'declinePendingCancellation'],
          description:
            'Since support@2: the refund stands and the customer is still told; the cancellation is recorded as declined because the action executed.',
        },
        ESCALATE: {
          guard: 'escalationIsAuthorised',
          target: '#support.manualReview',
          actions: { type: 'escalate', params: { reason: 'ESCALATED', step: 'notify' } },
        },
      },
      states: {
        attempting: {
          description: 'A notification job is in flight, with a stable delivery key.',
          entry: 'notifyCustomer',
          on: {
            CUSTOMER_NOTIFIED: { target: '#support.completed', actions: 'recordNotification' },
            RETRYABLE_ERROR: {
              target: 'checkingRetry',
              actions: { type: 'recordError', params: { operation: 'notify' } },
            },
            PERMANENT_ERROR: {
              target: '#support.manualReview',
              actions: [
                { type: 'recordError', params: { operation: 'notify' } },
                { type: 'escalate', params: { reason: 'NOTIFICATION_FAILED', step: 'notify' } },
              ],
            },
          },
        },
        checkingRetry: {
          description: 'Transient: retry the notification while attempts are left, then manual review.',
          always: [
            { guard: 'canRetry', target: 'retryWait' },
            {
              guard: 'errorIsRetryable',
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'NOTIFICATION_FAILED', step: 'notify' } },
            },
            {
              target: '#support.manualReview',
              actions: { type: 'escalate', params: { reason: 'ERROR_NOT_RETRYABLE', step: 'notify' } },
            },
          ],
        },
        retryWait: {
          description: 'Waiting out the backoff before the next notification attempt.',
          after: { notifyBackoff: { target: 'attempting' } },
        },
      },
    },
    compensating: {
      description: 'A compensating action counters the executed refund. Only reachable with an action receipt.',
      entry: 'requestCompensation',
      on: {
        ESCALATE: {
          guard: 'answersTheJob',
          target: 'manualReview',
          actions: { type: 'escalate', params: { reason: 'ESCALATED', step: 'compensate' } },
          description: 'A worker gave up on the compensation job (its dead letter): a person takes over.',
        },
        COMPENSATION_SUCCEEDED: { target: 'failedCompensated', actions: 'recordCompensation' },
        COMPENSATION_FAILED: {
          target: 'manualReview',
          actions: [
            { type: 'recordError', params: { operation: 'compensate' } },
            { type: 'escalate', params: { reason: 'COMPENSATION_FAILED', step: 'compensate' } },
          ],
        },
      },
    },
    manualReview: {
      description:
        'A person resolves what automation could not. Keeps the reason, evidence, open questions, allowed commands, deadline and owner.',
      exit: 'closeManualReview',
      after: { reviewDeadline: { actions: 'markReviewOverdue' } },
      on: {
        REVIEW_RETRY_STEP: [
          {
            guard: { type: 'reviewRetryPermitted', params: { step: 'classify' } },
            target: '#support.beforeAction.classifying',
            actions: ['countReviewRetry', 'recordReviewRetry'],
            description:
              'Since support@2 every reviewer retry is counted and bounded by maxReviewRetries (a retry resets the deadline and spends no revision, so the count is what ends that loop), and a retry that leads to a model call needs model budget left. Refused, the review stays open for another resolution: reject, cancel, complete or compensate.',
          },
          {
            guard: { type: 'reviewRetryPermitted', params: { step: 'gatherEvidence' } },
            target: '#support.beforeAction.gatheringEvidence',
            actions: ['countReviewRetry', 'recordReviewRetry'],
          },
          {
            guard: { type: 'reviewRetryPermitted', params: { step: 'recommend' } },
            target: '#support.beforeAction.generatingRecommendation',
            actions: ['countReviewRetry', 'recordReviewRetry'],
          },
          {
            guard: { type: 'reviewRetryPermitted', params: { step: 'validate' } },
            target: '#support.beforeAction.validatingPolicy',
            actions: ['countReviewRetry', 'recordReviewRetry'],
          },
          {
            guard: { type: 'reviewRetryPermitted', params: { step: 'reconcileAction' } },
            target: '#support.executingAction.reconciliation',
            actions: ['countReviewRetry', 'recordReviewRetry'],
          },
          {
            guard: { type: 'reviewRetryPermitted', params: { step: 'notify' } },
            target: '#support.notifyingCustomer',
            actions: ['countReviewRetry', 'recordReviewRetry'],
          },
        ],
        REVIEW_REJECT: {
          guard: 'actionCannotHaveTakenEffect',
          target: 'rejected',
          actions: { type: 'recordResolution', params: { kind: 'rejectedByReviewer' } },
        },
        REVIEW_COMPLETE: {
          guard: 'reviewCompletionAllowed',
          target: 'resolvedByReviewer',
          actions: { type: 'recordResolution', params: { kind: 'completedByReviewer' } },
          description:
            'A reviewer closes the case by hand with a reason and evidence. It ends resolvedByReviewer, never completed: completed needs its proof (approval, receipt, notification).',
        },
        CANCEL_REQUESTED: [
          {
            guard: 'actionCannotHaveTakenEffect',
            target: 'cancelled',
            actions: 'honourCancellation',
            description: 'No action took effect or can: cancel.',
          },
          {
            guard: 'actionOutcomeUncertain',
            target: '#support.executingAction.reconciliation',
            actions: 'recordCancellationRequest',
            description: 'An action may have happened: reconcile first, then void and cancel, or let it stand.',
          },
        ],
        COMPENSATE: { guard: 'hasActionReceipt', target: 'compensating', actions: 'recordCompensationRequest' },
        REVIEW_ASSIGN: { actions: 'assignReviewOwner' },
      },
    },
    completed: {
      description:
        'Proven: a current approval by an authorised approver, a provider receipt under the idempotency key, and the customer notified.',
      type: 'final',
    },
    resolvedByReviewer: {
      description:
        'A reviewer resolved the request by hand, with their reason and evidence; what the record holds (approval, receipt, notification) is all that happened.',
      type: 'final',
    },
    rejected: { description: 'The request was validly refused by policy, an approver or a reviewer.', type: 'final' },
    cancelled: { description: 'Cancellation was accepted before any action took effect.', type: 'final' },
    failed: { description: 'The request could not be processed and no compensation was needed.', type: 'final' },
    failedCompensated: { description: 'The action was executed, found wrong, and compensated.', type: 'final' },
  },
});

export type SupportMachine = typeof supportMachine;
