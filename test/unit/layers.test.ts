/**
 * The layer order of DESIGN.md §0 is held by `no-restricted-imports` patterns per folder in
 * eslint.config.js. Each case lints one import as if it were written in a real file of that folder.
 */
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let eslint: ESLint;

/** The `no-restricted-imports` messages for `import '<specifier>'` written in `file` (relative to the root). */
async function restrictedImports(file: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import '${specifier}';\n`, { filePath: `${root}${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules', () => {
  beforeAll(() => {
    eslint = new ESLint({ cwd: root });
  });

  it('refuses a workflow import in the API', async () => {
    expect(await restrictedImports('src/api/create-app.ts', '../../machines/index.ts')).toEqual([
      expect.stringContaining('never imports a workflow'),
    ]);
  });

  it('refuses the composition root in the API', async () => {
    expect(await restrictedImports('src/api/routes/workflows.ts', '../../system.ts')).toEqual([
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

  it('lets each folder import what lies below it', async () => {
    expect(await restrictedImports('src/engine/decider.ts', './decision.ts')).toEqual([]);
    expect(await restrictedImports('src/store/redis/redis-store.ts', '../../engine/store-port.ts')).toEqual([]);
    expect(await restrictedImports('src/observability/engine-metrics.ts', '../engine/observer.ts')).toEqual([]);
    expect(await restrictedImports('src/api/server.ts', '../engine/engine.ts')).toEqual([]);
  });
});
