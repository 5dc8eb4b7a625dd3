/**
 * What an effect handler is given for a job: the job, the workflow's context, the clock, an abort
 * signal and the workflow's artifact store. One builder for the in-process worker and for the
 * failures external workers report, so both see the same job.
 */
import { contentHashOf } from '../effects/canonical-json.ts';
import type { EffectContext, EffectObserver } from '../effects/effect.ts';
import type { Artifact, JobMessage, WorkflowStore } from '../engine/store-port.ts';

export function effectContextFor(
  store: WorkflowStore,
  clock: () => number,
  message: JobMessage,
  context: unknown,
  options: {
    signal: AbortSignal;
    deliveries: number;
    /**
     * Where to keep the artifacts the handler saves, for the caller to write with the result's
     * commit (one round trip for both); written at once when absent.
     */
    deferred?: Artifact[];
    /** Told about the attempt's failures and schema failures (metrics). */
    observer?: EffectObserver;
  },
): EffectContext<never> {
  const { deferred } = options;
  return {
    job: { ...message, deliveries: options.deliveries },
    context: context as never,
    now: clock,
    signal: options.signal,
    ...(options.observer ? { observer: options.observer } : {}),
    saveArtifact: async (kind, content) => {
      const hash = contentHashOf(content);
      const id = `${message.jobId}:${kind}:${hash.slice(7, 19)}`;
      const artifact = { id, workflowId: message.workflowId, hash, kind, content, createdAt: clock() };
      if (deferred) deferred.push(artifact);
      else await store.putArtifact(artifact);
      return { id, hash };
    },
    loadArtifact: async (id) =>
      deferred?.find((artifact) => artifact.id === id) ?? (await store.getArtifact(message.workflowId, id)),
  };
}
