/** How `warden demo --definition agent-task` drives a task: a requester files it, an approver approves the plan. */
import type { DemoScript } from '../../src/definitions/workflow.ts';
import type { AgentTaskContext } from './context.ts';
import { roles } from './roles.ts';

export const agentTaskDemo: DemoScript<AgentTaskContext> = {
  input: (now) => ({
    task: {
      title: 'Update the CRM tier of account acc-7',
      instructions: 'The customer upgraded yesterday; set the tier field of record acc-7 to gold.',
      requestedOperation: 'update_crm_record',
      parameters: { recordId: 'acc-7', fields: { tier: 'gold' } },
      dataAsOf: new Date(now).toISOString(),
    },
  }),
  creator: { id: 'demo-requester', tenantId: 'demo', kind: 'user', roles: [roles.requester] },
  decide(context, record) {
    const plan = context.plan;
    if (!plan || !record.statePaths.includes('awaitingApproval')) return null;
    return {
      type: 'APPROVED',
      payload: { planVersion: plan.version, planHash: plan.hash },
      principal: { id: 'demo-approver', tenantId: 'demo', kind: 'user', roles: [roles.approver] },
      note: `approver sees: ${plan.operation} ${JSON.stringify(plan.parameters)}, plan v${plan.version} ${plan.hash}`,
    };
  },
};
