/**
 * What an effect handler is given for a job: the job, the workflow's context, the clock, an abort
 * signal and the workflow's artifact store. One builder for the in-process worker and for the
 * failures external workers report, so both see the same job.
 */
import { contentHashOf } from '../effects/canonical-json.ts';
import type { EffectContext } from '../effects/effect.ts';
import type { JobMessage, WorkflowStore } from '../engine/store-port.ts';

export function effectContextFor(
  store: WorkflowStore,
  clock: () => number,
  message: JobMessage,
  context: unknown,
  options: { signal: AbortSignal; deliveries: number },
): EffectContext<never> {
  return {
    job: { ...message, deliveries: options.deliveries },
    context: context as never,
    now: clock,
    signal: options.signal,
    saveArtifact: async (kind, content) => {
      const hash = contentHashOf(content);
      const id = `${message.jobId}:${kind}:${hash.slice(7, 19)}`;
      await store.putArtifact({ id, workflowId: message.workflowId, hash, kind, content, createdAt: clock() });
      return { id, hash };
    },
    loadArtifact: (id) => store.getArtifact(message.workflowId, id),
  };
}
