import { describe, expect, it } from 'vitest';
import { percentile } from '../../bench/lib.ts';
import { parseProcStat } from '../../bench/proc-stat.ts';
import { roundOrder } from '../../bench/round-order.ts';
import { formatSpread, spreadOf } from '../../bench/spread.ts';

/** A real line's shape: pid, (comm), state, then 49 more fields; utime and stime are fields 14 and 15. */
const statLine = (comm: string, utime: number, stime: number) =>
  `4242 (${comm}) S 1 4242 4242 0 -1 4194560 1234 0 0 0 ${utime} ${stime} 0 0 20 0 11 0 5678 1023000 20058 18446744073709551615 1 1 0 0 0 0 0 16781312 134235650 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n`;

describe('parseProcStat', () => {
  it('reads user and system ticks', () => {
    expect(parseProcStat(statLine('node', 1520, 233))).toEqual({ utimeTicks: 1520, stimeTicks: 233 });
  });

  it('counts fields after the last parenthesis, whatever the command name holds', () => {
    expect(parseProcStat(statLine('redis-server *:6379) (x', 7, 9))).toEqual({ utimeTicks: 7, stimeTicks: 9 });
  });

  it('refuses a line that is not a stat line', () => {
    expect(() => parseProcStat('no such process')).toThrow();
    expect(() => parseProcStat('1 (node) S 1')).toThrow();
  });

  it('reads this process from /proc', async () => {
    const { readFileSync } = await import('node:fs');
    const ticks = parseProcStat(readFileSync('/proc/self/stat', 'utf8'));
    expect(ticks.utimeTicks + ticks.stimeTicks).toBeGreaterThanOrEqual(0);
  });
});

describe('percentile', () => {
  it('picks the value at the rank of a sorted list', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(51);
    expect(percentile(values, 99)).toBe(100);
    expect(percentile([], 99)).toBe(0);
  });
});

describe('spreadOf', () => {
  it('gives min, the lower median and max, in any order of rounds', () => {
    expect(spreadOf([180, 120, 150])).toEqual({ min: 120, median: 150, max: 180 });
    expect(spreadOf([4, 1, 3, 2])).toEqual({ min: 1, median: 2, max: 4 });
    expect(spreadOf([])).toEqual({ min: 0, median: 0, max: 0 });
  });

  it('formats a range only when the rounds differ', () => {
    expect(formatSpread({ min: 120, median: 150, max: 1800 })).toBe('150 (120–1,800)');
    expect(formatSpread({ min: 7.5, median: 7.5, max: 7.5 }, 1)).toBe('7.5');
  });
});

describe('roundOrder', () => {
  // Two layouts, each measured from this checkout and from the one given to --against.
  const groups = [
    ['all', 'all@main'],
    ['split', 'split@main'],
  ];
  const runs = (round: number) => roundOrder(groups, round).map(({ target, position }) => `${target}:${position}`);

  it('runs this checkout first in odd rounds and the other first in even ones, in every group', () => {
    expect(runs(1)).toEqual(['all:1', 'all@main:2', 'split:1', 'split@main:2']);
    expect(runs(2)).toEqual(['all@main:1', 'all:2', 'split@main:1', 'split:2']);
    expect(runs(3)).toEqual(runs(1));
    expect(runs(4)).toEqual(runs(2));
  });

  it('gives each side the first place in half of an even number of rounds', () => {
    const firsts = [1, 2, 3, 4, 5, 6].flatMap((round) =>
      roundOrder(groups, round)
        .filter(({ position }) => position === 1)
        .map(({ target }) => target),
    );
    expect(firsts.filter((target) => target === 'all')).toHaveLength(3);
    expect(firsts.filter((target) => target === 'split@main')).toHaveLength(3);
  });

  it('keeps a group of one in place, as without --against', () => {
    expect(roundOrder([['all'], ['split']], 2)).toEqual([
      { target: 'all', position: 1 },
      { target: 'split', position: 1 },
    ]);
  });
});
