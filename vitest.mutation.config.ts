/**
 * The tests Stryker runs against each mutant of the guards and the decider: the unit tests and the
 * model boundary, all pure (no Redis), so a mutant is judged in milliseconds.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/model/model-boundary.test.ts'],
    exclude: [
      'test/unit/shard-leases.test.ts',
      'test/unit/cli.test.ts',
      'test/unit/observability/**',
      'test/unit/effects/**',
    ],
  },
});
