/**
 * What a workflow keeps: `GET /v1/workflows/{id}/audit` (its trail) and `GET …/artifacts/{ref}` (its evidence).
 */
import { contentHashOf } from '../../../effects/canonical-json.ts';
import { ApiError } from '../../errors.ts';
import { readQuery } from '../../read-json.ts';
import { auditQuery } from '../../schemas.ts';
import type { WorkflowRouteGroup } from './kit.ts';
import { respond } from '../../respond.ts';
import { responseSchemas } from '../../responses.ts';

export const auditAndArtifacts: WorkflowRouteGroup = (app, { deps, loadOwned }) => {
  const { store } = deps;

  app.get('/:id/audit', async (c) => {
    const record = await loadOwned(c.req.param('id'), c.get('principal'));
    const query = readQuery(c, auditQuery);
    const [page, refused] = await Promise.all([
      store.auditPage(record.workflowId, { cursor: query.cursor ?? null, limit: query.limit }),
      store.refusalCount(record.workflowId),
    ]);
    // Beyond the cap, refusals are counted, not recorded: the count says how many there were.
    return respond(c, responseSchemas.AuditPage, {
      workflowId: record.workflowId,
      entries: page.items,
      next: page.next,
      refusalsCounted: refused,
    });
  });

  /**
   * One stored artifact of the workflow, for whoever may read the workflow (tenant-checked as every
   * read): `ref` is its id, or `<id>#<hash>` as the audit trail cites it (the hash must match).
   * Archived workflows answer from their archive, through the same store read.
   */
  app.get('/:id/artifacts/:ref{.+}', async (c) => {
    const record = await loadOwned(c.req.param('id'), c.get('principal'));
    const ref = c.req.param('ref');
    const cut = ref.lastIndexOf('#');
    const [artifactId, hash] = cut < 0 ? [ref, null] : [ref.slice(0, cut), ref.slice(cut + 1)];
    const artifact =
      artifactId.length > 0 && artifactId.length <= 500 ? await store.getArtifact(record.workflowId, artifactId) : null;
    if (!artifact || artifact.workflowId !== record.workflowId || (hash !== null && artifact.hash !== hash)) {
      throw new ApiError('NOT_FOUND', `no artifact ${ref} in workflow ${record.workflowId}`);
    }
    c.set('workflowId', record.workflowId);
    return respond(c, responseSchemas.Artifact, {
      workflowId: record.workflowId,
      id: artifact.id,
      kind: artifact.kind,
      hash: artifact.hash,
      // The content as stored still has the hash it is cited by: anything else is reported, not hidden.
      hashVerified: contentHashOf(artifact.content) === artifact.hash,
      createdAt: new Date(artifact.createdAt).toISOString(),
      content: artifact.content,
    });
  });
};
