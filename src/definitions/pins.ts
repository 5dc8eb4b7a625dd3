/**
 * Pins of a released version: a fingerprint of the source of every guard, action and delay its
 * config names, taken when the version is released, so the Stately check can tell when the
 * implementation a released version runs on changed under it.
 *
 * Two kinds of pin, told apart by their prefix:
 * - `ts:sha256:` — an implementation the authoring kit made (a guard, update, effect or delay of its
 *   `setup({...})`): the author's declaration, read from its TypeScript source with the compiler API
 *   (`source-fingerprint.ts`), so the pin covers the business logic, not the kit's wrapper, and is
 *   the same whatever compiler loaded the module;
 * - `sha256:` — any other implementation (XState's `setup()`, the kit's own `canRetry`, `backoff`...):
 *   the text of the function XState holds, normalised (`normalisedSource`).
 */
import { createHash } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';
import { authoredOrigin } from './authored-source.ts';
import { eachReference, implementationsOf, isObject, type Problem } from './chart-references.ts';
import { authoredSource, UnverifiableSourceError } from './source-fingerprint.ts';

export { UnverifiableSourceError };

/** The kinds of implementation a released version pins. */
export const pinnedKinds = ['guards', 'actions', 'delays'] as const;
export type PinnedKind = (typeof pinnedKinds)[number];

/**
 * The implementations a released version was released with: a fingerprint (`sha256:` of the
 * normalised source, see `implementationSource`) of every guard, action and delay its config names.
 */
export type ImplementationPins = Readonly<Record<PinnedKind, Readonly<Record<string, string>>>>;

/**
 * A function's source in a form that does not depend on the compiler that loaded its module (tsx's
 * esbuild for the CLI from the sources, the same transform ahead of time for the CLI from `dist/`
 * (scripts/build.mjs), vite's SSR transform for the tests): spacing, trailing commas and semicolons,
 * `void 0` for `undefined`, the `(0, f)(...)` call form, and the module qualifier of an imported name
 * (`g.isCurrentJob`, `__vite_ssr_import_1__.guards.isCurrentJob` → `isCurrentJob`) are normalised away.
 * A member chain is kept whole when it starts at a parameter (`context.config.approvalTimeoutMs`).
 */
export function normalisedSource(fn: (...args: never[]) => unknown): string {
  const text = fn.toString();
  const head = /^(async\s+)?function\b/.test(text) ? text.slice(0, text.indexOf(')') + 1) : text.split('=>')[0];
  const params = new Set(head?.match(/[A-Za-z_$][\w$]*/g) ?? []);
  return text
    .replace(/\(0,\s*([\w$.]+)\)/g, '$1')
    .replace(/\bvoid 0\b/g, 'undefined')
    .replace(/(?<![\w$.])([A-Za-z_$][\w$]*)((?:\.[A-Za-z_$][\w$]*)+)/g, (chain: string, first: string, rest: string) =>
      params.has(first) ? chain : rest.slice(rest.lastIndexOf('.') + 1),
    )
    .replace(/\s+/g, ' ')
    .replace(/\s*([(){}[\]=>,;:?!&|+\-*/<%])\s*/g, '$1')
    .replace(/,([)}\]])/g, '$1')
    .replace(/;}/g, '}');
}

/**
 * What a fingerprint covers: the implementation's own source. XState's built-in actions (`assign`,
 * `raise`, ...) are one shared function, so theirs is their type and the functions they were made
 * from (an `assign`'s assigner). Functions it calls are not covered: pin what the chart names.
 */
export function implementationSource(implementation: unknown): string {
  const origin = authoredOrigin(implementation);
  if (origin) return authoredSource(origin);
  if (typeof implementation === 'function') {
    const fields = implementation as unknown as Record<string, unknown>;
    if (typeof fields.type === 'string' && fields.type.startsWith('xstate.')) {
      const parts = Object.keys(fields)
        .filter((k) => k !== 'type' && k !== 'resolve' && k !== 'execute')
        .sort()
        .map((k) => `${k}:${implementationSource(fields[k])}`);
      return `${fields.type}(${parts.join(',')})`;
    }
    return normalisedSource(implementation as (...args: never[]) => unknown);
  }
  if (isObject(implementation) && !Array.isArray(implementation)) {
    const parts = Object.keys(implementation)
      .sort()
      .map((k) => `${k}:${implementationSource(implementation[k])}`);
    return `{${parts.join(',')}}`;
  }
  return implementation === undefined ? 'undefined' : JSON.stringify(implementation);
}

/** The prefix of a pin taken from the author's TypeScript source (see the module's comment). */
export const sourcePinPrefix = 'ts:';

/**
 * An implementation's pin: `ts:sha256:` of its author's declaration for one the kit made, else
 * `sha256:` of its normalised text. Throws `UnverifiableSourceError` when the kit made it and its
 * TypeScript source cannot be found.
 */
export const implementationFingerprint = (implementation: unknown) =>
  `${authoredOrigin(implementation) ? sourcePinPrefix : ''}sha256:${createHash('sha256').update(implementationSource(implementation)).digest('hex')}`;

/** A pin as messages show it: its kind and the first hex digits. */
export const shortPin = (pin: string) => pin.slice(0, pin.indexOf('sha256:') + 'sha256:'.length + 12);

/** The pins of a machine as it is now: what releasing it writes next to its config. */
export function implementationPins(machine: AnyStateMachine): ImplementationPins {
  const impl = implementationsOf(machine);
  const pins: Record<PinnedKind, Record<string, string>> = { guards: {}, actions: {}, delays: {} };
  eachReference(machine.config, (kind, name) => {
    const kinds = `${kind}s`;
    if (kind === 'actor' || !Object.hasOwn(impl[kinds] ?? {}, name)) return;
    pins[`${kind}s`][name] = implementationFingerprint(impl[kinds]?.[name]);
  });
  const sorted = (record: Record<string, string>) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
  return { guards: sorted(pins.guards), actions: sorted(pins.actions), delays: sorted(pins.delays) };
}

/** Pins as read from JSON, or null when the value is not a pin list. */
export function parsePins(value: unknown): ImplementationPins | null {
  if (!isObject(value) || Array.isArray(value)) return null;
  const valid = pinnedKinds.every((kind) => {
    const record = value[kind];
    return isObject(record) && !Array.isArray(record) && Object.values(record).every((v) => typeof v === 'string');
  });
  return valid ? (value as ImplementationPins) : null;
}

/** A definition version that carries pins: a released version loaded from its released config. */
export interface PinnedVersion {
  pins?: ImplementationPins;
}

/**
 * A released version's implementations are those it was released with: every guard, action and
 * delay its config names must have the source pinned at its release.
 */
export function changedImplementations(machine: AnyStateMachine, pins: ImplementationPins, key: string): Problem[] {
  const impl = implementationsOf(machine);
  const problems: Problem[] = [];
  const seen = new Set<string>();
  eachReference(machine.config, (kind, name, at) => {
    if (kind === 'actor') return;
    const kinds = `${kind}s` as const;
    if (seen.has(`${kinds}:${name}`) || !Object.hasOwn(impl[kinds] ?? {}, name)) return;
    seen.add(`${kinds}:${name}`);
    const pin = pins[kinds][name];
    let now: string;
    try {
      now = implementationFingerprint(impl[kinds]?.[name]);
    } catch (error) {
      if (!(error instanceof UnverifiableSourceError)) throw error;
      problems.push({
        code: 'IMPLEMENTATION_UNVERIFIABLE',
        message: `${key}: the ${kind} ${name} is pinned from its TypeScript source, which cannot be read here (${error.message}); run the check where the workflow's .ts sources are`,
      });
      return;
    }
    if (pin === undefined) {
      problems.push({
        code: 'IMPLEMENTATION_UNPINNED',
        message: `${key}: ${at} names the ${kind} ${name}, which its release does not pin: if ${key}'s chart is not the one it was released with, run it from its release (\`workflow({ released })\`, docs/changing-a-workflow.md); else release the version's pins again`,
      });
    } else if (pin !== now) {
      // A pin of the other kind: the implementation moved to or from the kit; its source is not comparable.
      const moved =
        pin.startsWith(sourcePinPrefix) === now.startsWith(sourcePinPrefix)
          ? ''
          : now.startsWith(sourcePinPrefix)
            ? ' (it is now made by the authoring kit: its pin is taken from its TypeScript source)'
            : ' (it was made by the authoring kit and no longer is)';
      problems.push({
        code: 'IMPLEMENTATION_CHANGED',
        message: `${key}: the ${kind} ${name} is not the one ${key} was released with (pinned ${shortPin(pin)}, now ${shortPin(now)})${moved}; keep the released implementation for ${key} and pin again only a deliberate change`,
      });
    }
  });
  return problems;
}
