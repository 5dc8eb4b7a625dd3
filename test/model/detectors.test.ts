/**
 * The generator's detectors fire: an unreachable state is named, and a chart that lets a refund
 * skip the approval is caught by the invariant check on the traversed edges.
 */
import { describe, expect, it } from 'vitest';
import { generatePaths } from '../../src/paths/generate.ts';
import { withApprovalSkipped, withOrphanState } from './mutants.ts';

describe('the path generator’s detectors', { timeout: 60_000 }, () => {
  it('names a state node no event leads to', () => {
    const { report } = generatePaths(withOrphanState, { simple: false });
    expect(report.unreachable).toEqual(['orphan']);
    expect(report.reachable).toBe(report.stateNodes - 1);
  });

  it('reports the refund of a chart that can skip the approval', () => {
    const { report } = generatePaths(withApprovalSkipped, { simple: false });
    const violations = new Set(report.invariantViolations.flatMap((v) => v.violations));
    expect(violations).toContain('refund without an approval of the current recommendation');
    expect(violations).toContain('refund without an authorised approver');
    expect(report.invariantViolations.map((v) => v.event.type)).toContain('FRAUD_CLEARED');
  });
});
