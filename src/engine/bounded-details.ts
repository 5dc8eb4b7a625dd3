/**
 * Refusal details have a fixed size, whatever the request: a refused event's details are stored
 * with its outcome and returned to the caller, so a body with thousands of unknown keys must not
 * become thousands of stored issues. Arrays keep their first items, strings their first characters,
 * nesting stops at a depth, tighter limits are tried until the details fit, and what was cut is
 * said (`truncated: true`).
 */

/** The serialised details never exceed this many characters. */
export const maxDetailsChars = 4096;
/** Nesting kept. */
const maxDepth = 4;
/** Items of an array (or entries of an object) kept, and characters of a string, loosest first. */
const limits = [
  { items: 50, chars: 300 },
  { items: 20, chars: 200 },
  { items: 10, chars: 100 },
  { items: 3, chars: 60 },
];

interface Limit {
  items: number;
  chars: number;
}

function bound(value: unknown, depth: number, limit: Limit, cut: { cut: boolean }): unknown {
  if (typeof value === 'string') {
    if (value.length <= limit.chars) return value;
    cut.cut = true;
    return `${value.slice(0, limit.chars - 1)}…`;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= maxDepth) {
    cut.cut = true;
    return Array.isArray(value) ? [] : {};
  }
  if (Array.isArray(value)) {
    if (value.length > limit.items) cut.cut = true;
    return value.slice(0, limit.items).map((item) => bound(item, depth + 1, limit, cut));
  }
  const entries = Object.entries(value);
  if (entries.length > limit.items) cut.cut = true;
  return Object.fromEntries(
    entries
      .slice(0, limit.items)
      .map(([k, v]) => [String(bound(k, depth, limit, cut)), bound(v, depth + 1, limit, cut)]),
  );
}

/** The details cut to at most `maxDetailsChars` serialised; `truncated: true` when anything was cut. */
export function boundDetails(details: Record<string, unknown>): Record<string, unknown> {
  for (const limit of limits) {
    const cut = { cut: false };
    const bounded = bound(details, 0, limit, cut) as Record<string, unknown>;
    const result = cut.cut ? { ...bounded, truncated: true } : bounded;
    if (JSON.stringify(result).length <= maxDetailsChars) return result;
  }
  return { truncated: true };
}
