/** A valid agent-task creation body: an idempotent CRM update on fresh data, as a requester sends it. */
export function crmUpdateTask(now = Date.now()) {
  return {
    definition: 'agent-task',
    input: {
      task: {
        title: 'Tier update',
        instructions: 'Set the tier of acc-7 to gold.',
        requestedOperation: 'update_crm_record',
        parameters: { recordId: 'acc-7', fields: { tier: 'gold' } },
        dataAsOf: new Date(now).toISOString(),
      },
    },
  };
}
