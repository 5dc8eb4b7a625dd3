import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'threads',
    // Real Redis, real processes and Chromium on two shared cores: a test that needs seconds of CPU
    // must not fail because another file held the cores for a while.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Redis and Chromium are checked once, before any test file starts (one message naming what is missing).
    globalSetup: ['test/support/prerequisites.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts', 'machines/**/*.test.ts'],
          exclude: ['test/reliability/**', 'test/console/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Chromium needs a core of its own to keep its timing: the browser tests run after the rest
        // of the suite and the reliability runs, alone on the machine.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/console/**/*.test.ts'],
          sequence: { groupOrder: 2 },
        },
      },
      {
        // The short reliability runs start many processes of their own (servers, workers, Redis):
        // they run after the rest of the suite, not against it for the machine's two cores.
        extends: true,
        test: {
          name: 'reliability',
          include: ['test/reliability/**/*.test.ts'],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
