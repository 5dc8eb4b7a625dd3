/**
 * The token claims the support workflow reads: an approver's limit. The platform hands a caller's
 * claims over unread (`principal.claims`); they are validated here, and a claim that is missing or
 * malformed grants nothing — an approval without a valid limit is refused, never a crash.
 */
import { z } from 'zod';
import type { TokenClaimSpec } from '../../src/definitions/workflow.ts';
import type { Principal } from '../../src/engine/principal.ts';
import { roles } from './support.events.ts';

/** Highest refund amount the principal may approve, in the request's major units. */
export const approvalLimitSchema = z.number().min(0);

/** The principal's approval limit, or null when its token carries none that is valid. */
export function approvalLimitOf(principal: Pick<Principal, 'claims'>): number | null {
  const claims = principal.claims;
  const raw = claims && Object.hasOwn(claims, 'approvalLimit') ? claims.approvalLimit : undefined;
  const parsed = approvalLimitSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** Is `amount` within the principal's approval limit? No valid limit, no authority. */
export function withinApprovalLimit(principal: Pick<Principal, 'claims'>, amount: number): boolean {
  const limit = approvalLimitOf(principal);
  return limit !== null && amount <= limit;
}

export const supportClaims: Readonly<Record<string, TokenClaimSpec>> = {
  approvalLimit: {
    description: 'the highest refund amount an approver may approve, in major units (none: approves nothing)',
    starter: { [roles.approver]: 500 },
  },
};
