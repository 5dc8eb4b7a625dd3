/**
 * Keys and ids built from several caller-controlled parts (tenant, subject, the caller's own ids).
 * Each part is length-prefixed, so no part can borrow a separator from its neighbour: sub `carol`
 * with event id `ops:e1` and sub `carol:ops` with event id `e1` give different keys, as do tenant
 * `demo` with sub `y/z` and tenant `demo/y` with sub `z`.
 */

/** `<length>:<part>` for each part, joined with `:` (length in UTF-16 code units; never throws). */
export function callerKey(...parts: readonly string[]): string {
  return parts.map((part) => `${part.length}:${part}`).join(':');
}
