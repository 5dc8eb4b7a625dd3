/**
 * Random text from a pooled buffer of the system's CSPRNG: one `randomFillSync` per 4 KiB instead of
 * one per id (ids and lease tokens are made for every workflow, job and delivery). Each byte is used
 * once; what comes out is as unguessable as `randomBytes` (Node's `randomUUID` pools the same way).
 */
import { randomFillSync } from 'node:crypto';

const pool = Buffer.allocUnsafe(4096);
let used = pool.length;

/** `bytes` random bytes (at most 256) as base64url text. */
export function randomText(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > 256)
    throw new RangeError(`randomText takes 1 to 256 bytes, not ${bytes}`);
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString('base64url', used, used + bytes);
  // What was handed out (lease tokens among it) does not stay in the process's memory.
  pool.fill(0, used, used + bytes);
  used += bytes;
  return text;
}
