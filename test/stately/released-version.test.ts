/**
 * A released version is data: its config as released (JSON) and the implementations it names, pinned
 * to that release. The loader rebuilds the same chart and refuses a name it is not given; the check
 * reports an implementation whose source is no longer the released one.
 */
import { describe, expect, it } from 'vitest';
import { registry as workflowRegistry } from '../../machines/index.ts';
import { supportV1, supportV2 } from '../../machines/support/index.ts';
import { approvalChecks, approverDecisionChecks } from '../../machines/support/support.guards.ts';
import { supportKit } from '../../machines/support/support.machine.ts';
import { supportV1Repair } from '../../machines/support/versions/support.v1.repairs.ts';
import releasedConfig from '../../machines/support/versions/support.v1.json' with { type: 'json' };
import releasedPins from '../../machines/support/versions/support.v1.pins.json' with { type: 'json' };
import { statelyFilesOnDisk } from '../../src/cli/stately.ts';
import { serialisableConfig } from '../../src/definitions/describe.ts';
import { loadReleasedMachine, releaseFiles } from '../../src/definitions/released-version.ts';
import {
  implementationFingerprint,
  implementationPins,
  normalisedSource,
  shortPin,
} from '../../src/definitions/pins.ts';
import { stateLock, stateLockPath, statelyCheck, type LockedVersion } from '../../src/definitions/stately.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import type { AnyStateMachine } from 'xstate';

const definitions = workflowRegistry.versions;
const findMigration = workflowRegistry.migration;
const onDisk = statelyFilesOnDisk(workflowRegistry);
type Chart = Parameters<typeof supportKit.createMachine>[0];

/** support@1 loaded from its released config and pins on the kit, its machine changed by `change`. */
const supportV1With = (change: (machine: AnyStateMachine) => AnyStateMachine, pins: unknown = releasedPins) => ({
  ...supportV1,
  ...loadReleasedMachine({
    key: 'support@1',
    config: releasedConfig,
    implementations: {},
    createMachine: (chart: Chart) => change(supportKit.createMachine(chart)),
    pins,
    repair: supportV1Repair,
  }),
});

/** The released config with its named repairs: what support@1 runs. */
const repairedConfig = supportV1Repair.apply(structuredClone(releasedConfig));

const checkWithV1 = (v1: WorkflowDefinition) =>
  statelyCheck({ definitions: new Map([...definitions, ['support@1', v1]]), findMigration }, onDisk);

describe('a released version kept as data', () => {
  it('loads support@1 as the chart it was released with plus its named repairs, and the lock holds both', () => {
    // The context is the kit's setup()'s, not the chart's (repair 3 drops the released expression).
    const kitConfig = (machine: typeof supportV1.machine) => serialisableConfig(machine) as Record<string, unknown>;
    const { context: kitContext, ...chart } = kitConfig(supportV1.machine);
    expect(chart).toEqual(repairedConfig);
    expect(kitContext).toEqual(kitConfig(supportV2.machine).context);
    expect(supportV1.repairs).toEqual(supportV1Repair.names);
    expect(repairedConfig).not.toEqual(releasedConfig);
    const lock = JSON.parse(onDisk[stateLockPath] ?? '{}') as Record<string, LockedVersion>;
    expect(stateLock(definitions)['support@1']).toEqual(lock['support@1']);
    expect(supportV1.pins).toEqual(releasedPins);
  });

  it('writes the same release files again, whoever compiled the implementations', () => {
    // The committed files were written by the CLI (tsx); these are computed under vite.
    const files = releaseFiles(supportV1.machine);
    const { context: _kitContext, ...chart } = JSON.parse(files.config) as Record<string, unknown>;
    expect(chart).toEqual(repairedConfig);
    expect(implementationPins(supportV1.machine)).toEqual(releasedPins);
  });

  it('refuses a config naming a guard, action or delay it is not given, naming each one', () => {
    const config = {
      id: 'tiny',
      initial: 'a',
      states: {
        a: { on: { GO: { guard: 'ready', target: 'b', actions: ['log', 'xstate.stop'] } }, after: { later: 'b' } },
        b: { entry: { type: 'archive', params: { why: 'done' } } },
      },
    };
    expect(() =>
      loadReleasedMachine({ key: 'tiny@1', config, implementations: { actions: { log: () => undefined } } }),
    ).toThrow(
      [
        'UNDECLARED_DELAY: tiny@1: states.a.after names the delay later, which setup() does not declare; XState would fire it at once: declare it as setup({ delays: { later: <ms, or a function of the context> } })',
        'MISSING_IMPLEMENTATION: tiny@1: states.a.on.GO names the guard ready, which setup() does not implement',
        'MISSING_IMPLEMENTATION: tiny@1: states.b.entry names the action archive, which setup() does not implement',
      ].join('\n'),
    );
    const withoutReviewDeadline = (machine: AnyStateMachine) => {
      const copy = machine.provide({});
      delete (copy.implementations.delays as Record<string, unknown>).reviewDeadline;
      return copy;
    };
    expect(() => supportV1With(withoutReviewDeadline)).toThrow(
      'UNDECLARED_DELAY: support@1: states.manualReview.after names the delay reviewDeadline, which setup() does not declare; XState would fire it at once: declare it as setup({ delays: { reviewDeadline: <ms, or a function of the context> } })',
    );
  });

  it('refuses an expression other than the root context factory, and a context expression without a factory', () => {
    const config = {
      id: 'tiny',
      context: { $expr: '() => ({})' },
      initial: 'a',
      states: { a: { entry: { $expr: '() => undefined' } } },
    };
    expect(() => loadReleasedMachine({ key: 'tiny@1', config, implementations: {}, context: () => ({}) })).toThrow(
      'tiny@1: the released config holds expressions at states.a.entry; only the root context factory may be one',
    );
    expect(() => loadReleasedMachine({ key: 'support@1', config: releasedConfig, implementations: {} })).toThrow(
      "support@1: the released config's context is ({input})=>createInitialContext(input); pass that factory as context",
    );
    // On the kit the context is the kit's: a released config keeping its context expression is refused.
    expect(() =>
      loadReleasedMachine({
        key: 'support@1',
        config: releasedConfig,
        implementations: {},
        createMachine: (chart: Chart) => supportKit.createMachine(chart),
      }),
    ).toThrow("support@1: a chart released on the kit takes its context from the kit's setup(): drop its context");
    expect(() => supportV1With((machine) => machine, { guards: {} })).toThrow(
      'support@1: the released pins are not a pin list (guards, actions and delays by name)',
    );
  });

  it('reports a pinned implementation whose source changed, naming it, and passes with the released one kept', () => {
    type Args = { context: never; event: never };
    const all = (checks: typeof approvalChecks, { context, event }: Args) =>
      Object.values(checks).every((check) => check(context, event));
    const changed = (args: Args) => all(approverDecisionChecks, args) && all(approvalChecks, args);
    const v1 = supportV1With((machine) => machine.provide({ guards: { approverMayDecide: changed } }));
    expect(checkWithV1(v1)).toEqual([
      {
        code: 'IMPLEMENTATION_CHANGED',
        message: `support@1: the guard approverMayDecide is not the one support@1 was released with (pinned ${shortPin(releasedPins.guards.approverMayDecide)}, now ${shortPin(implementationFingerprint(changed))}) (it was made by the authoring kit and no longer is); keep the released implementation for support@1 and pin again only a deliberate change`,
      },
    ]);
    // A delay too; the chart (and so the lock) is unchanged, so nothing else is reported.
    const later = supportV1With((machine) => machine.provide({ delays: { reviewDeadline: () => 60_000 } }));
    expect(checkWithV1(later).map((p) => [p.code, p.message.split(' is not')[0]])).toEqual([
      ['IMPLEMENTATION_CHANGED', 'support@1: the delay reviewDeadline'],
    ]);
    // The fix: support@1 keeps the implementation it was released with.
    expect(checkWithV1(supportV1With((machine) => machine))).toEqual([]);
  });

  it('reports a name the config uses that its release does not pin', () => {
    const { answersTheJob: _unpinned, ...guards } = releasedPins.guards;
    const v1 = supportV1With((machine) => machine, { ...releasedPins, guards });
    expect(checkWithV1(v1)).toEqual([
      {
        code: 'IMPLEMENTATION_UNPINNED',
        message:
          "support@1: states.beforeAction.states.gatheringEvidence.states.policy.states.attempting.on.RETRYABLE_ERROR names the guard answersTheJob, which its release does not pin: if support@1's chart is not the one it was released with, run it from its release (`workflow({ released })`, docs/changing-a-workflow.md); else release the version's pins again",
      },
    ]);
  });

  it('fingerprints the source as written, not as tsx or vite compiled the module', () => {
    interface Args {
      context: { config: { approvalTimeoutMs: number } };
      event: unknown;
    }
    const guards = { isCurrentJob: (_c: unknown, _e: unknown, _p: unknown) => true };
    // How esbuild (tsx) and vite's SSR transform write the same guard and an effect marker.
    const viaAlias = ({ context, event }: Args, params: unknown) => guards.isCurrentJob(context, event, params);
    const __vite_ssr_import_1__ = { guards };
    const viaVite = ({ context, event }: Args, params: unknown) =>
      __vite_ssr_import_1__.guards.isCurrentJob(context, event, params);
    expect(normalisedSource(viaAlias)).toBe('({context,event},params)=>isCurrentJob(context,event,params)');
    expect(normalisedSource(viaVite)).toBe(normalisedSource(viaAlias));
    // A chain that starts at a parameter is kept whole.
    const timeout = ({ context }: Args) => context.config.approvalTimeoutMs;
    expect(normalisedSource(timeout)).toBe('({context})=>context.config.approvalTimeoutMs');
    expect(normalisedSource(() => undefined)).toBe('()=>undefined');
  });
});
