/**
 * `warden init [dir]` makes a project (see project-template.ts); `warden new <id>` writes a workflow
 * folder `workflows/<id>/` (see workflow-template.ts) and adds the workflow to warden.config.ts.
 * Neither overwrites a file: `init` keeps any it finds (merging only package.json) and refuses a
 * folder that is already a project; `new` refuses a bad id or a folder that exists.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findConfig } from '../project.ts';
import { projectFiles, projectPackage, type WardenPackage } from './project-template.ts';
import { workflowFiles, workflowNames } from './workflow-template.ts';

type Print = (line: string) => void;

export interface ScaffoldOptions {
  /** Where relative paths start: the working directory by default. */
  cwd?: string | undefined;
  print: Print;
  printError?: Print;
}

/** Warden's own package.json: the nearest one above this module (the same from src/ and from dist/). */
export function wardenPackage(): WardenPackage {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const path = join(dir, 'package.json');
    if (existsSync(path)) {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as WardenPackage & { name?: string };
      if (parsed.name === 'warden') return parsed;
    }
    if (dirname(dir) === dir) throw new Error("warden's package.json is not above its modules");
  }
}

/** A package name from a folder's name: lower case, the characters npm allows. */
const packageName = (dir: string) =>
  basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '') || 'warden-project';

/** `warden init [dir]`. */
export function initProject(dir: string, options: ScaffoldOptions): number {
  const { print, printError = print } = options;
  const root = resolve(options.cwd ?? process.cwd(), dir);
  const existing = existsSync(root) ? findConfig(root) : undefined;
  if (existing) {
    printError(`warden init: ${root} is already a Warden project (${basename(existing)})`);
    return 2;
  }
  const template = projectPackage(wardenPackage());
  const packagePath = join(root, 'package.json');
  let current: Record<string, unknown> = {};
  if (existsSync(packagePath)) {
    try {
      current = JSON.parse(readFileSync(packagePath, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      printError(`warden init: ${packagePath} is not valid JSON (${(error as Error).message})`);
      return 2;
    }
    // What `npm init -y` writes (npm 11 says "type": "commonjs") in a folder with no code yet
    // becomes a module project; any other CommonJS project is refused: its own files would break.
    const test = (current.scripts as Record<string, unknown> | undefined)?.test;
    const freshFromNpmInit =
      current.type === 'commonjs' &&
      typeof test === 'string' &&
      test.includes('no test specified') &&
      !readdirSync(root).some((name) => /\.(c|m)?[jt]s$/.test(name));
    if (freshFromNpmInit) print(`warden init: ${packagePath} is what npm init wrote: "type" is now "module"`);
    else if (current.type !== undefined && current.type !== 'module') {
      printError(
        `warden init: ${packagePath} has "type": ${JSON.stringify(current.type)}; a Warden project is an ES module project ("type": "module")`,
      );
      return 2;
    }
  }
  const record = (value: unknown): Record<string, string> =>
    typeof value === 'object' && value !== null ? (value as Record<string, string>) : {};
  const scripts = record(current.scripts);
  const dependencies = record(current.dependencies);
  const devDependencies = record(current.devDependencies);
  const declared = (name: string) => name in dependencies || name in devDependencies;
  // npm init's placeholder test script is replaced; any other is kept.
  const placeholderTest = scripts.test?.includes('no test specified') === true;
  const merged = {
    name: packageName(root),
    version: '0.1.0',
    private: true,
    ...current,
    type: 'module',
    scripts: { ...template.scripts, ...scripts, ...(placeholderTest ? { test: template.scripts.test } : {}) },
    dependencies: {
      ...dependencies,
      ...Object.fromEntries(Object.entries(template.dependencies).filter(([name]) => !declared(name))),
    },
    devDependencies: {
      ...devDependencies,
      ...Object.fromEntries(Object.entries(template.devDependencies).filter(([name]) => !declared(name))),
    },
  };
  mkdirSync(root, { recursive: true });
  writeFileSync(packagePath, `${JSON.stringify(merged, null, 2)}\n`);
  print(`${existsSync(packagePath) && Object.keys(current).length > 0 ? 'updated' : 'wrote'} package.json`);
  for (const [path, text] of Object.entries(projectFiles)) {
    const target = join(root, path);
    if (existsSync(target)) {
      print(`kept ${path}`);
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    if (!path.endsWith('.gitkeep')) print(`wrote ${path}`);
  }
  const here = relative(options.cwd ?? process.cwd(), root);
  print('');
  print('next:');
  if (here !== '') print(`  cd ${here}`);
  print('  npm install');
  print('  npx warden new <id>      a workflow in workflows/<id>/, registered in warden.config.ts');
  print('  npx warden paths         its states, paths and invariants; npm test runs its path suite');
  print('  npx warden serve         the API, workers and timers (REDIS_URL for a durable store)');
  return 0;
}

/** A workflow id `warden new` takes: what defineWorkflow accepts, without a dash at an end or twice. */
const idPattern = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * `config` with the workflow `variable` imported from `from` and appended to its `workflows: [...]`
 * list, or undefined when the file has no such list.
 */
export function registerWorkflow(config: string, variable: string, from: string): string | undefined {
  const list = /workflows\s*:\s*\[/.exec(config);
  if (!list) return undefined;
  const open = list.index + list[0].length - 1;
  let depth = 0;
  let close = -1;
  for (let i = open; i < config.length; i++) {
    if (config[i] === '[') depth++;
    else if (config[i] === ']' && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close < 0) return undefined;
  const inside = config.slice(open + 1, close);
  const items = inside.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  const needsComma = items.trim() !== '' && !items.trim().endsWith(',');
  let updated: string;
  if (inside.includes('\n')) {
    // The closing bracket on its own line: the entry goes on a line of its own before it.
    const lineStart = config.lastIndexOf('\n', close) + 1;
    const closingIndent = /^\s*/.exec(config.slice(lineStart, close))?.[0] ?? '';
    const before = config.slice(0, lineStart).replace(/(\S)(\s*)$/, needsComma ? '$1,$2' : '$1$2');
    updated = `${before}${closingIndent}  ${variable},\n${config.slice(lineStart)}`;
  } else {
    const separator = items.trim() === '' ? '' : needsComma ? ', ' : ' ';
    updated = `${config.slice(0, close).trimEnd()}${separator}${variable}${config.slice(close)}`;
  }
  const importLine = `import { ${variable} } from '${from}';\n`;
  const imports = [...updated.matchAll(/^import [^;]*;[^\n]*\n/gm)].at(-1);
  const at = imports ? imports.index + imports[0].length : 0;
  return `${updated.slice(0, at)}${importLine}${updated.slice(at)}`;
}

/** `warden new <id>`. */
export function newWorkflow(id: string | undefined, options: ScaffoldOptions): number {
  const { print, printError = print } = options;
  const cwd = options.cwd ?? process.cwd();
  if (id === undefined) {
    printError('usage: warden new <id>   (lower-case letters, digits and dashes: invoice-check)');
    return 2;
  }
  if (!idPattern.test(id) || id.length > 40) {
    printError(
      `warden new: ${JSON.stringify(id)} is not a workflow id: lower-case letters, digits and single dashes, starting with a letter, at most 40 characters (invoice-check)`,
    );
    return 2;
  }
  const config = findConfig(cwd);
  if (!config) {
    printError(`warden new: no warden.config.ts in ${cwd}: run \`warden init\` first`);
    return 2;
  }
  const folder = join(cwd, 'workflows', id);
  if (existsSync(folder)) {
    printError(`warden new: workflows/${id} exists already; choose another id or remove the folder`);
    return 2;
  }
  const names = workflowNames(id);
  const from = `./workflows/${id}/index.ts`;
  const registered = registerWorkflow(readFileSync(config, 'utf8'), names.variable, from);
  mkdirSync(folder, { recursive: true });
  for (const [name, text] of Object.entries(workflowFiles(names))) {
    writeFileSync(join(folder, name), text);
    print(`wrote workflows/${id}/${name}`);
  }
  if (registered === undefined) {
    print(
      `${basename(config)} has no \`workflows: [...]\` list to add it to: import { ${names.variable} } from '${from}' and list it there`,
    );
  } else {
    writeFileSync(config, registered);
    print(`registered ${names.variable} in ${basename(config)}`);
  }
  print('');
  print(`next: npx warden paths --definition ${id}; npx vitest run workflows/${id}`);
  return 0;
}
