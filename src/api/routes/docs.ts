/**
 * `/openapi.json` and `/docs`: the OpenAPI 3.1 document and an interactive reference (Swagger UI)
 * served from the local `swagger-ui-dist` package: no CDN, no external URL, and a content security
 * policy that keeps the page on this origin.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ApiDeps } from '../context.ts';
import { encodeBody, sendEncoded, type EncodedBody } from '../encoded-body.ts';
import { ApiError, sendError } from '../errors.ts';
import { openApiDocument } from '../openapi.ts';
import { documentedRoutes } from '../route-kit.ts';

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const js = 'text/javascript; charset=utf-8';
const css = 'text/css; charset=utf-8';
const json = 'application/json; charset=utf-8';

/** The files of `swagger-ui-dist` the page may load, by name, with their content types. */
const packageAssets: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': js,
  'swagger-ui-bundle.js.map': json,
  'swagger-ui.css': css,
  'swagger-ui.css.map': json,
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Starts Swagger UI on this server's document; no validator badge, no `?url=` to load another. */
const initScript = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    queryConfigEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Warden API</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32" />
    <link rel="icon" type="image/png" href="/docs/assets/favicon-16x16.png" sizes="16x16" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/init.js"></script>
  </body>
</html>
`;

const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  // Swagger UI sets inline style attributes and draws icons from data: URIs.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function docsRoutes(deps: ApiDeps) {
  const app = documentedRoutes('');
  const files = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  /** Read once from the package directory, then served from memory. */
  const load = (name: string) => {
    let file = files.get(name);
    if (!file) {
      file = readFile(join(swaggerDir, name)).then((buffer) => new Uint8Array(buffer));
      // A failed read is not remembered: the next request tries again.
      file.catch(() => files.delete(name));
      files.set(name, file);
    }
    return file;
  };

  // Serialised once, on first request: every request gets the same bytes and a strong ETag.
  let openApi: EncodedBody | null = null;
  app.get('/openapi.json', (c) => {
    openApi ??= encodeBody(JSON.stringify((deps.buildOpenApi ?? openApiDocument)(deps.registry)));
    return sendEncoded(c, openApi, json);
  });

  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', contentSecurityPolicy);
    c.header('X-Content-Type-Options', 'nosniff');
    return c.html(page);
  });

  app.get('/docs/assets/:file', async (c) => {
    const name = c.req.param('file');
    c.header('X-Content-Type-Options', 'nosniff');
    if (name === 'init.js') {
      c.header('Content-Type', js);
      return c.body(initScript);
    }
    const type = Object.hasOwn(packageAssets, name) ? packageAssets[name] : undefined;
    if (!type) return sendError(c, new ApiError('NOT_FOUND', `no asset ${name}`));
    const body = await load(name);
    c.header('Content-Type', type);
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(body);
  });

  return app;
}
