#!/usr/bin/env node
/**
 * `npm run build` (also `prepare`, so `npm ci` runs it): `src/` and `machines/` as JavaScript in
 * `dist/`, laid out as in the repository, so that `bin/warden.mjs` starts without compiling.
 *
 * Each module is transformed on its own, exactly as tsx transforms it when it loads the sources:
 * esbuild (the one tsx depends on) with tsx's options (target this Node.js, whitespace minified,
 * names kept, the compiler options of tsconfig.json). A function's text (`Function.prototype.toString`)
 * is then the same from `dist/` as from the sources, and so are the pins of a released version's
 * implementations, which fingerprint that text (src/definitions/pins.ts). The one change to a module
 * is its relative `.ts` imports, which name the `.js` file instead; it is outside every function.
 *
 * Other files of `src/` and `machines/` (Lua scripts, released configs and pins, the console's
 * files) are copied beside the modules that read them (`new URL('./lua/…', import.meta.url)`); the
 * data folders the support workflow reads from the project (`fixtures/`, `policies/`) are linked.
 * Last, `dist/build.json` records what the build read (see build-state.mjs): without it, or once a
 * source changed, `bin/warden.mjs` runs the sources with tsx instead.
 *
 * Every file is written to a temporary name and renamed, so a process loading `dist/` meanwhile reads
 * whole files.
 */
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInputs, outFolder, sourceFolders, stampFile, stampText } from './build-state.mjs';

// Development dependencies: an install without them (npm ci --omit=dev) has no build, and warden
// runs the sources with tsx.
let tools;
try {
  tools = await Promise.all([import('esbuild'), import('es-module-lexer')]);
} catch {
  console.log('no build: esbuild or es-module-lexer is not installed; warden runs the sources with tsx');
  process.exit(0);
}
const [{ transform }, { init, parse }] = tools;

const root = fileURLToPath(new URL('../', import.meta.url));
const out = join(root, outFolder);

/** The declarations of the package's entry points (scripts/build-types.mjs), which this build keeps. */
const typesFolder = 'types';

/** Folders outside `src/` and `machines/` that modules reach with `../`, linked into `dist/`. */
const linkedFolders = ['fixtures', 'policies'];

/** Writes `text` to `path` through a temporary file and a rename. */
function writeWhole(/** @type {string} */ path, /** @type {string | Buffer} */ text) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/** Links `path` to `target` (relative to it) through a temporary link and a rename. */
function linkWhole(/** @type {string} */ path, /** @type {string} */ target) {
  try {
    if (readlinkSync(path) === target) return;
  } catch {
    rmSync(path, { recursive: true, force: true }); // not a link: nothing, or a copy of an earlier build
  }
  const temporary = `${path}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  symlinkSync(target, temporary, 'dir');
  renameSync(temporary, path);
}

/** The options tsx 4 gives esbuild for an ES module (its `transform`), for the file at `path`. */
const tsxOptions = (/** @type {string} */ path, /** @type {string} */ tsconfig) =>
  /** @type {const} */ ({
    target: `node${process.versions.node}`,
    loader: 'default',
    sourcemap: true,
    sourcesContent: false,
    minifyWhitespace: true,
    keepNames: true,
    format: 'esm',
    sourcefile: path,
    tsconfigRaw: tsconfig,
  });

/** `code` with its relative `.ts` import specifiers ending in `.js`. */
function importsToJs(/** @type {string} */ code) {
  const [imports] = parse(code);
  let result = '';
  let at = 0;
  for (const { n: name, s: start, e: end } of imports) {
    if (name === undefined || !/^\.\.?\//.test(name) || !name.endsWith('.ts')) continue;
    // `s`..`e` is the specifier inside its quotes in a static import, the quoted string in a dynamic one.
    const quoted = code[start - 1] === '"' || code[start - 1] === "'";
    const text = code.slice(start, end);
    const replaced = quoted ? `${name.slice(0, -3)}.js` : JSON.stringify(`${name.slice(0, -3)}.js`);
    if (quoted ? text !== name : JSON.parse(text) !== name) throw new Error(`unexpected import form: ${text}`);
    result += code.slice(at, start) + replaced;
    at = end;
  }
  return result + code.slice(at);
}

async function build() {
  const started = performance.now();
  // Taken before any file is read: a file changed during the build leaves it stale.
  const stamp = stampText(root);
  const tsconfig = readFileSync(join(root, 'tsconfig.json'), 'utf8');
  await init;
  rmSync(join(out, stampFile), { force: true });
  const written = new Set([stampFile]);
  const inputs = buildInputs(root).filter((path) => sourceFolders.some((folder) => path.startsWith(`${folder}/`)));
  await Promise.all(
    inputs.map(async (path) => {
      const source = join(root, path);
      if (!path.endsWith('.ts')) {
        writeWhole(join(out, path), readFileSync(source));
        written.add(path);
        return;
      }
      const target = `${path.slice(0, -3)}.js`;
      const result = await transform(readFileSync(source, 'utf8'), tsxOptions(source, tsconfig));
      // The map names the source relative to the module, not where this build ran.
      const map = result.map.replace(
        JSON.stringify(source),
        JSON.stringify(relative(dirname(join(out, target)), source)),
      );
      const name = target.slice(target.lastIndexOf('/') + 1);
      writeWhole(join(out, target), `${importsToJs(result.code)}//# sourceMappingURL=${name}.map\n`);
      writeWhole(join(out, `${target}.map`), map);
      written.add(target).add(`${target}.map`);
    }),
  );
  for (const folder of linkedFolders) linkWhole(join(out, folder), join('..', folder));
  // Files of an earlier build whose source is gone (not the temporary files of a build running beside,
  // nor the declarations scripts/build-types.mjs writes into types/).
  for (const entry of readdirSync(out, { recursive: true, withFileTypes: true })) {
    const path = relative(out, join(entry.parentPath, entry.name)).split(sep).join('/');
    if (path.startsWith(`${typesFolder}/`) || path.includes('.tmp/')) continue;
    if (entry.isFile() && !written.has(path) && !path.endsWith('.tmp')) rmSync(join(out, path));
  }
  writeWhole(join(out, stampFile), stamp);
  const modules = inputs.filter((path) => path.endsWith('.ts')).length;
  console.log(
    `built ${modules} modules and ${inputs.length - modules} assets into ${outFolder}/ in ${Math.round(performance.now() - started)} ms`,
  );
}

await build();
