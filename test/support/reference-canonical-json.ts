/**
 * `canonicalJson` as first written (a sorted copy of the value, then `JSON.stringify`): the "old"
 * side of `npm run bench:routes` and what `test/unit/canonical-json-direct.test.ts` holds the
 * direct writer in `src/engine/canonical-json.ts` to.
 */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}

export function referenceCanonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}
