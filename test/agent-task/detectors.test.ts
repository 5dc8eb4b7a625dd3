/**
 * The path generator's detectors fire on agent-task mutants: a state nothing leads to is named, a
 * chart that executes without an approval and one that retries a non-idempotent operation are
 * caught by the invariants on the traversed edges.
 */
import { createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { AgentTaskContext } from '../../machines/agent-task/context.ts';
import { agentTask, agentTaskV1 } from '../../machines/agent-task/index.ts';
import { generatePaths } from '../../src/paths/generate.ts';
import type { Walkable } from '../../src/paths/walk.ts';
import { patchAt } from '../model/mutants.ts';

type Config = Record<string, unknown>;

function mutant(patch: (config: Config) => Config): Walkable {
  const machine = agentTaskV1.machine;
  const mutated = createMachine(patch(machine.config as Config) as never, machine.implementations as never);
  return { definition: { ...agentTaskV1, machine: mutated }, paths: agentTask.paths };
}

const violationsOf = (walkable: Walkable) =>
  new Set(generatePaths(walkable, { simple: false }).report.invariantViolations.flatMap((v) => v.violations));

describe('the path generator’s detectors on agent-task', { timeout: 60_000 }, () => {
  it('passes the chart as it is', () => {
    const { report } = generatePaths({ definition: agentTaskV1, paths: agentTask.paths }, { simple: false });
    expect(report.unreachable).toEqual([]);
    expect(report.invariantViolations).toEqual([]);
    expect(report.transitionsCovered / report.transitionsTotal).toBeGreaterThanOrEqual(0.95);
  });

  it('names a state node no event leads to', () => {
    const orphan = mutant((config) =>
      patchAt(config, ['states'], (states) => ({ ...states, orphan: { type: 'final', description: 'Unreachable.' } })),
    );
    expect(generatePaths(orphan, { simple: false }).report.unreachable).toEqual(['orphan']);
  });

  it('catches an execution that skips the approval', () => {
    const skipped = mutant((config) =>
      patchAt(config, ['states', 'validated'], (state) => ({ ...state, always: { target: 'approved' } })),
    );
    expect([...violationsOf(skipped)].join('\n')).toMatch(/approval/);
  });

  it('catches a retry of a non-idempotent operation', () => {
    // The retry guard forgets to ask whether the operation is idempotent (attempts stay bounded).
    const machine = agentTaskV1.machine.provide({
      guards: {
        canRetry: ({ context, event }: { context: AgentTaskContext; event: unknown }) =>
          agentTaskV1.explainGuard('canRetry', context, event).every((check) => check === 'retryAllowed'),
      } as never,
    });
    const blind: Walkable = { definition: { ...agentTaskV1, machine }, paths: agentTask.paths };
    expect([...violationsOf(blind)].join('\n')).toMatch(/non-idempotent/);
  });
});
