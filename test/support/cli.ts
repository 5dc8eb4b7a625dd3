/** `warden argv` in process, on these workflows or this project: its exit code, stdout and stderr. */
import { main } from '../../src/cli/main.ts';

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
