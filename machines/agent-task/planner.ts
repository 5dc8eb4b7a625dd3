/**
 * The planning model task and its offline stand-in. The model proposes one catalogue operation with
 * parameters and a rationale; it decides nothing: the chart validates the proposal and a person
 * approves it. `localPlanner` is the deterministic rule the offline model answers with.
 */
import { z } from 'zod';
import type { ModelTask } from '../../src/effects/model-client.ts';
import { operationNames, type OperationName } from './operations.ts';

export const planOutput = z.strictObject({
  operation: z.enum(operationNames),
  parameters: z.record(z.string(), z.unknown()),
  rationale: z.string().trim().min(1).max(4000),
});
export type PlanOutput = z.infer<typeof planOutput>;

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
  task: z.looseObject({
    title: z.string(),
    instructions: z.string(),
    requestedOperation: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    dataAsOf: z.string().optional(),
  }),
  operations: z.array(
    z.strictObject({ name: z.string(), description: z.string(), idempotent: z.boolean(), reversible: z.boolean() }),
  ),
  previousReasons: z.array(z.string()),
});
export type PlanInput = z.infer<typeof planInput>;

/** Keywords of the title and instructions, first match wins. */
const keywordRules: readonly [RegExp, OperationName][] = [
  [/\b(credit|refund|compensat\w*|goodwill)\b/i, 'issue_credit'],
  [/\b(publish|post|announce\w*|blog)\b/i, 'publish_post'],
  [/\b(report|summary|digest)\b/i, 'send_report'],
  [/\b(crm|record|contact|account|update)\b/i, 'update_crm_record'],
];

/**
 * The offline planner: the task's `requestedOperation` and `parameters` when given, otherwise the
 * operation picked by keywords of the title and instructions. A task it cannot read, or that names
 * no known operation, gets an answer without an operation: invalid, so the workflow escalates.
 */
export function localPlanner(input: unknown): unknown {
  const parsed = planInput.safeParse(input);
  if (!parsed.success) return { rationale: 'the planning input could not be read' };
  const { task } = parsed.data;
  const parameters = task.parameters ?? {};
  if (task.requestedOperation !== undefined) {
    return {
      operation: task.requestedOperation,
      parameters,
      rationale: `The requester asked for ${task.requestedOperation}: "${task.title}".`,
    };
  }
  const text = `${task.title}\n${task.instructions}`;
  const match = keywordRules.find(([pattern]) => pattern.test(text));
  if (!match) return { parameters, rationale: 'No catalogue operation matches this task.' };
  return {
    operation: match[1],
    parameters,
    rationale: `The task mentions ${match[0].source.replace(/\\b|\(|\)|\\w\*/g, '')}: ${match[1]} fits "${task.title}".`,
  };
}
