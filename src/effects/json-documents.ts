/**
 * A reader of JSON documents shipped with a deployment (policies, fixtures), validated when read: a
 * missing file is null; a file that is not JSON, does not match the schema or fails the reader's
 * own check is a deployment mistake no retry can fix (a definitive `INTERNAL` failure: a person
 * must). A file is read once; a failed read is not kept, so a transient I/O error does not stick.
 */
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { EffectError } from './effect-errors.ts';

/**
 * Reads `what` documents (`policy`: named in the errors) of `schema`; `check` refuses a valid one
 * for a reason of its own (a message, after the file's path), or passes it (null).
 */
export function jsonDocuments<T>(
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
