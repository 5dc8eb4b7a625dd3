/**
 * What the `/v1/workflows` routes share: reading a workflow the caller may see, its view, its
 * `ETag`, and the space a caller's event ids live in.
 */
import type { WorkflowRecord } from '../../../engine/decision.ts';
import { actsAcrossTenants, type Principal } from '../../../engine/principal.ts';
import { isWorkflowId } from '../../../engine/shards.ts';
import { callerKey } from '../../caller-key.ts';
import type { ApiDeps } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import type { DocumentedRoutes } from '../../route-kit.ts';
import { ViewCache, type workflowView } from '../../views.ts';

export const etag = (record: { version: number }) => `"${record.version}"`;
export const active = (record: WorkflowRecord) => record.status === 'active';

/**
 * Callers name their events in a space of their own: the stored id is prefixed with their tenant
 * and subject, each part length-prefixed, so no caller can take an id the system uses (job results,
 * timers, START) or one another caller will use. Responses give back the caller's own id.
 */
export const storedEventId = (principal: Principal, clientId: string) =>
  `api:${callerKey(principal.tenantId, principal.id, clientId)}`;

export interface WorkflowKit {
  deps: ApiDeps;
  /** The workflow, if it exists and belongs to the caller's tenant; otherwise 404 (never a hint). */
  loadOwned: (id: string, principal: Principal) => Promise<WorkflowRecord>;
  /** The view of a record, rendered by its workflow's own view (once per version of a shared record). */
  view: (record: WorkflowRecord, principal: Principal) => ReturnType<typeof workflowView>;
  /** The definition's short line for queue listings, null without one (once per version of a shared record). */
  summary: (record: WorkflowRecord) => Record<string, unknown> | null;
}

/** Routes of one concern, added to the `/v1/workflows` app. */
export type WorkflowRouteGroup = (app: DocumentedRoutes<'/v1/workflows'>, kit: WorkflowKit) => void;

/** The 404 of an id no caller's workflow has: an id of 16 KB is not echoed whole (none is over 80). */
export const noWorkflow = (id: string) => `no workflow ${id.length > 100 ? `${id.slice(0, 100)}…` : id}`;

export function workflowKit(deps: ApiDeps): WorkflowKit {
  const { engine, store, clock } = deps;
  const views = new ViewCache();
  return {
    deps,
    loadOwned: async (id, principal) => {
      const record = isWorkflowId(id) && id.length <= 80 ? await store.load(id) : null;
      const visible = record && (record.tenantId === principal.tenantId || actsAcrossTenants(principal));
      if (!record || !visible) throw new ApiError('NOT_FOUND', noWorkflow(id));
      return record;
    },
    view: (record, principal) => {
      const definition = engine.definitionOf(record);
      return views.view(deps.registry.bundle(definition.id), definition, record, principal, clock());
    },
    summary: (record) => {
      const definition = engine.definitionOf(record);
      return views.summary(deps.registry.bundle(definition.id), definition, record);
    },
  };
}
