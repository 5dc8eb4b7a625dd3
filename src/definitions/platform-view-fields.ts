/**
 * The fields the platform gives every workflow's view (`GET /v1/workflows/{id}`) beside what its
 * definition renders: a definition's view may not use their names (`defineWorkflow` refuses a view
 * schema that declares one, and a render returning one does not replace the platform's).
 */
export const platformViewFields = [
  'workflowId',
  'tenantId',
  'definition',
  'version',
  'createdAt',
  'updatedAt',
  'status',
  'state',
  'allowedEvents',
  'timers',
] as const;
