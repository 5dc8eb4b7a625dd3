/**
 * `/console`: the operator console. A page, its modules and stylesheet from `src/console/`, and
 * Mermaid from the pinned `mermaid` package — every byte from this server, none from a CDN, under a
 * content security policy that keeps the page on this origin. The console talks to `/v1` with the
 * Bearer token the operator signs in with; it has no authority of its own.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError, sendError } from '../errors.ts';
import { documentedRoutes } from '../route-kit.ts';

const consoleDir = fileURLToPath(new URL('../../console/', import.meta.url));
const mermaidDir = join(dirname(createRequire(import.meta.url).resolve('mermaid/package.json')), 'dist');

const script = 'text/javascript; charset=utf-8';
const types: Readonly<Record<string, string>> = { js: script, css: 'text/css; charset=utf-8' };

/**
 * What `/console/assets/` serves: each script (a browser module, `app.js` importing the others by
 * `./name.js`) and stylesheet of `src/console/`, listed once at start, and Mermaid. Nothing else.
 */
function consoleAssets(): ReadonlyMap<string, { path: string; type: string }> {
  const assets = new Map<string, { path: string; type: string }>();
  for (const name of readdirSync(consoleDir)) {
    const type = types[name.slice(name.lastIndexOf('.') + 1)];
    if (type) assets.set(name, { path: join(consoleDir, name), type });
  }
  assets.set('mermaid.min.js', { path: join(mermaidDir, 'mermaid.min.js'), type: script });
  return assets;
}

const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  // Mermaid writes style elements and attributes into the diagrams it draws.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function consoleRoutes() {
  const app = documentedRoutes('');
  const assets = consoleAssets();
  const files = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  const load = (path: string) => {
    let file = files.get(path);
    if (!file) {
      file = readFile(path).then((b) => new Uint8Array(b));
      files.set(path, file);
    }
    return file;
  };
  const secure = { 'Content-Security-Policy': contentSecurityPolicy, 'X-Content-Type-Options': 'nosniff' };

  app.get('/console', async (c) =>
    c.body(await load(join(consoleDir, 'index.html')), 200, {
      ...secure,
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-cache',
    }),
  );
  app.get('/console/assets/:file', async (c) => {
    const asset = assets.get(c.req.param('file'));
    if (!asset) return sendError(c, new ApiError('NOT_FOUND', `no console asset ${c.req.param('file')}`));
    return c.body(await load(asset.path), 200, { ...secure, 'Content-Type': asset.type, 'Cache-Control': 'no-cache' });
  });
  return app;
}
