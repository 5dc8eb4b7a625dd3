/**
 * What a caller sees of a workflow: while it runs, its state, version, the events this caller may
 * send now, timers and evidence; once finished, its terminal result with the versions that made it.
 */
import type { SupportContext } from '../../machines/support.context.ts';
import { allowedEvents } from '../engine/allowed-events.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import { definitionKey, type WorkflowDefinition } from '../engine/definition.ts';
import type { Principal } from '../engine/principal.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';

function contextOf(definition: WorkflowDefinition, record: WorkflowRecord): SupportContext {
  return restoreSnapshot(definition.machine, record.workflowId, record.snapshot).context as SupportContext;
}

export function evidenceSummary(c: SupportContext) {
  return {
    classification: c.classification && {
      category: c.classification.category,
      confidence: c.classification.confidence,
      artifact: c.classification.artifact,
      model: c.classification.model,
      promptVersion: c.classification.promptVersion,
    },
    policy: c.evidence.policy,
    account: c.evidence.account,
    recommendation: c.recommendation,
    validation: c.validation,
    fraud: c.fraud,
    approval: c.approval,
  };
}

export function artifactRefs(c: SupportContext) {
  return [
    c.classification && { kind: 'classification', ...c.classification.artifact },
    c.evidence.policy && { kind: 'policy', ...c.evidence.policy.artifact },
    c.evidence.account && { kind: 'account', ...c.evidence.account.artifact },
    c.recommendation && { kind: 'recommendation', ...c.recommendation.artifact },
    c.fraud?.artifact && { kind: 'fraud-screen', ...c.fraud.artifact },
  ].filter((a) => a !== null && a !== undefined);
}

export function workflowView(
  definition: WorkflowDefinition,
  record: WorkflowRecord,
  principal: Principal,
  now: number,
) {
  const c = contextOf(definition, record);
  const base = {
    workflowId: record.workflowId,
    tenantId: record.tenantId,
    definition: definitionKey(definition),
    version: record.version,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
  };
  if (record.status !== 'active') {
    return {
      ...base,
      status: 'finished' as const,
      result: {
        outcome: record.statePaths[0] ?? 'unknown',
        receipts: { action: c.action.receipt, notification: c.notification, compensation: c.compensation },
        cancellation: c.cancellation,
        resolution: c.resolution,
        evidence: artifactRefs(c),
        versions: {
          definition: definitionKey(definition),
          classificationModel: c.classification?.model ?? null,
          classificationPrompt: c.classification?.promptVersion ?? null,
          recommendationModel: c.recommendation?.model ?? null,
          recommendationPrompt: c.recommendation?.promptVersion ?? null,
          policy: c.evidence.policy ? `${c.evidence.policy.policyId}@${c.evidence.policy.policyVersion}` : null,
          validator: c.validation?.validatorVersion ?? null,
        },
      },
    };
  }
  return {
    ...base,
    status: 'active' as const,
    state: record.statePaths,
    allowedEvents: allowedEvents(definition, record, principal),
    timers: Object.entries(record.timers).map(([id, t]) => ({
      id,
      dueAt: new Date(t.dueAt).toISOString(),
      inMs: t.dueAt - now,
    })),
    artifacts: artifactRefs(c),
    evidence: evidenceSummary(c),
    manualReview: c.manualReview,
    cancellation: c.cancellation,
    action: { status: c.action.status, idempotencyKey: c.action.idempotencyKey },
  };
}
