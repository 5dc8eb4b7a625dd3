/**
 * The starter tokens of a server started without WARDEN_JWT_SECRET are bearer tokens valid 12 h:
 * printed for people to copy only on a terminal; when stdout goes elsewhere (a log pipeline), they
 * are written to a file only the owner can read, beside the secret, and that path is logged.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { createAuthenticator } from '../../src/api/auth.ts';
import { starterTokens, starterTokensFile } from '../../src/cli/serve.ts';

const dir = mkdtempSync(join(tmpdir(), 'warden-starter-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const secret = { secret: 'starter-secret-0123456789abcdef', created: true, path: join(dir, '.warden', 'secret') };

/** A logger keeping what it was given. */
function logger() {
  const logged: { fields: Record<string, unknown>; message: string }[] = [];
  const info = (fields: Record<string, unknown>, message: string) => logged.push({ fields, message });
  return { logged, logger: { info } as unknown as Logger };
}

describe('the starter tokens', () => {
  it('are printed on a terminal: the export line, then the other workflows’ tokens', async () => {
    const printed: string[] = [];
    const { logger: log } = logger();
    await starterTokens(
      registry,
      secret,
      'http://localhost:3000',
      { terminal: true, print: (l) => printed.push(l) },
      log,
    );
    expect(printed[0]).toBe('Paste into another shell (support tokens for tenant "demo", 12 h):');
    expect(printed[1]).toMatch(/^export BASE=http:\/\/localhost:3000 AGENT=\S+ APPROVER=\S+ REVIEWER=\S+$/);
    expect(printed[2]).toBe('More tokens for tenant "demo":');
  });

  it('are written to a file only its owner reads, whose path is logged, when stdout is not a terminal', async () => {
    const printed: string[] = [];
    const { logger: log, logged } = logger();
    const file = starterTokensFile(secret.path);
    expect(file).toBe(join(dir, '.warden', 'starter-tokens'));
    // One left from an earlier start, readable by others: replaced, never widened.
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, 'old\n');
    chmodSync(file, 0o644);
    await starterTokens(
      registry,
      secret,
      'http://localhost:3000',
      { terminal: false, print: (l) => printed.push(l) },
      log,
    );
    expect(printed).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const lines = readFileSync(file, 'utf8').split('\n');
    // A file to source: the exports, everything else a comment.
    expect(lines[0]).toBe('# Paste into another shell (support tokens for tenant "demo", 12 h):');
    expect(lines.filter((line) => line !== '' && !line.startsWith('export ') && !line.startsWith('# '))).toEqual([]);
    const approver = /APPROVER=(\S+)/.exec(lines[1] ?? '')?.[1] ?? '';
    expect(await createAuthenticator({ secret: secret.secret }).authenticate(`Bearer ${approver}`)).toMatchObject({
      tenantId: 'demo',
      roles: ['support_approver'],
      claims: { approvalLimit: 500 },
    });
    expect(logged.at(-1)).toEqual({
      fields: { tokensFile: file },
      message: `starter tokens written to ${file} (readable only by you): stdout is not a terminal, so they are not printed`,
    });
    // No token in what was logged.
    expect(JSON.stringify(logged)).not.toContain(approver);
  });
});
