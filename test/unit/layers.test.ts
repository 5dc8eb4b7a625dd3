/**
 * The layer order (below, in eslint.config.js, and described in ARCHITECTURE.md, "Layers") is held by
 * `no-restricted-imports` patterns per folder in eslint.config.js. Each case lints one import as if it
 * were written in a real file of that folder.
 */
import { ESLint } from 'eslint';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let eslint: ESLint;

/** The `no-restricted-imports` messages for each line of `source` written in `file` (relative to the root), by line. */
async function restrictedLines(file: string, source: string): Promise<Map<number, string>> {
  const [result] = await eslint.lintText(source, { filePath: `${root}${file}` });
  const messages = (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports');
  return new Map(messages.map((m) => [m.line, m.message]));
}

/** The `no-restricted-imports` messages for `import '<specifier>'` written in `file` (relative to the root). */
async function restrictedImports(file: string, specifier: string): Promise<string[]> {
  return [...(await restrictedLines(file, `import '${specifier}';\n`)).values()];
}

/**
 * What each src/ folder (and top-level module) may import: the layer order, bottom first. A change
 * here is a change of architecture: make it in eslint.config.js and ARCHITECTURE.md too.
 */
const mayImport: Record<string, string[]> = {
  engine: [],
  config: [],
  store: ['engine'],
  effects: ['engine'],
  observability: ['engine', 'effects', 'config'],
  definitions: ['engine', 'effects', 'store'],
  paths: ['engine', 'definitions'],
  runtime: ['engine', 'effects', 'observability'],
  api: ['engine', 'effects', 'observability', 'runtime', 'definitions', 'config'],
  system: [
    'engine',
    'config',
    'store',
    'effects',
    'observability',
    'definitions',
    'paths',
    'authoring',
    'runtime',
    'api',
  ],
  cli: [
    'engine',
    'config',
    'store',
    'effects',
    'observability',
    'definitions',
    'paths',
    'authoring',
    'runtime',
    'api',
    'system',
  ],
  authoring: ['engine', 'effects', 'store', 'definitions', 'paths'],
  testing: ['engine', 'effects', 'store', 'definitions', 'paths'],
  index: ['engine', 'effects', 'definitions', 'authoring'],
};
const topLevelModules = ['config', 'system', 'index'];
const layers = Object.keys(mayImport);

/** A real TypeScript file of the layer, relative to the root (type-aware linting needs one the project knows). */
function fileOf(layer: string): string {
  if (topLevelModules.includes(layer)) return `src/${layer}.ts`;
  const files = readdirSync(`${root}src/${layer}`, { recursive: true }).map(String);
  const file = files.filter((name) => name.endsWith('.ts')).toSorted()[0];
  if (!file) throw new Error(`src/${layer} holds no TypeScript file`);
  return `src/${layer}/${file}`;
}

/** How `file` (relative to the root) names `target` (relative to src/). */
function specifier(file: string, target: string): string {
  const depth = file.split('/').length - 2;
  return `${depth === 0 ? './' : '../'.repeat(depth)}${target}`;
}

/** How a file of a layer names a module of `to`. */
const moduleOf = (to: string) => (topLevelModules.includes(to) ? `${to}.ts` : `${to}/probe.ts`);

/** The layers that `from` may import, as the lint has it: one import of every other layer, linted at once. */
async function lintedImports(from: string): Promise<string[]> {
  const others = layers.filter((to) => to !== from);
  const file = fileOf(from);
  const source = others.map((to) => `import '${specifier(file, moduleOf(to))}';\n`).join('');
  const refused = await restrictedLines(file, source);
  return others.filter((_, index) => !refused.has(index + 1));
}

/** A cycle in the relation, as a list of layers, or undefined. */
function cycleIn(relation: Record<string, string[]>): string[] | undefined {
  const done = new Set<string>();
  const visit = (layer: string, trail: string[]): string[] | undefined => {
    if (trail.includes(layer)) return [...trail.slice(trail.indexOf(layer)), layer];
    if (done.has(layer)) return undefined;
    for (const next of relation[layer] ?? []) {
      const cycle = visit(next, [...trail, layer]);
      if (cycle) return cycle;
    }
    done.add(layer);
    return undefined;
  };
  for (const layer of Object.keys(relation)) {
    const cycle = visit(layer, []);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('layer rules', () => {
  beforeAll(async () => {
    // Only the rule under test runs; the first lint builds the TypeScript program (seconds on a busy machine).
    eslint = new ESLint({ cwd: root, ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports' });
    await eslint.lintText('', { filePath: `${root}src/engine/decider.ts` });
  }, 120_000);

  it('refuses a workflow import in the API', async () => {
    expect(await restrictedImports('src/api/create-app.ts', '../../machines/index.ts')).toEqual([
      expect.stringContaining('never imports a workflow'),
    ]);
  });

  it('refuses the workflow registry however it is named, in every src/ folder', async () => {
    for (const name of ['machines', 'machines/', 'machines/index', 'machines/index.ts', 'machines.ts']) {
      expect(await restrictedImports('src/api/routes/workflows.ts', `../../../${name}`), name).toEqual([
        expect.stringContaining('never imports a workflow'),
      ]);
    }
    for (const layer of layers) {
      const file = fileOf(layer);
      expect(await restrictedImports(file, `${specifier(file, '')}../machines`), layer).toEqual([
        expect.stringContaining('never imports a workflow'),
      ]);
    }
  });

  it('leaves a module whose name merely contains machines alone', async () => {
    expect(await restrictedImports('src/definitions/stately.ts', './state-machines.ts')).toEqual([]);
  });

  it('refuses the composition root in the API', async () => {
    expect(await restrictedImports('src/api/routes/workflows.ts', '../../system.ts')).toEqual([
      expect.stringContaining('composition root'),
    ]);
    expect(await restrictedImports('src/api/server.ts', '../system')).toEqual([
      expect.stringContaining('composition root'),
    ]);
  });

  it('refuses I/O modules, other src/ folders and workflows in the engine', async () => {
    expect(await restrictedImports('src/engine/decider.ts', 'node:fs')).toEqual([
      expect.stringContaining('no I/O imports'),
    ]);
    expect(await restrictedImports('src/engine/decider.ts', '../store/redis/redis-store.ts')).toEqual([
      expect.stringContaining('bottom layer'),
    ]);
    expect(await restrictedImports('src/engine/engine.ts', '../../machines/index.ts')).toEqual([
      expect.stringContaining('never imports a workflow'),
    ]);
  });

  it('refuses the API and the runtime in observability', async () => {
    expect(await restrictedImports('src/observability/request-span.ts', '../api/context.ts')).toEqual([
      expect.stringContaining('never imports the API or the runtime'),
    ]);
    expect(await restrictedImports('src/observability/worker-metrics.ts', '../runtime/worker.ts')).toEqual([
      expect.stringContaining('never imports the API or the runtime'),
    ]);
  });

  it('refuses layers above the store in the store, and workflows', async () => {
    expect(await restrictedImports('src/store/redis/redis-store.ts', '../../runtime/worker.ts')).toEqual([
      expect.stringContaining('nothing above it'),
    ]);
    expect(await restrictedImports('src/store/memory/memory-store.ts', '../../../machines/index.ts')).toEqual([
      expect.stringContaining('never imports a workflow'),
    ]);
  });

  it('refuses the runtime in effects, the API in the runtime and the API in the definition kit', async () => {
    expect(await restrictedImports('src/effects/redis-notifier.ts', '../runtime/worker.ts')).toEqual([
      expect.stringContaining('src/effects imports only engine'),
    ]);
    expect(await restrictedImports('src/effects/redis-notifier.ts', '../store/redis/reply-codes.ts')).toEqual([
      expect.stringContaining('src/effects imports only engine'),
    ]);
    expect(await restrictedImports('src/runtime/worker.ts', '../api/server.ts')).toEqual([
      expect.stringContaining('src/runtime imports only engine, effects, observability'),
    ]);
    expect(await restrictedImports('src/definitions/define-workflow.ts', '../api/server.ts')).toEqual([
      expect.stringContaining('src/definitions imports only engine, effects, store'),
    ]);
    expect(await restrictedImports('src/paths/walk.ts', '../runtime/worker.ts')).toEqual([
      expect.stringContaining('src/paths imports only engine, definitions'),
    ]);
    expect(await restrictedImports('src/system.ts', './cli/main.ts')).toEqual([
      expect.stringContaining('src/system imports only'),
    ]);
    expect(await restrictedImports('src/config.ts', './engine/errors.ts')).toEqual([
      expect.stringContaining('src/config imports nothing else in src/'),
    ]);
  });

  it('gives every src/ folder holding TypeScript a place in the layer order', () => {
    const folders = readdirSync(`${root}src`, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .filter((entry) =>
        readdirSync(`${root}src/${entry.name}`, { recursive: true }).some((f) => String(f).endsWith('.ts')),
      )
      .map((entry) => entry.name);
    const modules = readdirSync(`${root}src`)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => name.slice(0, -3));
    expect(layers.toSorted()).toEqual([...folders, ...modules].toSorted());
  });

  it('lets each layer import exactly the layers below it, and the order has no cycle', async () => {
    const linted: Record<string, string[]> = {};
    for (const layer of layers) linted[layer] = await lintedImports(layer);
    expect(Object.fromEntries(Object.entries(linted).map(([l, to]) => [l, to.toSorted()]))).toEqual(
      Object.fromEntries(Object.entries(mayImport).map(([l, to]) => [l, to.toSorted()])),
    );
    expect(cycleIn(linted)).toBeUndefined();
  });

  it('lets each folder import what lies below it', async () => {
    expect(await restrictedImports('src/engine/decider.ts', './decision.ts')).toEqual([]);
    expect(await restrictedImports('src/store/redis/redis-store.ts', '../../engine/store-port.ts')).toEqual([]);
    expect(await restrictedImports('src/observability/engine-metrics.ts', '../engine/observer.ts')).toEqual([]);
    expect(await restrictedImports('src/api/server.ts', '../engine/engine.ts')).toEqual([]);
    expect(await restrictedImports('src/runtime/worker.ts', '../effects/effect.ts')).toEqual([]);
    expect(await restrictedImports('src/cli/serve.ts', '../system.ts')).toEqual([]);
  });
});
