/**
 * The events a caller may send now reflect the guards that do not depend on what is sent: a guard
 * that refuses whatever the payload (no action receipt to compensate) hides its event; one that
 * reads the payload (an approval over the limit) leaves it listed, to be refused with a reason.
 */
import { describe, expect, it } from 'vitest';
import { principals } from '../support/principals.ts';
import { allowedEvents } from '../../src/engine/allowed-events.ts';
import { fixtures } from '../support/fixtures.ts';
import { agentTaskV1 } from '../../machines/agent-task/index.ts';
import { awaitingApproval, principals as taskPrincipals } from '../agent-task/harness.ts';

const typesFor = (h: ReturnType<typeof fixtures.awaitingApproval>, principal = principals.reviewer) =>
  allowedEvents(h.definition, h.record, principal).map((e) => e.type);

describe('allowed events', () => {
  it('does not offer COMPENSATE in manual review before any action, and offers it after one', () => {
    expect(typesFor(fixtures.manualReviewBeforeAction())).not.toContain('COMPENSATE');
    expect(typesFor(fixtures.manualReviewAfterAction())).toContain('COMPENSATE');
  });

  it('keeps offering an approval whose guard reads the payload, whatever the approver’s limit', () => {
    const h = fixtures.awaitingApproval();
    expect(typesFor(h, { ...principals.approver, claims: { approvalLimit: 1 } })).toContain('APPROVED');
  });

  it('offers an agent task’s approval and rejection to an approver: their checks read the plan version and hash sent', () => {
    const h = awaitingApproval();
    expect(h.state).toBe('awaitingApproval');
    const types = allowedEvents(agentTaskV1, h.record, taskPrincipals.approver).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['APPROVED', 'REJECTED']));
  });
});
