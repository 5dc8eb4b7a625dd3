import { runWarden } from '../support/cli.ts';
import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOrCreateSecretFile, readSecretFile } from '../../src/cli/secret-file.ts';
import { formatAudit, runDemo } from '../../src/cli/demo.ts';
import type { AuditEntry } from '../../src/engine/decision.ts';
import { deployCheckSummary } from '../../src/cli/deploy-check.ts';
import { migrateSummary } from '../../src/cli/migrate.ts';
import { registry, workflows } from '../../machines/index.ts';
import { loadConfig } from '../../src/config.ts';
import { createAuthenticator } from '../../src/api/auth.ts';
import { expectDefinitionsListed } from '../platform/registered.ts';

/** `warden argv`: its exit code, what it printed (stdout) and its refusals (stderr). */
const run = (...argv: string[]) => runWarden(workflows, argv);

describe('the warden command', () => {
  it('lists the registered definitions', async () => {
    const { code, out } = await run('definitions', '--json');
    expect(code).toBe(0);
    const rows = JSON.parse(out) as { key: string; latest: boolean; states: string[] }[];
    expectDefinitionsListed(rows, registry);
    expect(rows.find((r) => r.key === 'support@2')?.states).toContain('manualReview');
  });

  it('drives a demo request to completion with the local adapters and prints its audit trail', async () => {
    const lines: string[] = [];
    const code = await runDemo(loadConfig({ LOG_LEVEL: 'silent', WARDEN_POLL_MS: '5' }), registry, (line) =>
      lines.push(line),
    );
    expect(code).toBe(0);
    const out = lines.join('\n');
    expect(out).toMatch(/^store: memory$/m);
    expect(out).toMatch(/APPROVED by demo-approver: beforeAction\.awaitingApproval ⇒ executingAction\.executing/);
    expect(out).toMatch(/CUSTOMER_NOTIFIED by worker:.* ⇒ completed/);
    expect(out).toMatch(/final state: completed$/);
  });

  it('prints the reason a demo step states: why an effect failed, why a person decided', () => {
    const failed = {
      version: 6,
      eventType: 'PAY_FAILED',
      actor: { id: 'worker:w1', kind: 'service', roles: ['worker'] },
      from: ['paying'],
      to: ['payWait'],
      outcome: 'accepted',
      guard: { outcome: 'passed', guards: ['canRetry'], failedChecks: [] },
      effects: [],
      reason: 'INTERNAL: run returned PAYED, not one of its results',
    } as unknown as AuditEntry;
    expect(formatAudit(failed)).toBe(
      'v6 PAY_FAILED by worker:w1: paying ⇒ payWait [passed: canRetry] — INTERNAL: run returned PAYED, not one of its results',
    );
    expect(formatAudit({ ...failed, reason: null })).toBe(
      'v6 PAY_FAILED by worker:w1: paying ⇒ payWait [passed: canRetry]',
    );
  });

  it('refuses a bad configuration with exit code 2 and names the variable', async () => {
    const previous = process.env.WARDEN_SHARDS;
    process.env.WARDEN_SHARDS = 'many';
    try {
      const { code, err } = await run('demo');
      expect(code).toBe(2);
      expect(err).toContain('WARDEN_SHARDS');
    } finally {
      if (previous === undefined) delete process.env.WARDEN_SHARDS;
      else process.env.WARDEN_SHARDS = previous;
    }
  });

  it('exits 2 on an unknown command, said on stderr', async () => {
    const { code, out, err } = await run('frobnicate');
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toContain('unknown command frobnicate');
  });

  it('mints a token that the API accepts, with the claims asked for', async () => {
    process.env.WARDEN_JWT_SECRET = 'cli-secret-0123456789abcdef';
    try {
      const { code, out } = await run(
        'token',
        '--sub',
        'alice',
        '--tenant',
        'acme',
        '--roles',
        'support_approver',
        '--claim',
        'approvalLimit=500',
        '--claim',
        'desk=refunds',
      );
      expect(code).toBe(0);
      const principal = await createAuthenticator({ secret: 'cli-secret-0123456789abcdef' }).authenticate(
        `Bearer ${out}`,
      );
      expect(principal).toEqual({
        id: 'alice',
        tenantId: 'acme',
        roles: ['support_approver'],
        claims: { approvalLimit: 500, desk: 'refunds' },
        kind: 'user',
      });
      const bare = await run('token', '--sub', 'alice');
      expect(bare.code).toBe(2);
      // The usage names the claims the registered definitions read.
      expect(bare.err).toContain('approvalLimit (support): the highest refund amount');
      // An external worker's token: a service with the worker role.
      const worker = await run(
        'token',
        '--sub',
        'stamper',
        '--tenant',
        'system',
        '--roles',
        'worker',
        '--kind',
        'service',
      );
      expect(worker.code).toBe(0);
      expect(
        await createAuthenticator({ secret: 'cli-secret-0123456789abcdef' }).authenticate(`Bearer ${worker.out}`),
      ).toMatchObject({ id: 'stamper', kind: 'service', roles: ['worker'] });
      expect((await run('token', '--sub', 'a', '--tenant', 't', '--roles', 'r', '--kind', 'admin')).code).toBe(2);
    } finally {
      delete process.env.WARDEN_JWT_SECRET;
    }
    process.env.WARDEN_SECRET_FILE = join(mkdtempSync(join(tmpdir(), 'warden-cli-')), 'none');
    try {
      const { code, err } = await run('token', '--sub', 'a', '--tenant', 't', '--roles', 'r');
      expect(code).toBe(2);
      expect(err).toContain('set WARDEN_JWT_SECRET');
    } finally {
      delete process.env.WARDEN_SECRET_FILE;
    }
  });

  it('refuses a claim that is not name=value, a standard claim, and the --limit of earlier versions', async () => {
    process.env.WARDEN_JWT_SECRET = 'cli-secret-0123456789abcdef';
    const token = (...extra: string[]) => run('token', '--sub', 'a', '--tenant', 't', '--roles', 'r', ...extra);
    try {
      expect(await token('--claim', 'approvalLimit')).toEqual({
        code: 2,
        out: '',
        err: '--claim approvalLimit: write it as name=value',
      });
      // JSON that JavaScript reads as Infinity: named with its claim, not "Invalid input".
      expect(await token('--claim', 'approvalLimit=1e999')).toEqual({
        code: 2,
        out: '',
        err: '--claim approvalLimit: not a value a token can carry (JSON text, a finite number, true, false, null, or arrays and objects of those)',
      });
      const reserved = await token('--claim', 'tenant=globex');
      expect(reserved.code).toBe(2);
      expect(reserved.err).toContain('tenant: a standard claim');
      const limit = await token('--limit', '500');
      expect(limit.code).toBe(2);
      expect(limit.err).toContain('--limit is no longer an option: pass the claim by its name, --claim name=value');
      expect(limit.err).toContain('approvalLimit (support)');
      // A value that is not JSON is text; one that is, is that JSON.
      const text = await token('--claim', 'desk=refunds east', '--claim', 'regions=["eu","us"]');
      const principal = await createAuthenticator({ secret: 'cli-secret-0123456789abcdef' }).authenticate(
        `Bearer ${text.out}`,
      );
      expect(principal.claims).toEqual({ desk: 'refunds east', regions: ['eu', 'us'] });
    } finally {
      delete process.env.WARDEN_JWT_SECRET;
    }
  });

  it('mints, without WARDEN_JWT_SECRET, with the secret a server keeps in WARDEN_SECRET_FILE', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-cli-')), '.warden', 'secret');
    const { secret } = readOrCreateSecretFile(file);
    process.env.WARDEN_SECRET_FILE = file;
    try {
      const { code, out } = await run('token', '--sub', 'alice', '--tenant', 'demo', '--roles', 'support_approver');
      expect(code).toBe(0);
      expect(await createAuthenticator({ secret }).authenticate(`Bearer ${out}`)).toMatchObject({ id: 'alice' });
    } finally {
      delete process.env.WARDEN_SECRET_FILE;
    }
  });
});

describe('the secret file of a server started without WARDEN_JWT_SECRET', () => {
  it('is created readable only by its owner and kept for the next start', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-secret-')), '.warden', 'secret');
    const first = readOrCreateSecretFile(file);
    expect(first.created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    expect(readOrCreateSecretFile(file)).toEqual({ secret: first.secret, created: false });
    expect(readSecretFile(file)).toBe(first.secret);
  });

  it('is refused, naming the fix, when others may read it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-secret-')), 'secret');
    writeFileSync(file, 'a-secret-of-enough-length\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(() => readSecretFile(file)).toThrow(`chmod 600 ${file}`);
  });
});

describe('the summary of warden deploy check', () => {
  it('counts one live workflow in the singular and any other number in the plural', () => {
    const summary = (checked: number) => deployCheckSummary({ checked, stranded: 1, differing: 0 });
    expect(summary(1)).toBe('deploy check: 1 live workflow; 1 would be stranded, 0 decided differently');
    expect(summary(0)).toBe('deploy check: 0 live workflows; 1 would be stranded, 0 decided differently');
    expect(summary(1234)).toBe('deploy check: 1234 live workflows; 1 would be stranded, 0 decided differently');
  });
});

describe('the summary of warden migrate', () => {
  it('counts one live workflow in the singular, says the refused and a dry run, and when there is nothing', () => {
    const summary = (live: number, migrated: number, dryRun = false) =>
      migrateSummary({ live, migrated }, 'loan@1', 'loan@2', dryRun);
    expect(summary(12, 12)).toBe('migrated 12 of 12 live workflows of loan@1 to loan@2');
    expect(summary(1, 1)).toBe('migrated 1 of 1 live workflow of loan@1 to loan@2');
    expect(summary(3, 2)).toBe('migrated 2 of 3 live workflows of loan@1 to loan@2; 1 refused');
    expect(summary(0, 0)).toBe('no live workflow runs on loan@1: nothing to migrate');
    expect(summary(1, 0, true)).toBe(
      'dry run: would migrate 0 of 1 live workflow of loan@1 to loan@2; 1 would be refused; nothing changed',
    );
  });
});
