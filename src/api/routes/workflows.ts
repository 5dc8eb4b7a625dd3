/**
 * `/v1/workflows`: create, read, send events, audit trail, artifacts, queues, live stream, and the tool view
 * for agents (the events a caller may send, as LLM tools, and proposals validated against them).
 */
import type { ApiDeps } from '../context.ts';
import { ApiError } from '../errors.ts';
import { auditAndArtifacts } from './workflows/audit-and-artifacts.ts';
import { createAndList } from './workflows/create-and-list.ts';
import { eventsAndProposals } from './workflows/events-and-proposals.ts';
import { jobsAndIncidents } from './workflows/jobs-and-incidents.ts';
import { workflowKit } from './workflows/kit.ts';
import { viewAndLongPoll } from './workflows/view-and-long-poll.ts';
import { workflowStream } from './workflow-stream.ts';
import { respond } from '../respond.ts';
import { streamTicket } from '../responses.ts';
import { documentedRoutes } from '../route-kit.ts';

export function workflowRoutes(deps: ApiDeps) {
  const app = documentedRoutes('/v1/workflows');
  const kit = workflowKit(deps);
  const { loadOwned } = kit;
  for (const group of [createAndList, viewAndLongPoll, eventsAndProposals, auditAndArtifacts, jobsAndIncidents])
    group(app, kit);

  app.get('/:id/stream', workflowStream(deps, loadOwned));

  /** A ticket to this workflow's stream for a browser's `EventSource`, which cannot send the token. */
  app.post('/:id/stream-tickets', async (c) => {
    const principal = c.get('principal');
    const record = await loadOwned(c.req.param('id'), principal);
    if (!deps.auth.tickets) throw new ApiError('NOT_FOUND', 'this server issues no stream tickets');
    const { ticket, expiresAt } = deps.auth.tickets.issue(principal, record.workflowId);
    const streamUrl = `/v1/workflows/${record.workflowId}/stream?ticket=${ticket}`;
    return respond(c, streamTicket, { ticket, expiresAt: new Date(expiresAt).toISOString(), streamUrl }, 201);
  });

  return app;
}
