/** CPU a process has used, read from `/proc/<pid>/stat` (Linux), so other processes can be measured too. */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * User and system CPU in clock ticks from the text of `/proc/<pid>/stat`. The command name (field 2)
 * is in parentheses and may itself hold spaces or parentheses, so fields are counted after the last `)`.
 */
export function parseProcStat(text: string): { utimeTicks: number; stimeTicks: number } {
  const end = text.lastIndexOf(')');
  if (end < 0) throw new Error('not a /proc/<pid>/stat line');
  // After the name: field 3 (state) is index 0, so utime (field 14) is 11 and stime (field 15) is 12.
  const fields = text
    .slice(end + 1)
    .trim()
    .split(/\s+/);
  const utimeTicks = Number(fields[11]);
  const stimeTicks = Number(fields[12]);
  if (!Number.isInteger(utimeTicks) || !Number.isInteger(stimeTicks))
    throw new Error('no utime/stime in the stat line');
  return { utimeTicks, stimeTicks };
}

/** Clock ticks per second (`getconf CLK_TCK`), 100 when it cannot be asked. */
export function clockTicksPerSecond(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

/** Milliseconds of CPU (user + system) process `pid` has used so far; `ticksPerSecond` from `clockTicksPerSecond`. */
export function cpuMillis(pid: number, ticksPerSecond: number): number {
  const { utimeTicks, stimeTicks } = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return ((utimeTicks + stimeTicks) * 1000) / ticksPerSecond;
}

/**
 * Milliseconds of CPU the live threads of process `pid` have used so far, from each thread's
 * `/proc/<pid>/task/<tid>/schedstat` (the scheduler's nanoseconds), or, where the kernel keeps no
 * schedstat, from `/proc/<pid>/stat`. An idle process spends a few ms a second: `stat` counts in
 * clock ticks (10 ms), so over a 20 s window it is ±0.5 ms a second per process; schedstat is exact.
 * A thread that exits takes its time with it: for processes whose threads live on (idle ones).
 */
export function threadCpuMillis(pid: number, ticksPerSecond: number): number {
  let nanos = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
      nanos += Number(text.slice(0, text.indexOf(' ')));
    }
  } catch {
    return cpuMillis(pid, ticksPerSecond);
  }
  return Number.isFinite(nanos) ? nanos / 1e6 : cpuMillis(pid, ticksPerSecond);
}
