/**
 * `/console`: the operator console. A page, its script and stylesheet from `src/console/`, and
 * Mermaid from the pinned `mermaid` package — every byte from this server, none from a CDN, under a
 * content security policy that keeps the page on this origin. The console talks to `/v1` with the
 * Bearer token the operator signs in with; it has no authority of its own.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import type { ApiEnv } from '../context.ts';
import { ApiError, sendError } from '../errors.ts';

const consoleDir = fileURLToPath(new URL('../../console/', import.meta.url));
const mermaidDir = join(dirname(createRequire(import.meta.url).resolve('mermaid/package.json')), 'dist');

const assets: Readonly<Record<string, { path: string; type: string }>> = {
  'app.js': { path: join(consoleDir, 'app.js'), type: 'text/javascript; charset=utf-8' },
  'diagram.js': { path: join(consoleDir, 'diagram.js'), type: 'text/javascript; charset=utf-8' },
  'app.css': { path: join(consoleDir, 'app.css'), type: 'text/css; charset=utf-8' },
  'mermaid.min.js': { path: join(mermaidDir, 'mermaid.min.js'), type: 'text/javascript; charset=utf-8' },
};

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
  const app = new Hono<ApiEnv>();
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
    const asset = Object.hasOwn(assets, c.req.param('file')) ? assets[c.req.param('file')] : undefined;
    if (!asset) return sendError(c, new ApiError('NOT_FOUND', `no console asset ${c.req.param('file')}`));
    return c.body(await load(asset.path), 200, { ...secure, 'Content-Type': asset.type, 'Cache-Control': 'no-cache' });
  });
  return app;
}
