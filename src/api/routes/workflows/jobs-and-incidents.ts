/**
 * `GET /v1/workflows/{id}/jobs`: the jobs the workflow waits on and its incidents, as the store
 * keeps them (tenant-checked as every workflow read).
 */
import { workflowJobs, workflowJobsSchema } from '../../job-report.ts';
import { respond } from '../../respond.ts';
import type { WorkflowRouteGroup } from './kit.ts';

export const jobsAndIncidents: WorkflowRouteGroup = (app, { deps, loadOwned }) => {
  app.get('/:id/jobs', async (c) => {
    const record = await loadOwned(c.req.param('id'), c.get('principal'));
    c.set('workflowId', record.workflowId);
    return respond(c, workflowJobsSchema, await workflowJobs(deps, deps.engine.definitionOf(record), record));
  });
};
