/**
 * Canonical JSON (object keys sorted at every depth, no whitespace) and a pure SHA-256 over it, so
 * the engine can digest a payload without I/O imports: the same value always gives the same digest,
 * whatever order its keys were written in. `src/effects/canonical-json.ts` builds on the same text.
 */

/** The first canonical JSON: a sorted copy of the value, then `JSON.stringify`. Taken for what `sortedText` leaves. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}

/** What JSON escapes in a string: quotes, backslashes, control characters, surrogates (a lone one is escaped). */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const escaped = /["\\\u0000-\u001f\ud800-\udfff]/;
/** A string as JSON writes it: as it is between quotes unless it holds something JSON escapes. */
const quoted = (text: string): string => (escaped.test(text) ? JSON.stringify(text) : `"${text}"`);

/** Not written by `sortedText`: the value takes `sortKeys` and `JSON.stringify`. */
const other = Symbol('not plain data');

/**
 * An array index (`0` to 2³² − 2, no leading zero): a plain object lists such keys first, in
 * numeric order, whatever order they were written in, so the sorted copy did too.
 */
function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  if (first < 48 || first > 57) return false;
  if (key === '0') return true;
  if (first === 48 || key.length > 10 || !/^\d+$/.test(key)) return false;
  return Number(key) < 4294967295;
}

/**
 * The canonical JSON of plain data (strings, finite and non-finite numbers, booleans, null,
 * `undefined` fields, plain arrays and objects), written directly: the text `sortKeys` and
 * `JSON.stringify` give, without the sorted copy. Anything else (a class instance, a date, a
 * function, a symbol, a bigint, great depth) answers `other`.
 */
function sortedText(value: unknown, depth: number): string | typeof other {
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return other;
  }
  if (value === null) return 'null';
  if (depth > 64) return other;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype) return other;
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const written = item === undefined ? 'null' : sortedText(item, depth + 1);
      if (written === other) return other;
      text += i === 0 ? written : `,${written}`;
    }
    return `${text}]`;
  }
  if (prototype !== Object.prototype && prototype !== null) return other;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Object.keys lists the array indices first, in numeric order: they stay first; the rest is sorted.
  let indices = 0;
  while (indices < keys.length && isArrayIndex(keys[indices] as string)) indices++;
  const sorted = indices === 0 ? keys.sort() : [...keys.slice(0, indices), ...keys.slice(indices).sort()];
  let text = '{';
  let first = true;
  for (const key of sorted) {
    const item = record[key];
    if (item === undefined) continue;
    const written = sortedText(item, depth + 1);
    if (written === other) return other;
    text += `${first ? '' : ','}${quoted(key)}:${written}`;
    first = false;
  }
  return `${text}}`;
}

/** JSON with object keys sorted at every depth; `undefined` fields are dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  const text = sortedText(value, 0);
  return text === other ? JSON.stringify(sortKeys(value)) : text;
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const encoder = new TextEncoder();
/** The message schedule, reused: the function runs to its end before anything else can call it. */
const w = new Int32Array(64);

/** SHA-256 of `text`'s UTF-8 bytes, as lower-case hex (FIPS 180-4; checked against node:crypto in the tests). */
export function sha256Hex(text: string): string {
  const bytes = encoder.encode(text);
  const length = bytes.length;
  const padded = new Uint8Array((((length + 9 + 63) >> 6) << 6) >>> 0);
  padded.set(bytes);
  padded[length] = 0x80;
  const bitsHigh = Math.floor(length / 0x2000_0000);
  const bitsLow = (length << 3) >>> 0;
  const end = padded.length;
  padded[end - 8] = bitsHigh >>> 24;
  padded[end - 7] = (bitsHigh >>> 16) & 0xff;
  padded[end - 6] = (bitsHigh >>> 8) & 0xff;
  padded[end - 5] = bitsHigh & 0xff;
  padded[end - 4] = bitsLow >>> 24;
  padded[end - 3] = (bitsLow >>> 16) & 0xff;
  padded[end - 2] = (bitsLow >>> 8) & 0xff;
  padded[end - 1] = bitsLow & 0xff;
  let h0 = 0x6a09e667 | 0;
  let h1 = 0xbb67ae85 | 0;
  let h2 = 0x3c6ef372 | 0;
  let h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f | 0;
  let h5 = 0x9b05688c | 0;
  let h6 = 0x1f83d9ab | 0;
  let h7 = 0x5be0cd19 | 0;
  for (let offset = 0; offset < end; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const at = offset + i * 4;
      w[i] =
        ((padded[at] ?? 0) << 24) |
        ((padded[at + 1] ?? 0) << 16) |
        ((padded[at + 2] ?? 0) << 8) |
        (padded[at + 3] ?? 0);
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15] ?? 0;
      const y = w[i - 2] ?? 0;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = ((w[i - 16] ?? 0) + s0 + (w[i - 7] ?? 0) + s1) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let i = 0; i < 64; i++) {
      const sigma1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + sigma1 + ((e & f) ^ (~e & g)) + (K[i] ?? 0) + (w[i] ?? 0)) | 0;
      const sigma0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (sigma0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  let hex = '';
  for (const word of [h0, h1, h2, h3, h4, h5, h6, h7]) hex += (word >>> 0).toString(16).padStart(8, '0');
  return hex;
}

/** `sha256:<hex>` of the canonical JSON of `value`. */
export const digestOf = (value: unknown): string => `sha256:${sha256Hex(canonicalJson(value))}`;
