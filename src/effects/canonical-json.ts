/**
 * The content hash built on the engine's canonical JSON (object keys sorted at every depth, no
 * whitespace), so the same value always hashes the same whatever order its keys were written in.
 * Hashed with node:crypto here; the engine's pure digest (`digestOf`) gives the same text.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../engine/canonical-json.ts';

export { canonicalJson };

/** `sha256:<hex>` of the canonical JSON of `value`. */
export function contentHashOf(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}

/** SHA-256 of `text`'s UTF-8 bytes as lower-case hex, by node:crypto: what the engine's pure `sha256Hex` gives, faster. */
export const cryptoSha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A short, stable, url-safe id derived from `text` (for provider operation ids). */
export function stableId(prefix: string, text: string): string {
  return `${prefix}_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
}
