/** How `warden demo` drives a support request: an agent files it, a demo approver approves the refund. */
import type { DemoScript } from '../../src/definitions/workflow.ts';
import type { SupportContext } from './support.context.ts';
import { roles } from './support.roles.ts';

export const supportDemo: DemoScript<SupportContext> = {
  input: () => ({
    request: {
      customerId: 'cust-42',
      subject: 'Charged twice',
      message: 'Order 1234 was billed twice; please refund the duplicate charge.',
      orderId: '1234',
      requestedAmount: 42,
      currency: 'EUR',
    },
  }),
  creator: { id: 'demo-agent', tenantId: 'demo', kind: 'user', roles: [roles.agent] },
  decide(context, record) {
    const rec = context.recommendation;
    if (!rec || !record.statePaths.includes('beforeAction.awaitingApproval')) return null;
    return {
      type: 'APPROVED',
      payload: { recommendationVersion: rec.version, contentHash: rec.contentHash, amount: rec.amount },
      principal: {
        id: 'demo-approver',
        tenantId: 'demo',
        kind: 'user',
        roles: [roles.approver],
        claims: { approvalLimit: 500 },
      },
      note: `approver sees: refund ${rec.amount} ${rec.currency}, recommendation v${rec.version} ${rec.contentHash}`,
    };
  },
};
