/**
 * Holds a server's JSON answers to the OpenAPI document: each answer is checked against the schema
 * the document gives its operation and status (JSON Schema 2020-12, by Ajv), so a response schema,
 * typed at compile time only, cannot say other than what the server answers at run time.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import type { OpenApiDocument } from '../../../src/api/openapi.ts';

type Fetch = (request: Request) => Promise<Response>;

/** A JSON pointer into the document, as a URI fragment. */
const pointer = (...parts: string[]) =>
  parts.map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

export interface Conformance {
  /** `fetch`, with each JSON answer checked; a mismatch is recorded, the answer passed on. */
  fetch: Fetch;
  /** `METHOD /path status: what does not match` for each answer that does not conform. */
  mismatches: string[];
  /** How many answers were checked. */
  checked(): number;
}

export function conformance(document: OpenApiDocument, fetch: Fetch): Conformance {
  // `discriminator`, `example` and the OpenAPI keys at the root are not JSON Schema: not checked.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema({ ...document, $id: 'openapi' });
  const templates = Object.keys(document.paths).map((path) => ({
    path,
    pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const mismatches: string[] = [];
  let checked = 0;
  return {
    mismatches,
    checked: () => checked,
    async fetch(request) {
      const response = await fetch(request);
      const type = response.headers.get('content-type') ?? '';
      if (!type.startsWith('application/json')) return response;
      const url = new URL(request.url);
      const method = request.method.toLowerCase();
      const template = templates.find(({ pattern }) => pattern.test(url.pathname));
      const where = `${request.method} ${url.pathname} ${response.status}`;
      const operation = template && document.paths[template.path]?.[method as 'get' | 'post'];
      const answer = operation?.responses[String(response.status)] as { $ref?: string } | undefined;
      if (!template || !answer) {
        mismatches.push(`${where}: not in the document`);
        return response;
      }
      const schemaAt = answer.$ref
        ? `openapi${answer.$ref.split('/').slice(0, 1).join('/')}/${pointer(...answer.$ref.split('/').slice(1))}`
        : `openapi#/${pointer('paths', template.path, method, 'responses', String(response.status))}`;
      const validate = ajv.compile({ $ref: `${schemaAt}/${pointer('content', 'application/json', 'schema')}` });
      const body: unknown = await response.clone().json();
      checked++;
      if (!validate(body)) mismatches.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      return response;
    },
  };
}
