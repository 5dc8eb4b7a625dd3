/**
 * Whether `dist/` is the build of the sources as they are now, read cheaply enough for every start of
 * `bin/warden.mjs` (a directory walk and one `stat` per source file, a few milliseconds).
 *
 * The build records, in `dist/build.json`, the modification time and size of every file it read (the
 * TypeScript and the assets of `src/` and `machines/`, `tsconfig.json` and the build scripts) and the
 * Node.js version it targeted. The build is current while every one of those files still has the time
 * and size recorded and no file was added or removed: editing, adding, deleting or checking out a
 * source makes it stale, and a stale build is not used (`bin/warden.mjs` runs the sources with tsx
 * until `npm run build` runs again).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The folders whose files the build reads: TypeScript is compiled, anything else copied. */
export const sourceFolders = ['src', 'machines'];

/** Other files the output depends on: the compiler options and the build itself. */
export const buildFiles = ['tsconfig.json', 'scripts/build.mjs', 'scripts/build-state.mjs'];

/** Where the build writes, and its record of what it was built from. */
export const outFolder = 'dist';
export const stampFile = 'build.json';

/** Files of the source folders that are neither built nor copied: notes, and `stately import`'s scratch files. */
export const isSkipped = (/** @type {string} */ path) => path.endsWith('.md') || path.endsWith('.tmp.ts');

/** The files the build reads, relative to `root` with `/` separators, sorted. */
export function buildInputs(/** @type {string} */ root) {
  const files = [...buildFiles];
  for (const folder of sourceFolders) {
    for (const entry of readdirSync(join(root, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = relative(root, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (!isSkipped(path)) files.push(path);
    }
  }
  return files.sort();
}

/**
 * The state of the build's inputs: `<mtime ms>:<size>` by path.
 * @returns {Record<string, string>}
 */
export function inputState(/** @type {string} */ root) {
  return Object.fromEntries(
    buildInputs(root).map((path) => {
      const stats = statSync(join(root, path));
      return [path, `${stats.mtimeMs}:${stats.size}`];
    }),
  );
}

/**
 * What the build writes to `dist/build.json`, taken before it reads a file (a later edit makes it
 * stale): this Node.js and the state of the inputs, as JSON text.
 */
export const stampText = (/** @type {string} */ root) =>
  `${JSON.stringify({ node: process.version, inputs: inputState(root) }, null, 1)}\n`;

/** True when `<root>/dist` holds the build of the sources as they are now, for this Node.js. */
export function isBuildCurrent(/** @type {string} */ root) {
  try {
    return readFileSync(join(root, outFolder, stampFile), 'utf8') === stampText(root);
  } catch {
    return false; // no build, or a source folder gone
  }
}
