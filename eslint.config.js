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

/** No workflow under src/: only the composition root (bin/warden.mjs) names one. */
const noWorkflowImports = {
  regex: '(^|/)machines/',
  message:
    'src/ never imports a workflow: take it from the registry handed to createSystem / main (see machines/index.ts).',
};

/** A relative import that reaches into one of these src/ folders (or, with `.ts`, these src/ files). */
const intoFolders = (/** @type {string[]} */ folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;
const intoFiles = (/** @type {string[]} */ files) => `^(\\.\\./)+(${files.join('|')})\\.ts$`;
const srcFolders = ['api', 'cli', 'console', 'definitions', 'effects', 'observability', 'paths', 'runtime', 'store'];

/**
 * The layer order of DESIGN.md §0, per folder. In flat config a later block that sets
 * `no-restricted-imports` for a file replaces every earlier setting of it, so each list below is
 * complete for its files: it repeats `noWorkflowImports` (and, for the engine, the I/O modules).
 */
const layerPatterns = {
  engine: [
    { group: ioModules, message: 'The engine is deterministic: no I/O imports (pass dependencies in).' },
    noWorkflowImports,
    {
      regex: intoFolders(srcFolders),
      message:
        'The engine is the bottom layer: it imports no other src/ folder (it owns the store port; see store-port.ts).',
    },
    { regex: intoFiles(['system', 'config', 'main']), message: 'The engine imports no other src/ module.' },
  ],
  store: [
    noWorkflowImports,
    {
      regex: intoFolders(['api', 'runtime', 'observability', 'effects', 'cli', 'definitions', 'paths']),
      message: "The store implements the engine's port: it imports the engine, nothing above it.",
    },
    { regex: intoFiles(['system']), message: 'The store never imports the composition root.' },
  ],
  observability: [
    noWorkflowImports,
    {
      regex: intoFolders(['api', 'runtime', 'cli']),
      message:
        'Observability is fed through observer interfaces declared in the engine (or by itself); it never imports the API or the runtime.',
    },
    { regex: intoFiles(['system']), message: 'Observability never imports the composition root.' },
  ],
  api: [
    noWorkflowImports,
    { regex: intoFolders(['cli']), message: 'The API is handed its dependencies; it never imports the CLI.' },
    {
      regex: intoFiles(['system']),
      message: 'The API is handed its dependencies (ApiSystem); it never imports the composition root.',
    },
  ],
};

const restrictImports = (/** @type {unknown[]} */ patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

export default defineConfig(
  { ignores: ['node_modules/**', 'coverage/**', 'dist/**', 'reports/**', '.stryker-tmp/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'bin/*.mjs'] },
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
  {
    // The platform receives workflows; it never imports one (the composition root is bin/warden.mjs).
    files: ['src/**/*.ts'],
    rules: restrictImports([noWorkflowImports]),
  },
  // The layers (DESIGN.md §0); each block replaces the one above for its folder, so each repeats it.
  { files: ['src/store/**/*.ts'], rules: restrictImports(layerPatterns.store) },
  { files: ['src/observability/**/*.ts'], rules: restrictImports(layerPatterns.observability) },
  { files: ['src/api/**/*.ts'], rules: restrictImports(layerPatterns.api) },
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
            { regex: '^(\\.\\./)+machines/', message: 'src/ never imports a workflow.' },
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
    rules: restrictImports(layerPatterns.engine),
  },
  {
    files: ['bin/**/*.mjs', '*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } },
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
    // The console's browser script: plain JavaScript, no types to check it with.
    files: ['src/console/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, program: null },
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'sessionStorage',
          'fetch',
          'atob',
          'setTimeout',
          'Node',
          'AbortController',
          'TextDecoderStream',
          'mermaid',
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
