/**
 * Documents read from JSON files shipped in the repository (policies, account fixtures), validated
 * and read once per file. A missing file is null; an invalid one is a deployment mistake no retry
 * can fix (a definitive `INTERNAL` failure: a person must); a failed read is not kept, so a
 * transient I/O error does not stick.
 */
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { EffectError } from '../../../src/effects/effect-errors.ts';

/** Tenant ids become path segments: anything but a plain name could walk out of the directory. */
export const safeSegment = /^[A-Za-z0-9_-]{1,100}$/;

/** A reader of `what` documents: `check` refuses a valid one for a reason of its own (a message), or passes it. */
export function jsonFiles<T>(
  schema: z.ZodType<T>,
  what: string,
  check: (document: T, file: URL) => string | null = () => null,
): (file: URL) => Promise<T | null> {
  const cache = new Map<string, Promise<T | null>>();
  const load = async (file: URL): Promise<T | null> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    let parsed: ReturnType<typeof schema.safeParse>;
    try {
      parsed = schema.safeParse(JSON.parse(text));
    } catch (error) {
      throw new EffectError('INTERNAL', `${file.pathname} is not JSON: ${(error as Error).message}`, false);
    }
    const problem = parsed.success ? check(parsed.data, file) : `is not a valid ${what}: ${parsed.error.message}`;
    if (problem !== null) throw new EffectError('INTERNAL', `${file.pathname} ${problem}`, false);
    return parsed.data as T;
  };
  return (file) => {
    let document = cache.get(file.href);
    if (!document) {
      document = load(file);
      document.catch(() => cache.delete(file.href));
      cache.set(file.href, document);
    }
    return document;
  };
}
