/** `warden argv` in process, on these workflows or this project: its exit code, stdout and stderr. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';

/** The `warden` command of this checkout, as a user's shell starts it. */
export const wardenBin = fileURLToPath(new URL('../../bin/warden.mjs', import.meta.url));

export type CliTarget = Parameters<typeof main>[1];

/** What it printed, a line an item. */
export async function runWardenLines(target: CliTarget, argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    target,
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out, err };
}

/** What it printed, as text. */
export async function runWarden(target: CliTarget, argv: string[]) {
  const { code, out, err } = await runWardenLines(target, argv);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** What a `warden` process printed and how it ended (code null: killed). */
export interface WardenRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `bin/warden.mjs argv` as a user does, in `cwd` with exactly `env`; one that does not end
 * within `killAfterMs` is killed (code null).
 */
export function spawnWarden(
  argv: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; killAfterMs?: number },
): Promise<WardenRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [wardenBin, ...argv], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
