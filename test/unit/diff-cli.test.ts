/**
 * `warden diff` as a user runs it: two registered versions, a version against a config file, the
 * exit codes (`git diff --exit-code`'s convention), the `--json` shape, and usage errors on stderr.
 */
import { runWarden } from '../support/cli.ts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { workflows } from '../../machines/index.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'warden-diff-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const run = (...argv: string[]) => runWarden({ fallback: workflows, cwd: root }, argv);

describe('warden diff', () => {
  it('prints what changed from support@1 to support@2, the fraud screen first, and exits 0', async () => {
    const { code, out, err } = await run('diff', 'support@1', 'support@2');
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(
      /^support@1 → support@2\n\nStates added \(4\)\n {2}\+ beforeAction\.screeningFraud \(compound\)$/m,
    );
    expect(out).toContain(
      '  ~ beforeAction.validatingPolicy.attempting: POLICY_VALID [isCurrentValidation]: retargeted beforeAction.awaitingApproval → beforeAction.screeningFraud',
    );
    expect(out).toContain('Authority changes (6)');
  });

  it('exits 1 on differences only with --exit-code', async () => {
    expect((await run('diff', 'support@1', 'support@2', '--exit-code')).code).toBe(1);
    const same = await run('diff', 'support@2', 'support@2', '--exit-code');
    expect(same).toEqual({ code: 0, out: 'support@2 → support@2\nno differences', err: '' });
  });

  it('prints a stable JSON shape with --json', async () => {
    const { code, out } = await run('diff', 'support@1', 'support@2', '--json');
    expect(code).toBe(0);
    const diff = JSON.parse(out) as Record<string, Record<string, unknown[]>>;
    expect(Object.keys(diff)).toEqual(['from', 'to', 'states', 'transitions', 'events', 'authority']);
    expect(Object.keys(diff.states ?? {})).toEqual(['added', 'removed', 'moved', 'changed']);
    expect(Object.keys(diff.transitions ?? {})).toEqual(['added', 'removed', 'changed']);
    expect(Object.keys(diff.events ?? {})).toEqual(['added', 'removed', 'rolesChanged']);
    expect(diff.states?.added?.[0]).toEqual({
      state: 'beforeAction.screeningFraud',
      parent: 'beforeAction',
      type: 'compound',
    });
  });

  it('draws the diff in Mermaid with --mermaid', async () => {
    const { code, out } = await run('diff', 'support@1', 'support@2', '--mermaid');
    expect(code).toBe(0);
    expect(out).toMatch(/^stateDiagram-v2\n/);
    expect(out).toContain('  class s_beforeAction_screeningFraud added');
  });

  it('compares a version with a config file: none with its own generated config', async () => {
    const same = await run('diff', 'support@2', 'stately/support.machine.json', '--exit-code');
    expect(same).toEqual({ code: 0, out: 'support@2 → stately/support.machine.json\nno differences', err: '' });
  });

  it('compares a version with a Stately export, read without running it', async () => {
    const { code, out } = await run('diff', 'support@2', 'test/stately/fixtures/support-setup.export.ts.txt');
    expect(code).toBe(0);
    expect(out).toContain('  + manualReview: after customerReplyWindow → cancelled / recordCustomerSilence');
    expect(out).toContain(
      '  ! NEW_ROUTE_TO_FINAL cancelled is reached by a new route: manualReview —after customerReplyWindow→ cancelled',
    );
  });

  it('flags a guard dropped from a person’s event in an edited config (issue 23)', async () => {
    const config = JSON.parse(readFileSync(join(root, 'stately/agent-task.machine.json'), 'utf8')) as {
      states: Record<string, { on?: Record<string, { guard?: string }> }>;
    };
    const escalations = Object.entries(config.states).filter(([, s]) => s.on?.ESCALATE?.guard);
    expect(escalations.length).toBeGreaterThan(0);
    for (const [, state] of escalations) delete state.on?.ESCALATE?.guard;
    const file = join(scratch, 'agent-task.edited.json');
    writeFileSync(file, JSON.stringify(config));

    const { code, out } = await run('diff', 'agent-task@1', file, '--exit-code');
    expect(code).toBe(1);
    const [state] = escalations[0] ?? [];
    expect(out).toContain(`! GUARD_REMOVED ${state}: ESCALATE: the guard escalationIsAuthorised is gone`);
  });

  it.each([
    [['diff', 'support@1'], 'warden diff: usage: warden diff ID@A ID@B|FILE [--json | --mermaid] [--exit-code]'],
    [['diff', 'support@1', 'support@9'], 'warden diff: support@9 is not registered (registered: '],
    [['diff', 'support@1', 'no-such.json'], 'warden diff: cannot read no-such.json: '],
    [['diff', 'nothing@1', 'no-such.json'], 'warden diff: neither nothing@1 nor no-such.json is a registered version'],
    [
      ['diff', 'support@1', 'package.json'],
      'warden diff: package.json is not a machine config (an object with states)',
    ],
    [['diff', 'support@1', 'support@2', '--json', '--mermaid'], 'warden diff: --json or --mermaid, not both'],
  ])('exits 2 on a usage error, the message on stderr: %j', async (argv, message) => {
    const { code, out, err } = await run(...argv);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err.startsWith(message)).toBe(true);
  });
});
