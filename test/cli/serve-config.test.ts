/**
 * `warden serve` with a setting that names what is not there says so in one line on stderr and exits
 * 2, as every configuration error does: never a stack trace.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv } from '../support/child-env.ts';
import { spawnWarden } from '../support/cli.ts';

const cwd = mkdtempSync(join(tmpdir(), 'warden-serve-config-'));
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});

describe('warden serve with a bad setting', { timeout: 60_000 }, () => {
  it('names an unknown WARDEN_EXTERNAL_EFFECTS queue and the known ones in one line, exit 2', async () => {
    const run = await spawnWarden(['serve'], {
      cwd,
      env: childEnv({
        WARDEN_FROM_SOURCE: '1',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        WARDEN_JWT_SECRET: 'test-secret-0123456789abcdef0123456789',
        WARDEN_SECRET_FILE: join(cwd, 'secret'),
        REDIS_URL: undefined,
        REDIS_CLUSTER: undefined,
        WARDEN_EXTERNAL_EFFECTS: 'support:nope',
      }),
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^warden serve: WARDEN_EXTERNAL_EFFECTS names support:nope, not an effect of a registered workflow; known: support:requestClassification, [^\n]*\n$/,
    );
  });
});
