/** The principals of support's tests: one per kind of caller that matters to a guard (the path model derives its own). */
import type { Principal } from '../../src/engine/principal.ts';

export const tenant = 'acme';

const catalogue = {
  agent: { id: 'agent-1', tenantId: tenant, kind: 'user', roles: ['support_agent'] },
  approver: {
    id: 'approver-1',
    tenantId: tenant,
    kind: 'user',
    roles: ['support_approver'],
    claims: { approvalLimit: 1000 },
  },
  smallApprover: {
    id: 'approver-2',
    tenantId: tenant,
    kind: 'user',
    roles: ['support_approver'],
    claims: { approvalLimit: 50 },
  },
  reviewer: { id: 'reviewer-1', tenantId: tenant, kind: 'user', roles: ['support_reviewer'] },
  worker: { id: 'worker-1', tenantId: 'system', kind: 'service', roles: ['worker'] },
  /** The requester themselves, who also holds the approver role: may not approve their own request. */
  requesterApprover: {
    id: 'agent-1',
    tenantId: tenant,
    kind: 'user',
    roles: ['support_agent', 'support_approver'],
    claims: { approvalLimit: 1000 },
  },
  otherTenantApprover: {
    id: 'approver-9',
    tenantId: 'globex',
    kind: 'user',
    roles: ['support_approver'],
    claims: { approvalLimit: 1_000_000 },
  },
} satisfies Record<string, Principal>;

/** Typed as principals, so a test may give any one of them other claims. */
export const principals: Readonly<Record<keyof typeof catalogue, Principal>> = catalogue;

/** The principal a well-behaved caller would use for an event type. */
export function principalFor(type: string): Principal {
  if (['APPROVED', 'REJECTED_BY_REVIEWER', 'CHANGES_REQUESTED'].includes(type)) return principals.approver;
  if (type.startsWith('REVIEW_') || type === 'COMPENSATE') return principals.reviewer;
  if (type === 'CANCEL_REQUESTED' || type === 'START' || type === 'ESCALATE') return principals.agent;
  return principals.worker;
}
