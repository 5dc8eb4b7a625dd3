/**
 * Driving a workflow: `POST /v1/workflows/{id}/events` (a caller's event), `GET …/tools` (the events a
 * caller may send, as LLM tools) and `POST …/proposals` (a model's tool call, applied as the caller's
 * event through every guard).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { ApplyOutcome } from '../../../engine/engine.ts';
import type { ProposedBy } from '../../../engine/decision.ts';
import { settledOrThrow } from '../../apply-outcome.ts';
import { callerKey } from '../../caller-key.ts';
import type { ApiEnv } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { createRateLimiter } from '../../rate-limit.ts';
import { readJson } from '../../read-json.ts';
import { eventBody, proposalBody } from '../../schemas.ts';
import { proposalKind, toolsFor } from '../../tools.ts';
import { etag, noWorkflow, storedEventId, type WorkflowRouteGroup } from './kit.ts';
import { respond } from '../../respond.ts';
import { responseSchemas } from '../../responses.ts';

export const eventsAndProposals: WorkflowRouteGroup = (app, { deps, loadOwned }) => {
  const { engine, store, clock } = deps;
  // Refused events cost a decision and a stored refusal: a caller whose events to one workflow keep
  // being refused is slowed down for that workflow only; other callers and workflows are not.
  const refusals = createRateLimiter({ perMinute: deps.refusalsPerMinute ?? 0, clock });

  function outcomeResponse(c: Context<ApiEnv>, workflowId: string, eventId: string, outcome: ApplyOutcome) {
    const settled = settledOrThrow(outcome, { notFound: noWorkflow(workflowId), otherTenantAsAbsent: true });
    c.header('ETag', etag(settled));
    return respond(c, responseSchemas.EventAccepted, {
      workflowId,
      eventId,
      outcome: 'accepted',
      state: settled.statePaths,
      version: settled.version,
    });
  }

  async function sendEvent(
    c: Context<ApiEnv>,
    id: string,
    event: {
      type: string;
      eventId?: string | undefined;
      payload: unknown;
      causationId?: string | undefined;
      proposedBy?: ProposedBy;
    },
  ) {
    const principal = c.get('principal');
    const record = await loadOwned(id, principal);
    const refusalKey = callerKey(principal.tenantId, principal.id, record.workflowId);
    const wait = refusals.peek(refusalKey);
    if (wait > 0) {
      throw new ApiError(
        'RATE_LIMITED',
        'too many refused events to this workflow; wait before sending more',
        { retryAfterMs: wait },
        { 'Retry-After': String(Math.ceil(wait / 1000)) },
      );
    }
    const ifMatch = c.req.header('If-Match');
    let expectedVersion: number | undefined;
    if (ifMatch !== undefined && ifMatch.trim() !== '*') {
      const match = /^(?:W\/)?"?(\d+)"?$/.exec(ifMatch.trim());
      if (!match) throw new ApiError('BAD_REQUEST', 'If-Match must be an ETag like "12"');
      expectedVersion = Number(match[1]);
    }
    const eventId = event.eventId ?? randomUUID();
    const correlationId = c.req.header('X-Correlation-Id');
    const outcome = await engine.applyEvent(
      id,
      {
        type: event.type,
        eventId: storedEventId(principal, eventId),
        payload: event.payload,
        causationId: event.causationId ?? null,
        ...(event.proposedBy ? { proposedBy: event.proposedBy } : {}),
        ...(correlationId && correlationId.length <= 200 ? { correlationId } : {}),
      },
      principal,
      // The record read above (for the tenant check) is decided on: no second read.
      expectedVersion === undefined ? { known: record } : { expectedVersion },
    );
    c.set('workflowId', record.workflowId);
    if (outcome.outcome === 'refused') refusals.take(refusalKey);
    return outcomeResponse(c, id, eventId, outcome);
  }
  app.post('/:id/events', async (c) => {
    const body = await readJson(c, eventBody);
    return sendEvent(c, c.req.param('id'), body);
  });

  app.get('/:id/tools', async (c) => {
    const principal = c.get('principal');
    const record = await loadOwned(c.req.param('id'), principal);
    return respond(c, responseSchemas.Tools, {
      workflowId: record.workflowId,
      version: record.version,
      tools: toolsFor(engine.definitionOf(record), record, principal),
    });
  });

  app.post('/:id/proposals', async (c) => {
    const principal = c.get('principal');
    const id = c.req.param('id');
    const record = await loadOwned(id, principal);
    const proposal = await readJson(c, proposalBody);
    // A repeated proposal gets its first outcome, whatever the state is now.
    if (proposal.eventId) {
      const seen = await store.outcomeOf(id, storedEventId(principal, proposal.eventId));
      if (seen) return outcomeResponse(c, id, proposal.eventId, { outcome: 'duplicate', stored: seen });
    }
    const definition = engine.definitionOf(record);
    // A person event the caller could send goes on to the engine, which refuses it as proposed
    // (`FORBIDDEN`, `PERSON_EVENT`) and audits the attempt: only the person's own request decides it.
    if (proposalKind(definition, record, principal, proposal.name) === 'notOffered') {
      const offered = toolsFor(definition, record, principal).map((t) => t.function.name);
      throw new ApiError('TOOL_NOT_ALLOWED', `${proposal.name} is not a tool this caller may use now`, { offered });
    }
    let payload: unknown = proposal.arguments;
    if (typeof payload === 'string') {
      try {
        payload = JSON.parse(payload);
      } catch {
        throw new ApiError('INVALID_EVENT', 'the tool arguments are not valid JSON');
      }
    }
    // The proposal's id is its event id: the caller's own or one made here.
    const proposalId = proposal.eventId ?? randomUUID();
    const proposedBy: ProposedBy = { kind: 'model', model: proposal.model ?? { id: 'unknown' }, proposalId };
    return sendEvent(c, id, { type: proposal.name, eventId: proposalId, payload, proposedBy });
  });
};
