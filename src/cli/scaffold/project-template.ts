/**
 * The project `warden init` writes: its package.json fields (merged into one that exists), the
 * TypeScript and vitest configurations, an empty `warden.config.ts`, a `workflows/` folder and a
 * `.gitignore`. The versions of xstate, zod, TypeScript, vitest and the Node.js types are the ones
 * Warden itself is built and tested with (from its package.json), so one copy of each is installed.
 */

/** What the project's package.json needs, by field. */
export interface ProjectPackage {
  type: 'module';
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/** Warden's package.json, as far as the template reads it. */
export interface WardenPackage {
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The fields of the project's package.json. */
export function projectPackage(warden: WardenPackage): ProjectPackage {
  const pick = (from: Record<string, string> | undefined, names: string[]) =>
    Object.fromEntries(names.flatMap((name) => (from?.[name] ? [[name, from[name]]] : [])));
  return {
    type: 'module',
    scripts: {
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
      paths: 'warden paths',
      start: 'warden serve',
      'stately:gen': 'warden stately gen',
      'stately:check': 'warden stately check',
    },
    dependencies: { warden: `^${warden.version}`, ...pick(warden.dependencies, ['xstate', 'zod']) },
    devDependencies: pick(warden.devDependencies, ['@types/node', 'typescript', 'vitest']),
  };
}

/** The other files, by path relative to the project. */
export const projectFiles: Record<string, string> = {
  'tsconfig.json': `${JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2023',
        lib: ['ES2023'],
        module: 'ESNext',
        moduleResolution: 'Bundler',
        allowImportingTsExtensions: true,
        noEmit: true,
        strict: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        isolatedModules: true,
        skipLibCheck: true,
        types: ['node'],
      },
      include: ['*.ts', 'workflows'],
    },
    null,
    2,
  )}\n`,
  'vitest.config.ts': `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['workflows/**/*.test.ts'],
    // A path suite replays every generated path through the engine: seconds, not milliseconds.
    testTimeout: 120_000,
  },
});
`,
  'warden.config.ts': `/** The workflows this project runs: \`warden serve\`, \`warden paths\`, \`warden demo\` read this file. */
import { defineConfig } from 'warden';

export default defineConfig({
  workflows: [
    // \`npx warden new <id>\` adds each new workflow here.
  ],
});
`,
  'workflows/.gitkeep': '',
  '.gitignore': `node_modules/
dist/
coverage/
.warden/
`,
};
