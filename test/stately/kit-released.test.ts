/**
 * A kit workflow's next version, on the documented change path (`warden release`, `warden version
 * new`, `released: [...]` in `workflow({...})`, then the edit in the one shared `setup()`): the
 * released version runs on the events, roles and effects of its release, not on every one the kit
 * declares now. An event added for the next version leaves it as released, so `warden stately
 * check` passes; a changed schema of an event it was released with is still reported.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { stately } from '../../src/cli/stately.ts';
import { changedParts } from '../../src/definitions/released-parts.ts';
import type { WorkflowRegistry } from '../../src/definitions/registry.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { kitStampProject, type Edit } from '../support/kit-stamp-release.ts';

const project = kitStampProject();
afterAll(() => {
  project.remove();
});

/** The next version's edit: an event a signer sends to have the document stamped again. */
const returned: Edit[] = [
  [
    "    SIGNED_OFF: event({ note: z.string().max(200).optional() }, { roles: ['signer'] }),\n",
    "    SIGNED_OFF: event({ note: z.string().max(200).optional() }, { roles: ['signer'] }),\n    RETURNED: event({ reason: z.string().min(1).max(500) }, { roles: ['signer'], label: 'Return' }),\n",
  ],
  [
    "SIGNED_OFF: { guard: 'notTheRequester', target: 'signed', actions: 'recordSignOff' } } },",
    "SIGNED_OFF: { guard: 'notTheRequester', target: 'signed', actions: 'recordSignOff' }, RETURNED: 'stamping' } },",
  ],
];

const resolve = (registry: WorkflowRegistry, key: string) => {
  const definition = registry.resolve(key);
  if (!definition) throw new Error(`${key} is not registered`);
  return definition;
};

const eventsOf = (definition: WorkflowDefinition) => Object.keys(definition.eventSchemas).sort();

/** `warden stately gen`, then `warden stately check`, in the project: the check's exit code and lines. */
async function genAndCheck(registry: WorkflowRegistry) {
  const options = { project: { root: project.dir } };
  const gen: string[] = [];
  expect(await stately(registry, 'gen', (line) => gen.push(line), undefined, options)).toBe(0);
  const lines: string[] = [];
  const code = await stately(registry, 'check', (line) => lines.push(line), undefined, options);
  return { code, lines };
}

describe('a kit workflow’s released version', () => {
  it('keeps the events of its release when the next version adds one: the check passes', async () => {
    const v1 = project.release(await project.load('v1', []));
    const next = await project.load('v2', returned, v1);
    const [released, draft] = [resolve(next, 'kstamp@1'), resolve(next, 'kstamp@2')];
    expect(eventsOf(released)).toEqual(['ESCALATE', 'SIGNED_OFF', 'STAMPED', 'STAMP_FAILED', 'START']);
    expect(Object.keys(released.eventRoles).sort()).toEqual(eventsOf(released));
    expect(eventsOf(draft)).toEqual(['ESCALATE', 'RETURNED', 'SIGNED_OFF', 'STAMPED', 'STAMP_FAILED', 'START']);
    expect(draft.eventRoles.RETURNED).toEqual(['signer']);
    expect(changedParts(released, 'kstamp@1')).toEqual([]);
    expect(await genAndCheck(next)).toEqual({
      code: 0,
      lines: ['stately: the generated files are current and the round trip is safe'],
    });
  });

  it('runs on the roles of its release: who may send an event changes for the next version only', async () => {
    const v1 = project.release(await project.load('v1-roles', []));
    const widened: Edit = [
      "SIGNED_OFF: event({ note: z.string().max(200).optional() }, { roles: ['signer'] }),",
      "SIGNED_OFF: event({ note: z.string().max(200).optional() }, { roles: ['signer', 'clerk'] }),",
    ];
    const next = await project.load('v2-roles', [widened], v1);
    expect(resolve(next, 'kstamp@1').eventRoles.SIGNED_OFF).toEqual(['signer']);
    expect(resolve(next, 'kstamp@2').eventRoles.SIGNED_OFF).toEqual(['signer', 'clerk']);
    expect((await genAndCheck(next)).code).toBe(0);
  });

  it('still reports a changed schema of an event it was released with, beside the added one', async () => {
    const v1 = project.release(await project.load('v1-schema', []));
    const shorter: Edit = ['note: z.string().max(200).optional()', 'note: z.string().max(100).optional()'];
    const next = await project.load('v2-schema', [...returned, shorter], v1);
    const { code, lines } = await genAndCheck(next);
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(
        /^DEFINITION_CHANGED: kstamp@1: the event schema of SIGNED_OFF is not the one kstamp@1 was released with \(pinned sha256:[0-9a-f]{12}, now sha256:[0-9a-f]{12}\); keep the released one for kstamp@1 \(give a later version's changed payload an event of a new name\)/,
      ),
    ]);
  });

  it('refuses to load when setup() no longer declares an event it was released with, saying what to keep', async () => {
    const v1 = project.release(await project.load('v1-gone', []));
    const noSignOff: Edit[] = [
      ["    SIGNED_OFF: event({ note: z.string().max(200).optional() }, { roles: ['signer'] }),\n", ''],
      [
        "awaitingSignOff: { on: { SIGNED_OFF: { guard: 'notTheRequester', target: 'signed', actions: 'recordSignOff' } } },",
        "awaitingSignOff: { after: { backoff: 'signed' } },",
      ],
    ];
    await expect(project.load('v2-gone', noSignOff, v1)).rejects.toThrow(
      'kstamp@1 was released with the event SIGNED_OFF, which setup() no longer declares: workflows running on kstamp@1 still take it, so keep it in setup() as it was released (the latest chart need not use it)',
    );
  });

  it('lets the next version stop taking an event and starting an effect: setup() keeps them for the released one', async () => {
    const v1 = project.release(await project.load('v1-drop', []));
    // kstamp@2 is signed without a stamp, and countersigned where kstamp@1 was signed off.
    const countersigned: Edit[] = [
      [
        '    ESCALATE: deadLetter(),\n',
        "    ESCALATE: deadLetter(),\n    COUNTERSIGNED: event({ note: z.string().min(1).max(100) }, { roles: ['signer'] }),\n",
      ],
      ["created: { on: { START: 'stamping' } },", "created: { on: { START: 'awaitingSignOff' } },"],
      [
        "      stamping: {\n        entry: 'stamp',\n        on: {\n          STAMPED: { target: 'awaitingSignOff', actions: 'recordStamp' },\n          STAMP_FAILED: [{ guard: 'canRetry', target: 'retryWait' }, { target: 'stuck' }],\n          ESCALATE: 'stuck',\n        },\n      },\n      retryWait: { after: { backoff: 'stamping' } },\n",
        '',
      ],
      [
        "awaitingSignOff: { on: { SIGNED_OFF: { guard: 'notTheRequester', target: 'signed', actions: 'recordSignOff' } } },",
        "awaitingSignOff: { on: { COUNTERSIGNED: { guard: 'notTheRequester', target: 'signed', actions: 'recordSignOff' } } },",
      ],
    ];
    // A workflow stamping or waiting to stamp again when it is moved is signed without its stamp.
    const migration: Edit = [
      "    queues: [{ state: 'awaitingSignOff', title: 'Awaiting sign-off' }],\n",
      "    queues: [{ state: 'awaitingSignOff', title: 'Awaiting sign-off' }],\n    migrations: [{ from: 'kstamp@1', to: 'kstamp@2', migrate: (s: { value: unknown }) => ({ ...s, value: s.value === 'stamping' || s.value === 'retryWait' ? 'awaitingSignOff' : s.value }) }],\n",
    ];
    const next = await project.load('v2-drop', [...countersigned, migration], v1);
    const [released, draft] = [resolve(next, 'kstamp@1'), resolve(next, 'kstamp@2')];
    expect(eventsOf(released)).toEqual(['ESCALATE', 'SIGNED_OFF', 'STAMPED', 'STAMP_FAILED', 'START']);
    expect(Object.keys(released.effects)).toEqual(['stamp']);
    expect(eventsOf(draft)).toContain('COUNTERSIGNED');
    expect(await genAndCheck(next)).toEqual({ code: 0, lines: [expect.any(String)] });
  });
});
