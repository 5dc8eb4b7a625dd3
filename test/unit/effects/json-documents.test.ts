import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonDocuments } from '../../../src/authoring/index.ts';
import { EffectError } from '../../../src/effects/effect-errors.ts';

const directory = await mkdtemp(join(tmpdir(), 'warden-json-documents-'));
const file = (name: string) => pathToFileURL(join(directory, name));
afterAll(() => rm(directory, { recursive: true, force: true }));

const limit = z.strictObject({ name: z.string(), max: z.number() });
const read = jsonDocuments(limit, 'limit', (document, at) =>
  at.pathname.endsWith(`${document.name}.json`) ? null : `is named ${document.name}`,
);

describe('jsonDocuments', () => {
  it('reads a valid document once, and a missing one as null', async () => {
    await writeFile(file('daily.json'), JSON.stringify({ name: 'daily', max: 3 }));
    expect(await read(file('daily.json'))).toEqual({ name: 'daily', max: 3 });
    await writeFile(file('daily.json'), JSON.stringify({ name: 'daily', max: 9 }));
    expect(await read(file('daily.json'))).toEqual({ name: 'daily', max: 3 });
    expect(await read(file('none.json'))).toBeNull();
  });

  it('refuses for good a file that is not JSON, not of the schema or refused by the check', async () => {
    await writeFile(file('broken.json'), '{');
    await writeFile(file('wrong.json'), JSON.stringify({ name: 'wrong' }));
    await writeFile(file('other.json'), JSON.stringify({ name: 'daily', max: 1 }));
    for (const [name, message] of [
      ['broken.json', 'broken.json is not JSON'],
      ['wrong.json', 'wrong.json is not a valid limit'],
      ['other.json', 'other.json is named daily'],
    ] as const) {
      const error = await read(file(name)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EffectError);
      expect(error).toMatchObject({ errorClass: 'INTERNAL', retryable: false });
      expect((error as Error).message).toContain(message);
    }
  });

  it('keeps no failed read: the file is read again', async () => {
    await writeFile(file('late.json'), '{');
    await expect(read(file('late.json'))).rejects.toThrow('is not JSON');
    await writeFile(file('late.json'), JSON.stringify({ name: 'late', max: 2 }));
    expect(await read(file('late.json'))).toEqual({ name: 'late', max: 2 });
  });
});
