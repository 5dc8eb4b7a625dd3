/**
 * A released version is data: its config as released (JSON) and the implementations it names, pinned
 * to that release. The loader rebuilds the same chart and refuses a name it is not given; the check
 * reports an implementation whose source is no longer the released one.
 */
import { describe, expect, it } from 'vitest';
import { registry as workflowRegistry } from '../../machines/index.ts';
import { supportV1 } from '../../machines/support/index.ts';
import type { SupportInput } from '../../machines/support/support.context.ts';
import { createInitialContext } from '../../machines/support/support.context.ts';
import { guards as g } from '../../machines/support/support.guards.ts';
import { supportV1Implementations } from '../../machines/support/versions/support.v1.ts';
import { supportV1Repair } from '../../machines/support/versions/support.v1.repairs.ts';
import releasedConfig from '../../machines/support/versions/support.v1.json' with { type: 'json' };
import releasedPins from '../../machines/support/versions/support.v1.pins.json' with { type: 'json' };
import { statelyFilesOnDisk } from '../../src/cli/stately.ts';
import { serialisableConfig } from '../../src/definitions/describe.ts';
import { loadReleasedMachine, releaseFiles } from '../../src/definitions/released-version.ts';
import { implementationFingerprint, implementationPins, normalisedSource } from '../../src/definitions/pins.ts';
import { stateLock, stateLockPath, statelyCheck, type LockedVersion } from '../../src/definitions/stately.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';

const definitions = workflowRegistry.versions;
const findMigration = workflowRegistry.migration;
const onDisk = statelyFilesOnDisk(workflowRegistry);
const context = ({ input }: { input: SupportInput }) => createInitialContext(input);

/** support@1 loaded from its released config and pins with `implementations` instead of its own. */
const supportV1With = (implementations: Parameters<typeof loadReleasedMachine>[0]['implementations']) => ({
  ...supportV1,
  ...loadReleasedMachine({
    key: 'support@1',
    config: releasedConfig,
    implementations,
    context,
    pins: releasedPins,
    repair: supportV1Repair,
  }),
});

/** The released config with its named repairs: what support@1 runs. */
const repairedConfig = supportV1Repair.apply(structuredClone(releasedConfig));

const checkWithV1 = (v1: WorkflowDefinition) =>
  statelyCheck({ definitions: new Map([...definitions, ['support@1', v1]]), findMigration }, onDisk);

describe('a released version kept as data', () => {
  it('loads support@1 as the chart it was released with plus its named repairs, and the lock holds both', () => {
    expect(serialisableConfig(supportV1.machine)).toEqual(repairedConfig);
    expect(supportV1.repairs).toEqual(supportV1Repair.names);
    expect(repairedConfig).not.toEqual(releasedConfig);
    const lock = JSON.parse(onDisk[stateLockPath] ?? '{}') as Record<string, LockedVersion>;
    expect(stateLock(definitions)['support@1']).toEqual(lock['support@1']);
    expect(supportV1.pins).toEqual(releasedPins);
  });

  it('writes the same release files again, whoever compiled the implementations', () => {
    // The committed files were written by the CLI (tsx); these are computed under vite.
    const files = releaseFiles(supportV1.machine);
    expect(JSON.parse(files.config)).toEqual(repairedConfig);
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
    const { reviewDeadline: _gone, ...delays } = supportV1Implementations.delays;
    expect(() => supportV1With({ ...supportV1Implementations, delays })).toThrow(
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
    expect(() =>
      loadReleasedMachine({
        key: 'support@1',
        config: releasedConfig,
        implementations: supportV1Implementations,
        context,
        pins: { guards: {} },
      }),
    ).toThrow('support@1: the released pins are not a pin list (guards, actions and delays by name)');
  });

  it('reports a pinned implementation whose source changed, naming it, and passes with the released one kept', () => {
    const changed = ({ context, event }: Parameters<typeof supportV1Implementations.guards.approverMayDecide>[0]) =>
      g.approverMayDecide(context, event) && g.approvalIsCurrentAndAuthorized(context, event);
    const v1 = supportV1With({
      ...supportV1Implementations,
      guards: { ...supportV1Implementations.guards, approverMayDecide: changed },
    });
    expect(checkWithV1(v1)).toEqual([
      {
        code: 'IMPLEMENTATION_CHANGED',
        message: `support@1: the guard approverMayDecide is not the one support@1 was released with (pinned ${releasedPins.guards.approverMayDecide.slice(0, 19)}, now ${implementationFingerprint(changed).slice(0, 19)}); keep the released implementation for support@1 and pin again only a deliberate change`,
      },
    ]);
    // A delay too; the chart (and so the lock) is unchanged, so nothing else is reported.
    const later = supportV1With({
      ...supportV1Implementations,
      delays: { ...supportV1Implementations.delays, reviewDeadline: () => 60_000 },
    });
    expect(checkWithV1(later).map((p) => [p.code, p.message.split(' is not')[0]])).toEqual([
      ['IMPLEMENTATION_CHANGED', 'support@1: the delay reviewDeadline'],
    ]);
    // The fix: support@1 keeps the implementation it was released with.
    expect(checkWithV1(supportV1With(supportV1Implementations))).toEqual([]);
  });

  it('reports a name the config uses that its release does not pin', () => {
    const { isCurrentJob: _unpinned, ...guards } = releasedPins.guards;
    const v1 = {
      ...supportV1,
      ...loadReleasedMachine({
        key: 'support@1',
        config: releasedConfig,
        implementations: supportV1Implementations,
        context,
        pins: { ...releasedPins, guards },
        repair: supportV1Repair,
      }),
    };
    expect(checkWithV1(v1)).toEqual([
      {
        code: 'IMPLEMENTATION_UNPINNED',
        message:
          "support@1: states.beforeAction.states.classifying.states.attempting.on.CLASSIFIED names the guard isCurrentJob, which its release does not pin; release the version's pins again",
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
