import { describe, expect, it } from 'vitest';
import { escalationDetail, escalationOf, escalationRecord } from '../../../src/authoring/escalation.ts';

describe('escalationOf', () => {
  it('records the reason and step the chart names, the event’s detail, its sender and time', () => {
    const deadLetter = { payload: { reason: 'gave up', jobId: 'w/x/1' }, actor: { id: 'worker-1' }, at: 5 };
    const escalation = escalationOf(deadLetter, { reason: 'ESCALATED', step: 'planning' });
    expect(escalation).toEqual({ reason: 'ESCALATED', detail: 'gave up', step: 'planning', by: 'worker-1', at: 5 });
    expect(escalationRecord.safeParse(escalation).success).toBe(true);
  });

  it('takes a failure’s message, else the fallback, and names a timer as the sender', () => {
    expect(escalationDetail({ payload: { message: 'down' } }, 'old')).toBe('down');
    expect(escalationDetail({ payload: { reason: 7 } }, 'old')).toBeNull();
    const timer = escalationOf({ at: 9 }, { reason: 'APPROVAL_TIMEOUT', step: 'awaitingApproval' }, 'last error');
    expect(timer).toMatchObject({ detail: 'last error', by: 'timer', at: 9 });
  });
});
