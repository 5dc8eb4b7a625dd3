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
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)machines/',
              message:
                'src/ never imports a workflow: take it from the registry handed to createSystem / main (see machines/index.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    // The deterministic part of every workflow: its chart and everything the chart's transitions run.
    // Adapters and handlers (`effects/`, executors) and path tooling beside them may do I/O.
    files: [
      'src/engine/**/*.ts',
      'machines/*/*.machine.ts',
      'machines/*/versions/**/*.ts',
      'machines/*/*{context,events,guards,implementations,updates,retry-policy,roles,operations,policy}.ts',
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
            // Repeated here: for src/engine this block replaces the one above.
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
    files: ['bin/**/*.mjs', '*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } },
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
