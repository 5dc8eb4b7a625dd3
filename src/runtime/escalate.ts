/** Giving up on a job: its workflow is handed to a person with the definition's dead-letter event. */
import type { Engine } from '../engine/engine.ts';
import type { Principal } from '../engine/principal.ts';

/** Sends the definition's dead-letter event (its own name for "a person takes over"), if it has one. */
export async function escalateJob(
  engine: Engine,
  principal: Principal,
  workflowId: string,
  jobId: string,
  reason: string,
): Promise<{ outcome: string }> {
  const record = await engine.load(workflowId);
  if (!record) return { outcome: 'notFound' };
  const type = engine.definitionOf(record).deadLetterEvent;
  if (type === null) return { outcome: 'noDeadLetterEvent' };
  return engine.applyEvent(
    workflowId,
    { type, eventId: `${jobId}/dead-letter`, payload: { reason, jobId } },
    principal,
  );
}
