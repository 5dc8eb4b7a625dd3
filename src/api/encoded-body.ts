/**
 * A large response body that many callers fetch unchanged (`/openapi.json`, one rendering of
 * `/metrics`): encoded to bytes, hashed and, when a caller first asks, gzipped once, so a request
 * costs neither a compression nor a hash. Compressing per request, as `hono/compress` does, would
 * cost more CPU (about 4 ms for 117 KB) than the rendering these bodies are kept to avoid.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Context } from 'hono';
import { accepts } from 'hono/accepts';

/** Smaller bodies are sent as they are: gzip would save less than its own overhead. */
const minGzipBytes = 1024;

export interface EncodedBody {
  /** Strong ETag of the plain bytes; the gzipped ones carry it with `-gzip` inside the quotes. */
  readonly etag: string;
  readonly plain: Uint8Array<ArrayBuffer>;
  /** The gzipped bytes, compressed at the first call. */
  gzipped(): Uint8Array<ArrayBuffer>;
}

export function encodeBody(text: string): EncodedBody {
  const plain = new TextEncoder().encode(text);
  const hash = createHash('sha256').update(plain).digest('base64url').slice(0, 27);
  let gzipped: Uint8Array<ArrayBuffer> | null = null;
  return {
    etag: `"${hash}"`,
    plain,
    gzipped: () => (gzipped ??= new Uint8Array(gzipSync(plain))),
  };
}

/** Whether an `If-None-Match` list names `tags` (compared weakly, as RFC 9110 says for GET). */
function matches(header: string | undefined, tags: readonly string[]): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const tag = part.trim().replace(/^W\//, '');
    return tag === '*' || tags.includes(tag);
  });
}

/**
 * Answers with `body`: gzipped when `Accept-Encoding` allows it, 304 when `If-None-Match` names
 * either encoding's ETag (both stand for the same content).
 */
export function sendEncoded(c: Context, body: EncodedBody, contentType: string): Response {
  const gzipTag = `${body.etag.slice(0, -1)}-gzip"`;
  const gzip =
    body.plain.byteLength >= minGzipBytes &&
    accepts(c, { header: 'Accept-Encoding', supports: ['gzip'], default: 'identity' }) === 'gzip';
  c.header('Vary', 'Accept-Encoding');
  c.header('ETag', gzip ? gzipTag : body.etag);
  c.header('Cache-Control', 'no-cache');
  if (matches(c.req.header('If-None-Match'), [body.etag, gzipTag])) return c.body(null, 304);
  c.header('Content-Type', contentType);
  if (!gzip) return c.body(body.plain);
  c.header('Content-Encoding', 'gzip');
  return c.body(body.gzipped());
}
