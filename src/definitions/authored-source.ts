/**
 * Where an author wrote an implementation the authoring kit wraps. The kit's `setup()` hands XState
 * closures of its own (a guard that runs the author's checks, an `assign` around the author's
 * update, the action that starts an effect's job), so a pin of what XState holds would fingerprint
 * the kit, not the business logic. The kit records here, for each implementation it makes, the module
 * whose `setup({...})` call declared it and under which name; the pins then fingerprint the author's
 * declaration in that module's TypeScript source (`source-fingerprint.ts`).
 *
 * Kept free of the TypeScript compiler: the kit runs in every process, the compiler is loaded only
 * by what computes a pin (`stately release`, `stately check`).
 */
import { fileURLToPath } from 'node:url';

/** The sections of the kit's `setup({...})` whose entries a released chart names. */
export const authoredSections = ['guards', 'updates', 'effects', 'delays'] as const;
export type AuthoredSection = (typeof authoredSections)[number];

export interface AuthoredOrigin {
  /**
   * The module that called `setup()`, as the running code names it: a path to a `.ts` file (tsx,
   * vite), or to a `.js` file of a build (`dist/`), whose source map names the `.ts` it came from;
   * empty when the stack did not tell (its pins are then unverifiable).
   */
  module: string;
  /** The line of the `setup(` call in that module, when the stack told it (1-based). */
  line?: number;
  section: AuthoredSection;
  name: string;
  /** An entry of the declaration the implementation was made from (an effect's `params`); the whole declaration when absent. */
  member?: string;
  /** Every name each section of that `setup()` declared: picks its call when the module has several. */
  declared: Readonly<Record<AuthoredSection, readonly string[]>>;
}

const thisFile = fileURLToPath(import.meta.url);

const origins = new WeakMap<object, AuthoredOrigin>();

/** Records that `implementation` (what XState is given) stands for the author's declaration at `origin`. */
export function markAuthored(implementation: object, origin: AuthoredOrigin): void {
  origins.set(implementation, origin);
}

/** Where the author wrote `implementation`, if the kit made it. */
export function authoredOrigin(implementation: unknown): AuthoredOrigin | undefined {
  return typeof implementation === 'function' || (typeof implementation === 'object' && implementation !== null)
    ? origins.get(implementation)
    : undefined;
}

/** A stack frame's location: `at f (/a/b.ts:3:9)`, `at /a/b.ts?x=1:3:9`, `at file:///a/b.js:3:9`. */
const frame = /\(?((?:file:\/\/)?\/[^():]*?)(?:\?[^():]*)?:(\d+):\d+\)?$/;

/**
 * One module whether a frame names the build or, with source maps on, its TypeScript source:
 * `dist/src/a/b.js` and `src/a/b.ts` are the same file of the kit.
 */
const moduleKey = (path: string) => path.replace(/\/dist\/src\//, '/src/').replace(/\.(?:[cm]?js|[cm]?ts)$/, '');
const sameModule = (a: string, b: string) => a === b || moduleKey(a) === moduleKey(b);

/**
 * The module of the first stack frame outside the files named by `skip` (the kit's own): the
 * module that called it, with the line of the call. Undefined when the stack does not tell.
 */
export function callerModule(skip: readonly string[]): { module: string; line: number } | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Math.max(limit, 30);
  const stack = new Error('where').stack ?? '';
  Error.stackTraceLimit = limit;
  for (const text of stack.split('\n').slice(1)) {
    const match = frame.exec(text.trim());
    if (!match?.[1] || !match[2]) continue;
    const module = match[1].startsWith('file://') ? decodeURIComponent(match[1].slice('file://'.length)) : match[1];
    if (sameModule(module, thisFile) || skip.some((file) => sameModule(module, file))) continue;
    return { module, line: Number(match[2]) };
  }
  return undefined;
}
