/**
 * Invariants checked after every step of a driven workflow. The central one, from the seed:
 * no customer-affecting action executes unless authorised evidence, current policy validation,
 * current human approval, an idempotency key and a legal transition are all present.
 */
import type { SupportContext } from '../support.context.ts';
import type { PathObservation } from '../../../src/definitions/workflow.ts';
import type { AuditEntry, Effect } from '../../../src/engine/decision.ts';

export function refundViolations(
  context: SupportContext,
  effect: Effect,
  audit: readonly AuditEntry[],
  definitionVersion = 2,
): string[] {
  const violations: string[] = [];
  const rec = context.recommendation;
  if (!rec) return ['refund without a recommendation'];
  if (context.validation?.outcome !== 'valid' || context.validation.recommendationVersion !== rec.version) {
    violations.push('refund without a passed validation of the current recommendation version');
  }
  const approval = context.approval;
  if (!approval || approval.recommendationVersion !== rec.version || approval.contentHash !== rec.contentHash) {
    violations.push('refund without an approval of the current recommendation');
  }
  const approvedBy = audit.findLast((e) => e.eventType === 'APPROVED' && e.outcome === 'accepted');
  if (!approvedBy?.actor.roles.includes('support_approver') || approvedBy.actor.id === context.requesterId) {
    violations.push('refund without an authorised approver');
  }
  if (approval && (approval.approverTenantId !== context.tenantId || rec.amount > approval.approverLimit)) {
    violations.push('refund approved outside the approver’s tenant or limit');
  }
  const fraud = context.fraud;
  const screened =
    fraud?.status === 'notScreened' || (fraud?.status === 'cleared' && fraud.recommendationVersion === rec.version);
  if (definitionVersion >= 2 && !screened)
    violations.push('refund without a fraud screen of the current recommendation');
  if (effect.params.idempotencyKey !== `support-action:${context.workflowId}:v${rec.version}`) {
    violations.push('refund without the idempotency key of the current recommendation');
  }
  if (approval && effect.params.amount !== approval.amount) violations.push('refund of another amount than approved');
  return violations;
}

/** The support workflow's invariants of one step: every refund it requests is fully authorised. */
export function supportInvariants(observation: PathObservation<SupportContext>): string[] {
  const { before, decision, context, trail } = observation;
  if (decision.outcome === 'refused') return [];
  return decision.effects
    .filter((effect) => effect.type === 'executeRefund')
    .flatMap((effect) => refundViolations(context, effect, trail, before.definitionVersion));
}
