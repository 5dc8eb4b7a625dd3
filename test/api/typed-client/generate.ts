/**
 * The client types of the OpenAPI document: what `openapi-typescript` makes of the document served
 * for the shipped workflows, formatted as the repository formats its files. `schema.d.ts` beside
 * this file is that text, committed so that `tsc` checks `drive.ts` against it; the typed-client
 * test fails when the document drifts from it and, with `WARDEN_WRITE_CLIENT_TYPES=1`, writes it anew.
 */
import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';
import { fileURLToPath } from 'node:url';
import { registry } from '../../../machines/index.ts';
import { openApiDocument } from '../../../src/api/openapi.ts';

export const schemaFile = fileURLToPath(new URL('./schema.d.ts', import.meta.url));

const header = [
  '/**',
  ' * Generated from the OpenAPI document by openapi-typescript (test/api/typed-client/generate.ts):',
  ' * do not edit. `WARDEN_WRITE_CLIENT_TYPES=1 npx vitest run test/api/typed-client.test.ts` writes it anew.',
  ' */',
  // What the generator writes is checked by its own test, not linted (it may repeat a constituent).
  '/* eslint-disable */',
  '',
].join('\n');

/** The text `schema.d.ts` should have for the document as it is now. */
export async function clientTypes(): Promise<string> {
  // As served (JSON text): the document itself is frozen, and the generator annotates what it reads.
  const ast = await openapiTS(JSON.stringify(openApiDocument(registry)));
  const options = await resolveConfig(schemaFile);
  return format(header + astToString(ast), { ...options, filepath: schemaFile });
}
