/** How `warden demo` drives a support request: an agent files it, a demo approver approves the refund. */
import { prefilledDecision } from '../../src/authoring/demo-decide.ts';
import type { DemoScript } from '../../src/definitions/workflow.ts';
import type { SupportContext } from './support.context.ts';
import { eventSchemas } from './support.events.ts';
import { roles } from './support.events.ts';
import { supportView } from './view.ts';

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
  decide: prefilledDecision({
    schema: eventSchemas.APPROVED,
    view: supportView,
    state: 'beforeAction.awaitingApproval',
    event: 'APPROVED',
    principal: {
      id: 'demo-approver',
      tenantId: 'demo',
      kind: 'user',
      roles: [roles.approver],
      claims: { approvalLimit: 500 },
    },
    note: 'approver sees: refund {evidence.recommendation.amount} {evidence.recommendation.currency}, recommendation v{evidence.recommendation.version} {evidence.recommendation.contentHash}',
  }),
};
