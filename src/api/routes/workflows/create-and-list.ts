/**
 * `POST /v1/workflows` creates a workflow of a definition; `GET /v1/workflows` pages a queue (with
 * `state`: the workflows of one definition waiting in a state) or else the tenant's workflow list
 * (`workflow-list.ts`), each item with its definition's summary.
 */
import type { WorkflowRecord } from '../../../engine/decision.ts';
import { contentHashOf } from '../../../effects/canonical-json.ts';
import { boundDetails } from '../../../engine/bounded-details.ts';
import { ApiError } from '../../errors.ts';
import { requestedQueue } from '../../queue-resolver.ts';
import { parse, readJson, readQuery } from '../../read-json.ts';
import { createWorkflowBody, workflowListQuery } from '../../schemas.ts';
import { etag, type WorkflowRouteGroup } from './kit.ts';
import { checkQueueFilters, workflowListPage } from './workflow-list.ts';
import { respond } from '../../respond.ts';
import { workflowsPage, workflowViewSchema } from '../../responses.ts';

/** Fields beside `input` that would carry authority: refused naming the token as where it comes from. */
const authorityFields = new Set(['tenant', 'tenantId', 'actor', 'principal', 'roles', 'claims', 'sub']);

export const createAndList: WorkflowRouteGroup = (app, { deps, view, summary }) => {
  const { engine, store, clock } = deps;

  /** The definition's short line for queue and workflow listings; null when it has none or the record cannot be read. */
  function summaryOf(record: WorkflowRecord | null): Record<string, unknown> | null {
    if (!record) return null;
    try {
      return summary(record);
    } catch {
      // One unreadable workflow must not take the whole queue page with it; its own page says why.
      return null;
    }
  }

  app.post('/', async (c) => {
    const principal = c.get('principal');
    const { definition: wanted, input, correlationId, ...rest } = await readJson(c, createWorkflowBody);
    const key = c.req.header('Idempotency-Key');
    if (key !== undefined && !/^[\x21-\x7e]{1,200}$/.test(key)) {
      throw new ApiError('BAD_REQUEST', 'Idempotency-Key must be 1–200 visible ASCII characters');
    }
    const topLevel = Object.keys(rest);
    if (input !== undefined && topLevel.length > 0) {
      // Beside `input`, these are no input's fields: who acts and for which tenant is the token's to say.
      const authority = topLevel.filter((field) => authorityFields.has(field));
      const named = (fields: string[]) => fields.slice(0, 5).join(', ') + (fields.length > 5 ? ', …' : '');
      const message =
        authority.length > 0
          ? `${named(authority)}: the tenant, roles and actor come from the token only`
          : `send the creation input as \`input\` or at the top level, not both (${named(topLevel)} beside \`input\`)`;
      throw new ApiError('INVALID_INPUT', message, boundDetails({ topLevel }));
    }
    const [id, version] = (wanted ?? deps.registry.bundles[0]?.id ?? '').split('@');
    const bundle = deps.registry.bundle(id ?? '');
    const target = bundle && (version === undefined ? bundle.latest : deps.registry.get(bundle.id, Number(version)));
    if (!bundle || !target) {
      throw new ApiError('INVALID_INPUT', `no definition ${wanted ?? ''} is registered`, {
        known: [...deps.registry.versions.keys()],
      });
    }
    const body = parse(bundle.createSchema, input ?? rest, 'INVALID_INPUT');
    const created = await engine.createWorkflow({
      definitionId: target.id,
      definitionVersion: target.version,
      body,
      principal,
      dedupKey: key,
      // What was asked for, as sent: a retry after a new version became the latest still matches.
      dedupFingerprint:
        key === undefined
          ? undefined
          : contentHashOf({ definition: bundle.id, version: version === undefined ? null : target.version, body }),
      correlationId,
    });
    if (created.outcome === 'refused') {
      throw ApiError.of(
        created.code === 'INVALID_EVENT' ? 'INVALID_INPUT' : created.code,
        created.message,
        created.details,
      );
    }
    const record = created.record;
    c.set('workflowId', record.workflowId);
    c.header('ETag', etag(record));
    c.header('Location', `/v1/workflows/${record.workflowId}`);
    return respond(c, workflowViewSchema, view(record, principal), created.outcome === 'created' ? 201 : 200);
  });

  app.get('/', async (c) => {
    const principal = c.get('principal');
    const query = readQuery(c, workflowListQuery);
    if (query.state === undefined)
      return respond(c, workflowsPage, await workflowListPage(deps, principal.tenantId, query, summaryOf));
    checkQueueFilters(query);
    const { definitionId, statePath } = requestedQueue(deps.resolveQueue, query.state, query.definition);
    const page = await store.listByState({
      tenantId: principal.tenantId,
      definitionId,
      statePath,
      cursor: query.cursor ?? null,
      limit: query.limit,
    });
    // One load per item of the page, all sent at once: they go out together on the one connection.
    const records = await Promise.all(page.items.map((item) => store.load(item.workflowId)));
    const now = clock();
    return respond(c, workflowsPage, {
      page: 'queue',
      definition: definitionId,
      state: statePath,
      items: page.items.map((item, i) => ({
        ...item,
        since: new Date(item.since).toISOString(),
        timeInStateMs: now - item.since,
        summary: summaryOf(records[i] ?? null),
      })),
      next: page.next,
    });
  });
};
