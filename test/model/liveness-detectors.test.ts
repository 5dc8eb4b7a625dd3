/**
 * The liveness detectors and the outcome check fire: each on a chart with one deliberate fault,
 * and none on the shipped definitions (their path suites assert that).
 */
import { createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { generatePaths } from '../../src/paths/generate.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import type { Walkable } from '../../src/paths/walk.ts';
import { tinyWorkflow } from '../platform/tiny-workflow.ts';
import { agentTask, agentTaskV1 } from '../../machines/agent-task/index.ts';
import {
  patchAt,
  withClassifyFailuresRefused,
  withoutNotifyEscalation,
  withReviewCompletingUnproven,
} from './mutants.ts';

type Config = Record<string, unknown>;

const tiny = tinyWorkflow('stamp');
const tinyMutant = (patch: (config: Config) => Config): Walkable => {
  const machine = tiny.latest.machine;
  const definition: WorkflowDefinition = {
    ...(tiny.latest as WorkflowDefinition),
    machine: createMachine(patch(machine.config as Config) as never, machine.implementations as never),
  };
  return { definition, paths: tiny.paths };
};

const kinds = (walkable: Walkable) => {
  const { report } = generatePaths(walkable, { simple: false });
  return { report, kinds: new Set(report.liveness.findings.map((f) => f.kind)) };
};

describe('the liveness detectors', { timeout: 120_000 }, () => {
  it('finds nothing in the unmutated tiny workflow', () => {
    expect(kinds({ definition: tiny.latest, paths: tiny.paths }).report.liveness.findings).toEqual([]);
  });

  it('names a trap: a loop that never ends, with the path that leads into it', () => {
    const { report, kinds: found } = kinds(
      tinyMutant((config) =>
        patchAt(config, ['states', 'awaitingSignOff', 'on', 'SIGNED_OFF'], (t) => ({
          ...t,
          target: 'awaitingSignOff',
          reenter: true,
        })),
      ),
    );
    expect(found).toEqual(new Set(['trap']));
    const trap = report.liveness.findings.find((f) => f.kind === 'trap');
    expect(trap).toMatchObject({ state: ['awaitingSignOff'], path: [{ type: 'START' }, { type: 'STAMPED' }] });
  });

  it('names a stall: a state where nothing can happen', () => {
    const { kinds: found, report } = kinds(
      tinyMutant((config) =>
        patchAt(config, ['states', 'awaitingSignOff'], () => ({ description: 'Nothing leaves.' })),
      ),
    );
    expect(found).toEqual(new Set(['trap', 'stall']));
    expect(report.liveness.findings.find((f) => f.kind === 'stall')?.state).toEqual(['awaitingSignOff']);
  });

  it('names a job in flight whose dead letter is refused (ESCALATE dropped from notifying)', () => {
    const { report, kinds: found } = kinds(withoutNotifyEscalation);
    expect(found).toEqual(new Set(['unhandledDeadLetter']));
    const finding = report.liveness.findings[0];
    expect(finding?.state).toEqual(['notifyingCustomer.attempting']);
    expect(finding?.detail).toMatch(/^ESCALATE for job wf_walk\/notify\/1 is refused \(NO_TRANSITION/);
    expect(finding?.path.map((e) => e.type)).toContain('ACTION_EXECUTED');
  });

  it('names a job in flight whose failure report is refused', () => {
    const { report, kinds: found } = kinds(withClassifyFailuresRefused);
    expect(found).toEqual(new Set(['unhandledFailure']));
    expect(report.liveness.findings[0]).toMatchObject({
      state: ['beforeAction.classifying.attempting'],
      path: [{ type: 'START' }],
    });
    expect(report.liveness.findings[0]?.detail).toMatch(/^RETRYABLE_ERROR for job wf_walk\/classify\/1 is refused/);
  });
});

describe('the outcome check', { timeout: 120_000 }, () => {
  it('reports a chart that ends completed without its proof, which the engine refuses', () => {
    const { report } = generatePaths(withReviewCompletingUnproven, { simple: false });
    const messages = new Set(report.invariantViolations.flatMap((v) => v.violations));
    expect([...messages]).toContain(
      'the chart ends the workflow completed without its proof: approvedByAuthorisedApprover, policyValidated, actionReceiptUnderIdempotencyKey, customerNotified',
    );
    expect(report.invariantViolations.every((v) => v.event.type === 'REVIEW_COMPLETE')).toBe(true);
  });
});

describe('the outcome check of agent-task', { timeout: 120_000 }, () => {
  it('reports a chart that completes an approved plan without executing it', () => {
    const machine = agentTaskV1.machine;
    const config = patchAt(machine.config as Config, ['states', 'awaitingApproval', 'on', 'APPROVED'], (t) => ({
      ...t,
      target: 'completed',
    }));
    const definition: WorkflowDefinition = {
      ...(agentTaskV1 as WorkflowDefinition),
      machine: createMachine(config as never, machine.implementations as never),
    };
    const { report } = generatePaths({ definition, paths: agentTask.paths }, { simple: false });
    const messages = new Set(report.invariantViolations.flatMap((v) => v.violations));
    expect([...messages]).toContain('the chart ends the workflow completed without its proof: executionReceipt');
  });
});
