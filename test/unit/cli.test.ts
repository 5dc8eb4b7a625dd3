import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';

async function run(...argv: string[]) {
  const lines: string[] = [];
  const code = await main(argv, (line) => lines.push(line));
  return { code, out: lines.join('\n') };
}

describe('the warden command', () => {
  it('lists the registered definitions', async () => {
    const { code, out } = await run('definitions', '--json');
    expect(code).toBe(0);
    const rows = JSON.parse(out) as { key: string; states: string[] }[];
    expect(rows.map((r) => r.key)).toEqual(['support@1', 'support@2']);
    expect(rows[0]!.states).toContain('manualReview');
  });

  it('simulates a refund request to completion offline', async () => {
    const { code, out } = await run('simulate');
    expect(code).toBe(0);
    expect(out).toContain('APPROVED by sim-approver');
    expect(out).toMatch(/final: completed after 7 effects$/);
  });

  it('exits 2 with the usage on an unknown command', async () => {
    const { code, out } = await run('frobnicate');
    expect(code).toBe(2);
    expect(out).toContain('unknown command: frobnicate');
  });
});
