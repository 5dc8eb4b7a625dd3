/**
 * Freezes `value` and what it holds, stopping at parts frozen already (a record shares most of its
 * parts with the one before, so a new version freezes only what changed). Returns `value`. Anything
 * that is not an object is returned as it is.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  const parts = value as Record<string, unknown>;
  for (const key in parts) deepFreeze(parts[key]);
  return value;
}
