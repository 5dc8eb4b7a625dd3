/**
 * The agent task's effects: planning through the model (validated, one repair, then a person), and
 * execution, reconciliation and fencing under the plan's idempotency key in the platform's ledger.
 */
import { z } from 'zod';
import { catalogueExecution, ledgerEffects, ledgerEventsOf, operationReceipt } from '../../src/authoring/index.ts';
import { effect, keywordPlanner, operationSummary, proposalOutcome } from '../../src/authoring/index.ts';
import type { OperationReceipt } from '../../src/authoring/index.ts';
import type { PlatformAdapters } from '../../src/definitions/workflow.ts';
import { errorClasses } from '../../src/effects/effect-errors.ts';
import type { IdempotencyLedger } from '../../src/effects/idempotency-ledger.ts';
import type { ModelTask } from '../../src/effects/model-client.ts';
import { createIdempotencyLedger } from '../../src/effects/redis-idempotency-ledger.ts';
import { agentTaskCreateSchema, operations, type AgentTaskContext } from './context.ts';

export const operationEvents = ledgerEventsOf('OPERATION', 'ESCALATE');

/** The executor of catalogue operations: the platform's idempotency ledger, under the namespace `agent-task`. */
export interface AgentTaskAdapters {
  executor: IdempotencyLedger<OperationReceipt>;
}
export type AgentTaskDeps = PlatformAdapters & AgentTaskAdapters;

export const createExecutor = (platform: PlatformAdapters) =>
  createIdempotencyLedger(platform, { namespace: 'agent-task', receipt: operationReceipt });

export const planOutput = operations.proposalOutput(4000);

export const planTask = {
  name: 'plan-agent-task',
  promptVersion: 'plan-agent-task/1',
  instructions: [
    'You plan one step of a business task for an agent.',
    'Choose exactly one operation from `operations` and give its parameters and a short rationale.',
    'If the task names a requestedOperation and parameters, use them unless they contradict the instructions.',
    'If `previousReasons` is not empty, your previous plan was refused for those reasons: fix them.',
    'Your plan is a proposal only: it is validated by code and approved by a person before anything runs.',
  ].join('\n'),
  output: planOutput,
} satisfies ModelTask;

/** What the planning job sends the model. */
export const planInput = z.strictObject({
  planVersion: z.number().int().positive(),
  task: agentTaskCreateSchema.shape.task,
  operations: z.array(operationSummary),
  previousReasons: z.array(z.string()),
});

/** The offline planner: the task's `requestedOperation` and `parameters`, else the operation its keywords name. */
export const localPlanner = keywordPlanner({
  input: planInput,
  request: ({ task }) => ({ ...task, text: `${task.title}\n${task.instructions}`, operation: task.requestedOperation }),
  rules: [
    [/\b(credit|refund|compensat\w*|goodwill)\b/i, 'issue_credit'],
    [/\b(publish|post|announce\w*|blog)\b/i, 'publish_post'],
    [/\b(report|summary|digest)\b/i, 'send_report'],
    [/\b(crm|record|contact|account|update)\b/i, 'update_crm_record'],
  ],
});

/** A valid plan is proposed (it grants no authority); an answer still invalid after the repair goes to a person. */
const planProposal = { name: 'plan', result: 'PLAN_PROPOSED', giveUp: 'ESCALATE', who: 'The planning model' };

export const requestPlan = effect<AgentTaskContext, z.infer<typeof planInput>, AgentTaskAdapters>({
  operation: 'plan',
  params: (c) => ({
    planVersion: (c.plan?.version ?? 0) + 1,
    task: c.task,
    operations: operations.summary(),
    previousReasons: c.validation && !c.validation.ok ? c.validation.reasons : [],
  }),
  paramsSchema: planInput,
  results: ['PLAN_PROPOSED'],
  failure: 'PLAN_FAILED',
  retry: { maxAttempts: 3 },
  idempotent: true,
  run: async ({ params, ask }) => proposalOutcome(await ask(planTask, params), planTask, planProposal),
});

/**
 * Execution, reconciliation and fencing under the plan's key. A redelivered job of a non-idempotent
 * operation not found is not executed again but reported unknown: the chart reconciles and fences.
 */
export const {
  execute: executeOperation,
  reconcile: reconcileOperation,
  fence: voidOperation,
  examples: ledgerExamples,
} = ledgerEffects({
  ledger: (deps: AgentTaskDeps) => deps.executor,
  key: (c: AgentTaskContext) => c.execution.idempotencyKey ?? '',
  events: operationEvents,
  execute: {
    ...catalogueExecution(operations),
    params: (c) => ({ operation: c.plan?.operation ?? '', parameters: c.plan?.parameters ?? {} }),
    retry: {
      maxAttempts: (c) => c.config.maxExecutionAttempts,
      backoff: (c) => ({
        initialIntervalMs: c.config.retryDelayMs,
        backoffCoefficient: 2,
        maxIntervalMs: Math.max(c.config.retryDelayMs, 15 * 60_000),
        jitterRatio: 0.2,
      }),
      retryable: errorClasses,
      when: (c) => operations.isIdempotent(c.plan?.operation),
      after: ['OPERATION_VOIDED'],
    },
  },
});
