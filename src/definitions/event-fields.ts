/**
 * Payload fields every workflow's event schemas share: bounded text, content hashes, artifact
 * references, the job id a result names, the error class a failed job reports, and what a model
 * result's calls spent. Pure zod.
 */
import { z } from 'zod';
import { errorClasses } from '../effects/effect-errors.ts';

/** Non-empty, trimmed text of at most `max` characters. */
export const text = (max: number) => z.string().trim().min(1).max(max);

export const contentHash = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 hex digits>');

/** `<workflowId>/<operation>/<attempt>`, the deterministic id of the job that produced a result. */
export const jobId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,80}\/[a-z]+\/[1-9][0-9]{0,5}$/, '<workflowId>/<operation>/<attempt>');

/** A stored artifact by id and the content hash it must still have. */
export const artifactRef = z.strictObject({ id: text(200), hash: contentHash });

export const errorClass = z.enum(errorClasses);

/** What the model calls behind a result spent, a repair included (`reportedUsageOf` in src/effects/model-call.ts). */
export const modelUsage = z.strictObject({
  promptTokens: z.number().int().nonnegative().max(100_000_000),
  completionTokens: z.number().int().nonnegative().max(100_000_000),
  calls: z.number().int().min(1).max(10),
});
