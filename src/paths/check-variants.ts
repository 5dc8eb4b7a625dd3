/**
 * The failing side of each named check of an event's guards, derived: from the valid payload and
 * its sender, small changes the schema still accepts — each number one more, each string with its
 * last character changed, each boolean flipped (the job id aside: the platform fills it) — and the
 * sender changed: the requester holding the sender's role too (four eyes), each number claim at 0
 * and each boolean claim flipped. A change is kept, as `fails:<check>`, for each check of the
 * guards the event meets in this state that it makes fail and the valid event passes: a stale
 * version, a tampered hash, a restated amount that differs, the requester approving, an approver
 * over their limit. What the guard reads of the context alone (a validation passed) stays the
 * author's to reach, by the walk or an example.
 */
import { isWorker, type Principal } from '../engine/principal.ts';

export interface CheckVariant {
  /** The check it makes fail. */
  check: string;
  payload: Record<string, unknown>;
  principal: Principal;
}

export interface FailingSidesInput {
  payload: Record<string, unknown>;
  principal: Principal;
  /** Does the event's schema accept the payload? A change it refuses is no check's failing side but the schema's. */
  accepts: (payload: Record<string, unknown>) => boolean;
  /** Who created the workflow (the requester). */
  creator: Principal;
  /** The checks of the event's guards in this state that fail for this payload and sender. */
  failing: (payload: Record<string, unknown>, principal: Principal) => readonly string[];
}

/** The last character changed: a digit or hex letter to another of its kind, anything else to `x` (or `y`). */
function changed(text: string): string {
  const last = text.at(-1);
  if (last === undefined) return 'x';
  const next = /[0-8a-eA-E]/.test(last)
    ? String.fromCharCode(last.charCodeAt(0) + 1)
    : last === '9'
      ? '0'
      : /[fF]/.test(last)
        ? 'a'
        : last === 'x'
          ? 'y'
          : 'x';
  return text.slice(0, -1) + next;
}

function changedValue(value: unknown): { value: unknown } | null {
  if (typeof value === 'number' && Number.isFinite(value)) return { value: value + 1 };
  if (typeof value === 'string') return { value: changed(value) };
  if (typeof value === 'boolean') return { value: !value };
  return null;
}

/** The changed events, in a fixed order: the payload's fields as written, then the sender. */
function changes(input: FailingSidesInput): { payload: Record<string, unknown>; principal: Principal }[] {
  const { payload, principal, creator } = input;
  const out: { payload: Record<string, unknown>; principal: Principal }[] = [];
  for (const [field, value] of Object.entries(payload)) {
    const next = field === 'jobId' ? null : changedValue(value);
    const candidate = next && { ...payload, [field]: next.value };
    if (candidate && input.accepts(candidate)) out.push({ payload: candidate, principal });
  }
  if (isWorker(principal)) return out;
  if (principal.id !== creator.id) {
    const roles = [...new Set([...creator.roles, ...principal.roles])];
    out.push({ payload, principal: { ...principal, id: creator.id, roles } });
  }
  for (const [claim, value] of Object.entries(principal.claims ?? {})) {
    const next = typeof value === 'number' && value !== 0 ? 0 : typeof value === 'boolean' ? !value : undefined;
    if (next !== undefined)
      out.push({ payload, principal: { ...principal, claims: { ...principal.claims, [claim]: next } } });
  }
  return out;
}

/** One variant per check a change makes fail that the valid event passes: the first change that does. */
export function failingSides(input: FailingSidesInput): CheckVariant[] {
  const failingAlready = new Set(input.failing(input.payload, input.principal));
  const found = new Map<string, CheckVariant>();
  for (const candidate of changes(input)) {
    for (const check of input.failing(candidate.payload, candidate.principal)) {
      if (!failingAlready.has(check) && !found.has(check)) found.set(check, { check, ...candidate });
    }
  }
  return [...found.values()];
}
