/**
 * The OpenAPI document passes Redocly's `recommended-strict` rules (the linter of `@redocly/cli`, run from
 * node_modules with no network: the resolver refuses every URL) with no error and no warning but
 * the justified ones in `.redocly.lint-ignore.yaml`.
 */
import { BaseResolver, lintFromString, loadConfig } from '@redocly/openapi-core';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { openApiDocument } from '../../src/api/openapi.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Lints `source` as `openapi.json` at the repository root with `redocly.yaml` there. */
async function lint(source: string) {
  const offline = new BaseResolver({
    http: {
      headers: [],
      customFetch: (url: string) => Promise.reject(new Error(`the linter must not fetch ${url}`)),
    },
  });
  const config = await loadConfig({ configPath: `${root}redocly.yaml`, externalRefResolver: offline });
  return lintFromString({ source, absoluteRef: `${root}openapi.json`, config, externalRefResolver: offline });
}

const describeProblem = (p: { severity: string; ruleId: string; message: string; location: { pointer?: string }[] }) =>
  `${p.severity} ${p.ruleId}: ${p.message} (${p.location.map((l) => l.pointer).join(', ')})`;

describe('the OpenAPI document under the linter', () => {
  it('has no problem under Redocly’s recommended-strict rules', async () => {
    const problems = await lint(JSON.stringify(openApiDocument(registry), null, 2));
    expect(problems.filter((p) => !p.ignored).map(describeProblem)).toEqual([]);
  });

  it('needs every entry of its ignore list', async () => {
    const problems = await lint(JSON.stringify(openApiDocument(registry), null, 2));
    const ignored = problems.filter((p) => p.ignored).map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
    expect(ignored.sort()).toEqual(
      ['/', '/healthz', '/readyz', '/openapi.json', '/docs', '/console']
        .map((path) => `operation-4xx-response #/paths/${path.replace(/\//g, '~1')}/get/responses`)
        .concat(
          ['MethodNotAllowed', 'RequestTimeout', 'RequestHeaderFieldsTooLarge'].map(
            (name) => `no-unused-components #/components/responses/${name}`,
          ),
        )
        .sort(),
    );
  });

  it('reports what the rules catch: a document without servers is an error', async () => {
    const { servers: _servers, ...withoutServers } = openApiDocument(registry);
    const problems = await lint(JSON.stringify(withoutServers));
    expect(problems.filter((p) => !p.ignored).map((p) => `${p.severity} ${p.ruleId}`)).toContain(
      'error no-empty-servers',
    );
  });
});
