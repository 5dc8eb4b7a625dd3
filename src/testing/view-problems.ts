/**
 * What a workflow's view renders, against the schema the OpenAPI document publishes for it: the
 * API returns what `render` returns, unchecked, so a render that drifts from its schema (a number
 * rendered as text, a field the schema does not declare) misleads every client that trusts the
 * document. The path suite renders the view in every state a shortest path ends in.
 */
import type { AnyWorkflowBundle } from '../definitions/workflow.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';
import { contextOf } from '../paths/walk.ts';

/** The ways the view of `record` departs from `bundle.view.schema`; none when it matches. */
export function viewProblems(
  bundle: AnyWorkflowBundle,
  definition: WorkflowDefinition,
  record: WorkflowRecord,
): string[] {
  const view = bundle.view as {
    schema: { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: Issue[] } } };
    render(context: unknown, record: WorkflowRecord): Record<string, unknown>;
  };
  const rendered = view.render(contextOf(definition, record), record);
  const parsed = view.schema.safeParse(rendered);
  if (!parsed.success) {
    const issues = (parsed.error?.issues ?? []).map((i) => `${i.path.map(String).join('.') || 'view'}: ${i.message}`);
    return [`view.schema refuses what render returns (${issues.join('; ')})`];
  }
  const declared = parsed.data && typeof parsed.data === 'object' ? Object.keys(parsed.data) : [];
  const undeclared = Object.keys(rendered).filter((key) => !declared.includes(key));
  return undeclared.length > 0 ? [`render returns ${undeclared.join(', ')}, which view.schema does not declare`] : [];
}

interface Issue {
  path: readonly PropertyKey[];
  message: string;
}
