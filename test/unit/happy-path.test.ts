import { describe, expect, it } from 'vitest';
import { Harness } from '../support/harness.ts';

describe('the happy path', () => {
  it('runs from request to completion, requesting each effect once', () => {
    const h = Harness.create();
    expect(h.paths).toEqual(['beforeAction.requestReceived']);
    h.toExecuting();
    expect(h.paths).toEqual(['executingAction.executing']);
    h.execute();
    expect(h.paths).toEqual(['notifyingCustomer.attempting']);
    h.notify();
    expect(h.paths).toEqual(['completed']);
    expect(h.record.status).toBe('done');
    expect(h.record.timers).toEqual({});
    expect(h.effects.map((e) => e.jobId)).toEqual([
      'wf-1/classify/1',
      'wf-1/policy/1',
      'wf-1/account/1',
      'wf-1/recommend/1',
      'wf-1/validate/1',
      'wf-1/fraud/1',
      'wf-1/execute/1',
      'wf-1/notify/1',
    ]);
    const refund = h.effects.find((e) => e.type === 'executeRefund');
    expect(refund?.params).toMatchObject({ idempotencyKey: 'support-action:wf-1:v1', amount: 120, currency: 'EUR' });
  });
});
