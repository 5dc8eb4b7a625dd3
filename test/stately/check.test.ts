/**
 * `npm run stately:check` passes on the committed files and fails, with a precise message, on each
 * fault the Stately round trip can introduce.
 */
import { describe, expect, it } from 'vitest';
import { registry as workflowRegistry } from '../../machines/index.ts';

const definitions = workflowRegistry.versions;
const findMigration = workflowRegistry.migration;
import { supportV1, supportV2 } from '../../machines/support/index.ts';
import { stately, statelyFilesOnDisk } from '../../src/cli/stately.ts';
import {
  stateLockPath,
  statelyCheck,
  statelyFiles,
  type LockedVersion,
  type Problem,
} from '../../src/definitions/stately.ts';
import type { PinnedVersion } from '../../src/definitions/pins.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { mutant, patchAt } from '../model/mutants.ts';

const onDisk = statelyFilesOnDisk(workflowRegistry);
/** The committed files as they were before support@2's release: its chart a draft, free to change. */
const draft = {
  ...onDisk,
  [stateLockPath]: (onDisk[stateLockPath] ?? '').replace(/("support@2": \{[^}]*?\])(,\n\s*"released": true)/, '$1'),
};

/** Checks a registry whose support@2 is `v2`, against files generated from it (so only the fault shows). */
function checkWith(v2: WorkflowDefinition, extra: Partial<Record<string, WorkflowDefinition>> = {}): Problem[] {
  const registry = new Map<string, WorkflowDefinition>([...definitions, ['support@2', v2]]);
  for (const [key, definition] of Object.entries(extra)) if (definition) registry.set(key, definition);
  const files = Object.fromEntries(statelyFiles({ definitions: registry }).map((f) => [f.path, f.content]));
  // The committed lock stays the reference for removed states; its hash of the edited latest version is
  // stale by design, so that one STALE_FILE is left out.
  return statelyCheck(
    { definitions: registry, findMigration },
    { ...files, [stateLockPath]: draft[stateLockPath] },
  ).filter((p) => !(p.code === 'STALE_FILE' && p.message.startsWith(stateLockPath)));
}

/**
 * A released version without its pins: for the tests below that give support@1 another chart (built
 * from support@2's), whose names its release never pinned.
 */
const withoutPins = ({ pins: _pins, ...definition }: WorkflowDefinition & PinnedVersion): WorkflowDefinition =>
  definition;

const completedWith = (entry: unknown) =>
  mutant((config) => patchAt(config, ['states', 'completed'], (state) => ({ ...state, entry })));

describe('npm run stately:check', () => {
  it('passes on the committed files', () => {
    expect(statelyCheck({ definitions, findMigration }, onDisk)).toEqual([]);
  });

  it('fails naming a stale or missing generated file and the first line that differs', () => {
    const mmd = onDisk['stately/support.mmd'] ?? '';
    const lines = mmd.split('\n');
    lines[3] = `${lines[3] ?? ''} edited`;
    const problems = statelyCheck(
      { definitions, findMigration },
      { ...onDisk, 'stately/support.mmd': lines.join('\n'), 'stately/support.machine.json': null },
    );
    expect(problems).toEqual([
      {
        code: 'STALE_FILE',
        message: 'stately/support.machine.json is missing; run npm run stately:gen',
      },
      {
        code: 'STALE_FILE',
        message: 'stately/support.mmd is stale (first difference at line 4); run npm run stately:gen and commit it',
      },
    ]);
  });

  it('fails on a lock that cannot be read, rather than skipping the removed-state check', () => {
    const problems = statelyCheck({ definitions, findMigration }, { ...onDisk, [stateLockPath]: '{"support@2": 7}' });
    expect(problems.map((p) => p.message)).toContain(
      `${stateLockPath} is not a lock list (config hash and state paths by version); restore it from git before regenerating`,
    );
  });

  it('fails when a released version’s chart changed in place, and lets the latest change', () => {
    const retargeted = (definition: WorkflowDefinition) => ({
      ...definition,
      machine: mutant((config) =>
        patchAt(config, ['states', 'beforeAction', 'states', 'requestReceived', 'on', 'START'], (t) => ({
          ...t,
          description: 'Edited in place.',
        })),
      ).machine,
    });
    const registry = new Map<string, WorkflowDefinition>([
      ...definitions,
      ['support@1', retargeted(withoutPins(supportV1))],
    ]);
    expect(
      statelyCheck({ definitions: registry, findMigration }, onDisk).filter((p) => p.code !== 'STALE_FILE'),
    ).toEqual([
      {
        code: 'VERSION_CHANGED',
        message:
          'support@1 is a released version and its chart changed in place; restore its released config (versions/support.v1.json beside its machine file) and register a new version instead',
      },
    ]);
    // A draft latest version is the one the editor changes: only its states are locked.
    const latest = new Map<string, WorkflowDefinition>([...definitions, ['support@2', retargeted(supportV2)]]);
    expect(draft[stateLockPath]).not.toBe(onDisk[stateLockPath]);
    expect(statelyCheck({ definitions: latest, findMigration }, draft).filter((p) => p.code !== 'STALE_FILE')).toEqual(
      [],
    );
    // Released (`warden release support`), the latest changes only as a new version.
    expect(statelyCheck({ definitions: latest, findMigration }, onDisk).filter((p) => p.code !== 'STALE_FILE')).toEqual(
      [
        {
          code: 'VERSION_CHANGED',
          message:
            'support@2 is released (stately/states.lock.json): its chart is what workflows running on it do, so it does not change in place; restore it (git checkout, or versions/support.v2.json beside its machine file), start the next version with `warden version new support` and make the change there',
        },
      ],
    );
  });

  it('fails on an inline implementation in the config', () => {
    expect(checkWith(completedWith([() => undefined]))).toEqual([
      {
        code: 'INLINE_IMPLEMENTATION',
        message: 'support@2: states.completed.entry[0] is an inline function; name it and implement it in setup()',
      },
    ]);
  });

  it('fails on a guard or an action the config names and setup() lacks', () => {
    const withGuard = mutant((config) =>
      patchAt(config, ['states', 'beforeAction', 'states', 'requestReceived', 'on', 'START'], (t) => ({
        ...t,
        guard: { type: 'requestIsFresh' },
      })),
    );
    expect(checkWith(withGuard)).toEqual([
      {
        code: 'MISSING_IMPLEMENTATION',
        message:
          'support@2: states.beforeAction.states.requestReceived.on.START names the guard requestIsFresh, which setup() does not implement',
      },
    ]);
    expect(checkWith(completedWith('archiveTicket'))).toEqual([
      {
        code: 'MISSING_IMPLEMENTATION',
        message: 'support@2: states.completed.entry names the action archiveTicket, which setup() does not implement',
      },
    ]);
  });

  it('fails on an after key that names no declared delay', () => {
    const withDelay = mutant((config) =>
      patchAt(config, ['states', 'manualReview'], (state) => ({
        ...state,
        after: { ...(state.after as object), reviewReminder: { actions: 'markReviewOverdue' } },
      })),
    );
    expect(checkWith(withDelay)).toEqual([
      {
        code: 'UNDECLARED_DELAY',
        message:
          'support@2: states.manualReview.after names the delay reviewReminder, which setup() does not declare; XState would fire it at once: declare it as setup({ delays: { reviewReminder: <ms, or a function of the context> } })',
      },
    ]);
  });

  it('fails when a state of a registered version disappeared without a migration', () => {
    // The lock says support@2 had a state the chart no longer has: it was edited in place.
    const lock = JSON.parse(onDisk[stateLockPath] ?? '{}') as Record<string, LockedVersion>;
    const v2 = lock['support@2'] as LockedVersion;
    lock['support@2'] = { ...v2, states: [...v2.states, 'beforeAction.legacyHold'] };
    const files = { ...onDisk, [stateLockPath]: JSON.stringify(lock) };
    expect(statelyCheck({ definitions, findMigration }, files).filter((p) => p.code === 'STATE_REMOVED')).toEqual([
      {
        code: 'STATE_REMOVED',
        message:
          'support@2 lost its state beforeAction.legacyHold: a released version is frozen; register a new version with a migration instead',
      },
    ]);
    // A draft (loan@1, the latest loan, not released) is edited freely: a state it lost is no fault.
    const asLocked = JSON.parse(onDisk[stateLockPath] ?? '{}') as Record<string, LockedVersion>;
    const draft = asLocked['loan@1'] as LockedVersion;
    expect(draft.released).toBeUndefined();
    const edited = { ...asLocked, 'loan@1': { ...draft, states: [...draft.states, 'retiredStep'] } };
    const draftFiles = { ...onDisk, [stateLockPath]: JSON.stringify(edited) };
    expect(statelyCheck({ definitions, findMigration }, draftFiles).filter((p) => p.code === 'STATE_REMOVED')).toEqual(
      [],
    );

    // support@1 has a state support@2 lacks: fine with the registered migration, a fault without one.
    const v1 = {
      ...withoutPins(supportV1),
      machine: mutant((config) =>
        patchAt(config, ['states'], (states) => ({ ...states, legacyHold: { type: 'final', description: 'Old.' } })),
      ).machine,
    };
    const registry = new Map<string, WorkflowDefinition>([...definitions, ['support@1', v1]]);
    const fresh = Object.fromEntries(statelyFiles({ definitions: registry }).map((f) => [f.path, f.content]));
    expect(statelyCheck({ definitions: registry, findMigration }, fresh)).toEqual([]);
    expect(statelyCheck({ definitions: registry, findMigration: () => undefined }, fresh)).toEqual([
      {
        code: 'STATE_REMOVED',
        message: 'support@2 drops legacyHold of support@1 and no migration support@1 → support@2 is registered',
      },
    ]);
    expect(supportV2.version).toBe(2);
  });
});

describe('warden stately check on a released latest version', () => {
  it('holds its implementations to the pins its release wrote: a guard changed is named', async () => {
    const lines: string[] = [];
    const v2 = supportV2 as WorkflowDefinition;
    const versions = new Map(workflowRegistry.versions).set('support@2', {
      ...v2,
      machine: v2.machine.provide({ guards: { approvalIsCurrentAndAuthorized: () => false } }),
    });
    const changedGuard = { ...workflowRegistry, versions, resolve: (key: string) => versions.get(key) };
    expect(await stately(changedGuard, 'check', (line) => lines.push(line))).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(
        /^IMPLEMENTATION_CHANGED: support@2: the guard approvalIsCurrentAndAuthorized is not the one support@2 was released with/,
      ),
    ]);
    expect(await stately(workflowRegistry, 'check', () => undefined)).toBe(0);
  });
});
