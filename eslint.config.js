// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Modules that do I/O; the deterministic core (machines/ and the decider) must not import them. */
const ioModules = [
  'node:*',
  'fs',
  'fs/*',
  'net',
  'http',
  'https',
  'child_process',
  'ioredis',
  'hono',
  'hono/*',
  '@hono/*',
  'pino',
  'prom-client',
];

/**
 * No workflow under src/: only the composition root (bin/warden.mjs) names one. A bare `machines`
 * (resolved to machines/index.ts), `machines/index` and `machines.ts` count as much as `machines/…`.
 */
const noWorkflowImports = {
  regex: '(^|/)machines(/|\\.[cm]?[jt]s$|$)',
  message:
    'src/ never imports a workflow: take it from the registry handed to createSystem / main (see machines/index.ts).',
};

/**
 * The layer order (ARCHITECTURE.md, "Layers"; test/unit/layers.test.ts): for each src/ folder and top-level module, the others it may
 * import; every other one is refused. The table has no cycle (test/unit/layers.test.ts lints an
 * import of each from each and checks the relation): a folder never imports one that imports it.
 * `why` is the lint message.
 */
const layers = {
  engine: {
    imports: [],
    why: 'The engine is the bottom layer: it imports no other src/ folder (it owns the store port; see store-port.ts).',
  },
  config: { imports: [], why: 'The configuration is read by the layers above it; it imports none of them.' },
  store: {
    imports: ['engine'],
    why: "The store implements the engine's port: it imports the engine, nothing above it.",
  },
  effects: {
    imports: ['engine'],
    why: 'Effects take their types from the engine; the runtime runs them, they never import the runtime, the store or anything above.',
  },
  observability: {
    imports: ['engine', 'effects', 'config'],
    why: 'Observability is fed through observer interfaces declared in the engine (or by itself); it never imports the API or the runtime.',
  },
  definitions: {
    imports: ['engine', 'effects', 'store'],
    why: 'The definition kit builds on the engine and the effect types; it never imports the runtime, the API or the composition root.',
  },
  paths: {
    imports: ['engine', 'definitions'],
    why: 'Path tooling walks a definition with the engine; it never imports the runtime, the API or the composition root.',
  },
  runtime: {
    imports: ['engine', 'effects', 'observability'],
    why: 'The runtime is handed the engine, the store and the handlers; it never imports the store, a definition, the API or the composition root.',
  },
  api: {
    imports: ['engine', 'effects', 'observability', 'runtime', 'definitions', 'config'],
    why: 'The API is handed its dependencies (ApiSystem); it never imports the store, path tooling, the CLI or the composition root.',
  },
  system: {
    imports: [
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
    why: 'The composition root is used by the CLI; it never imports it.',
  },
  cli: {
    imports: [
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
    why: 'The CLI is the top layer.',
  },
  authoring: {
    imports: ['engine', 'effects', 'store', 'definitions', 'paths'],
    why: 'The authoring kit builds workflows on the definition and effect kits; it never imports the runtime, the API, the CLI or the composition root.',
  },
  testing: {
    imports: ['engine', 'effects', 'store', 'definitions', 'paths'],
    why: 'The testing kit (warden/testing) runs definitions on the engine and the memory store; it never imports the runtime, the API, the CLI or the composition root.',
  },
  index: {
    imports: ['engine', 'effects', 'definitions', 'authoring'],
    why: "The package's entry point (warden) re-exports the authoring API; it never imports the runtime, the API, the CLI or the composition root.",
  },
};
/** @typedef {keyof typeof layers} Layer */
/** Top-level src/ modules (src/<name>.ts) in the table; the rest are folders. The console holds no TypeScript. */
const srcFiles = ['config', 'system', 'index'];

/**
 * The `no-restricted-imports` pattern refusing what `layer` may not import, if anything. From a
 * folder's files src/ is reached by `../` (as many as the depth), from a top-level module by `./`;
 * a module is named with or without its extension, a folder with or without a path inside it.
 */
function layerPattern(/** @type {Layer} */ layer) {
  const { imports, why } = layers[layer];
  const refused = Object.keys(layers).filter((other) => other !== layer && !imports.includes(other));
  const folders = refused.filter((name) => !srcFiles.includes(name));
  const files = refused.filter((name) => srcFiles.includes(name));
  const alternatives = [
    ...(folders.length > 0 ? [`(${folders.join('|')})(/|$)`] : []),
    ...(files.length > 0 ? [`(${files.join('|')})(\\.[cm]?[jt]s)?$`] : []),
  ];
  if (alternatives.length === 0) return [];
  const into = srcFiles.includes(layer) ? '\\./' : '(\\.\\./)+';
  const allowed = imports.length > 0 ? `only ${imports.join(', ')}` : 'nothing else in src/';
  const message = `${why} (src/${layer} imports ${allowed}: the layer order in eslint.config.js.)`;
  return [{ regex: `^${into}(${alternatives.join('|')})`, message }];
}

/** Everything `no-restricted-imports` refuses in one layer: the layer order, no workflow, and for the engine no I/O. */
const layerPatterns = (/** @type {Layer} */ layer) => [
  ...(layer === 'engine'
    ? [{ group: ioModules, message: 'The engine is deterministic: no I/O imports (pass dependencies in).' }]
    : []),
  noWorkflowImports,
  ...layerPattern(layer),
];

const restrictImports = (/** @type {unknown[]} */ patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

export default defineConfig(
  { ignores: ['node_modules/**', 'coverage/**', 'dist/**', 'reports/**', '.stryker-tmp/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'bin/*.mjs', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The platform receives workflows; it never imports one (the composition root is bin/warden.mjs),
  // and each src/ folder imports only the layers below it (the layer order above). In flat config a later block
  // that sets `no-restricted-imports` for a file replaces every earlier setting of it, so each list is
  // complete for its files; src/engine's comes after the deterministic block below for that reason.
  { files: ['src/**/*.ts'], rules: restrictImports([noWorkflowImports]) },
  ...Object.keys(layers)
    .filter((layer) => layer !== 'engine')
    .map((layer) => ({
      files: [srcFiles.includes(layer) ? `src/${layer}.ts` : `src/${layer}/**/*.ts`],
      rules: restrictImports(layerPatterns(/** @type {Layer} */ (layer))),
    })),
  {
    // The deterministic part of every workflow: its chart and everything the chart's transitions run.
    // Adapters and handlers (`effects/`, executors) and path tooling beside them may do I/O.
    files: [
      'src/engine/**/*.ts',
      'machines/*/*.machine.ts',
      'machines/*/versions/**/*.ts',
      'machines/*/*{context,events,guards,implementations,updates,retry-policy,roles,operations,policy,claims}.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ioModules,
              message: 'machines/ and the engine are deterministic: no I/O imports (pass dependencies in).',
            },
            // Repeated here, since this block replaces the one above (src/engine's list is the engine block below).
            noWorkflowImports,
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: 'Use the injected time.' },
        { name: 'setTimeout', message: 'Timers belong to the timer service.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use deterministic jitter.' },
      ],
    },
  },
  {
    // After the deterministic block, whose import list it replaces for the engine with a complete one.
    files: ['src/engine/**/*.ts'],
    rules: restrictImports(layerPatterns('engine')),
  },
  {
    files: ['bin/**/*.mjs', 'scripts/**/*.mjs', '*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
      },
    },
  },
  {
    // An external worker written against the HTTP API alone, as a user would: plain JavaScript.
    files: ['test/external-worker/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, program: null },
      globals: { process: 'readonly', console: 'readonly', fetch: 'readonly' },
    },
  },
  {
    // The console's browser modules: plain JavaScript, no types to check them with.
    files: ['src/console/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, program: null },
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'sessionStorage',
          'fetch',
          'atob',
          'setTimeout',
          'clearTimeout',
          'URL',
          'URLSearchParams',
          'FormData',
          'Node',
          'AbortController',
          'EventSource',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // vitest's asymmetric matchers (expect.objectContaining, ...) are typed `any`.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
);
