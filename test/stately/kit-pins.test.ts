/**
 * Pins of a workflow written with the authoring kit: the kit wraps the author's guards, updates and
 * effects in closures of its own, so their pins are taken from the author's TypeScript source (the
 * declaration in `setup({...})`, found with the compiler API), not from what XState holds. A change
 * of a guard's body is reported by the Stately check, a change of its formatting is not, and the pins
 * are the same under vite (these tests) as under tsx (the CLI). The workflow is a copy of the kit
 * stamp (test/platform/kit-stamp.ts) in a folder under the system's temporary folder, edited there.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { registry as workflowRegistry } from '../../machines/index.ts';
import { stately } from '../../src/cli/stately.ts';
import { authoredOrigin } from '../../src/definitions/authored-source.ts';
import { implementationsOf } from '../../src/definitions/chart-references.ts';
import { changedImplementations, implementationPins, type ImplementationPins } from '../../src/definitions/pins.ts';
import {
  loadReleasedParts,
  releasedPartsOf,
  type ReleasableParts,
  type ReleasedParts,
} from '../../src/definitions/released-parts.ts';
import { loadReleasedMachine, releaseFiles } from '../../src/definitions/released-version.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import { statelyCheck, statelyFiles } from '../../src/definitions/stately.ts';
import { typescriptSourceOf } from '../../src/definitions/source-fingerprint.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import type { kitStampWorkflow } from '../platform/kit-stamp.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const original = readFileSync(join(root, 'test/platform/kit-stamp.ts'), 'utf8').replaceAll(
  "'../../src/authoring/index.ts'",
  `'${join(root, 'src/authoring/index.ts')}'`,
);
const guardLine = '  guards: { notTheRequester: ({ context, event }) => event.actor.id !== context.requesterId },\n';
expect(original).toContain(guardLine);

const scratch = mkdtempSync(join(tmpdir(), 'warden-kit-pins-'));
symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'), 'dir');
// An ES module as the repository's are, for tsx too.
writeFileSync(join(scratch, 'package.json'), '{ "type": "module" }\n');
afterAll(() => {
  rmSync(join(scratch, 'node_modules'));
  rmSync(scratch, { recursive: true, force: true });
});
const machineFile = join(scratch, 'kstamp.machine.ts');

type Module = { kitStampWorkflow: typeof kitStampWorkflow };
let loads = 0;
/** The stamp workflow from the machine file with `text`, loaded afresh (the file stays where it is). */
async function loadWith(text: string): Promise<WorkflowDefinition> {
  writeFileSync(machineFile, text);
  const module = (await import(`${machineFile}?load=${loads++}`)) as Module;
  const definition = createRegistry([module.kitStampWorkflow()]).resolve('kstamp@1');
  if (!definition) throw new Error('kstamp@1 is not registered');
  return definition;
}

type Release = { config: string; pins: string; parts: ReleasedParts };
/** The release files of the stamp workflow as `text` has it. */
async function releaseOf(text: string): Promise<Release> {
  const definition = await loadWith(text);
  return { ...releaseFiles(definition.machine), parts: releasedPartsOf(definition) };
}

/** kstamp@1 as released with `files`, running on the implementations and code of `current`. */
function releasedOn(current: WorkflowDefinition, files: Release): WorkflowDefinition {
  const context = current.machine.config.context as (args: { input: never }) => unknown;
  return {
    ...current,
    ...loadReleasedParts({ key: 'kstamp@1', parts: files.parts, code: current }),
    ...loadReleasedMachine({
      key: 'kstamp@1',
      config: JSON.parse(files.config),
      implementations: implementationsOf(current.machine),
      context,
      pins: JSON.parse(files.pins),
    }),
  };
}

/** The Stately check of the registry holding only `definition` (its generated files current). */
function check(definition: WorkflowDefinition) {
  const definitions = new Map([['kstamp@1', definition]]);
  const files = Object.fromEntries(statelyFiles({ definitions }).map((f) => [f.path, f.content]));
  return statelyCheck({ definitions, findMigration: () => undefined }, files);
}

describe('the pins of a kit workflow', () => {
  it('pin the author’s declarations from their TypeScript source, and the kit’s own names as before', async () => {
    const stamp = await loadWith(original);
    const pins = implementationPins(stamp.machine);
    expect(pins.guards.notTheRequester).toMatch(/^ts:sha256:[0-9a-f]{64}$/);
    expect(pins.actions.stamp).toMatch(/^ts:sha256:/);
    expect(pins.actions.recordStamp).toMatch(/^ts:sha256:/);
    expect(pins.guards.canRetry).toMatch(/^sha256:/);
    expect(pins.delays.backoff).toMatch(/^sha256:/);
    expect(authoredOrigin(implementationsOf(stamp.machine).guards?.notTheRequester)).toMatchObject({
      module: machineFile,
      section: 'guards',
      name: 'notTheRequester',
    });
  });

  it('makes the check fail with IMPLEMENTATION_CHANGED naming a guard whose body changed', async () => {
    const files = await releaseOf(original);
    const changed = await loadWith(
      original.replace(guardLine, guardLine.replace('event.actor.id !== context.requesterId', 'event.actor.id !== ""')),
    );
    const problems = check(releasedOn(changed, files));
    expect(problems.map((p) => p.code)).toEqual(['IMPLEMENTATION_CHANGED']);
    expect(problems[0]?.message).toMatch(
      /^kstamp@1: the guard notTheRequester is not the one kstamp@1 was released with \(pinned ts:sha256:[0-9a-f]{12}, now ts:sha256:[0-9a-f]{12}\); keep the released implementation/,
    );
    // An update and an effect too: the business logic the kit wraps.
    const update = await loadWith(
      original.replace('{ signedBy: event.actor.id }', '{ signedBy: event.actor.tenantId }'),
    );
    expect(check(releasedOn(update, files)).map((p) => p.message.split(' is not')[0])).toEqual([
      'kstamp@1: the action recordSignOff',
    ]);
    const effect = await loadWith(original.replace('retry: { maxAttempts: 3 }', 'retry: { maxAttempts: 5 }'));
    expect(check(releasedOn(effect, files)).map((p) => p.message.split(' is not')[0])).toEqual([
      'kstamp@1: the action stamp',
    ]);
    // An effect's job parameters: its action's pin, and the parts' pin of its builder (the author's `params`).
    const params = await loadWith(original.replace('({ document: c.document })', '({ document: c.document.trim() })'));
    expect(check(releasedOn(params, files)).map((p) => [p.code, p.message.split(' is not')[0]])).toEqual([
      ['IMPLEMENTATION_CHANGED', 'kstamp@1: the action stamp'],
      ['DEFINITION_CHANGED', 'kstamp@1: the job-parameter builder of the effect stamp'],
    ]);
    expect(files.parts.effects.stamp?.params).toMatch(/^ts:sha256:/);
  });

  it('makes `warden stately check` exit 1 naming the guard, and pass once the released guard is back', async () => {
    const files = await releaseOf(original);
    const registryWith = async (text: string) => {
      writeFileSync(machineFile, text);
      const bundle = ((await import(`${machineFile}?load=${loads++}`)) as Module).kitStampWorkflow();
      return createRegistry([{ ...bundle, versions: [releasedOn(bundle.latest, files)] }]);
    };
    const project = { root: scratch };
    const command = async (action: string, text: string) => {
      const lines: string[] = [];
      const code = await stately(await registryWith(text), action, (line) => lines.push(line), undefined, { project });
      return { code, lines };
    };
    expect((await command('gen', original)).code).toBe(0);
    const changed = await command('check', original.replace('event.actor.id !== context.requesterId', 'true'));
    expect(changed.code).toBe(1);
    expect(changed.lines).toEqual([
      expect.stringMatching(/^IMPLEMENTATION_CHANGED: kstamp@1: the guard notTheRequester /),
    ]);
    expect(await command('check', original)).toEqual({
      code: 0,
      lines: ['stately: the generated files are current and the round trip is safe'],
    });
  });

  it('does not report a change of formatting or comments only', async () => {
    const files = await releaseOf(original);
    const reformatted = original
      .replace(
        guardLine,
        [
          '  guards: {',
          '    // Another person than the requester signs it off.',
          '    notTheRequester: (',
          '      { context, event, },',
          '    ) =>',
          '      /* the actor */ (event.actor.id) !==',
          '        context.requesterId,',
          '  },',
          '',
        ].join('\n'),
      )
      .replace("(event.type === 'STAMPED' ?", '(event.type === "STAMPED" ?');
    expect(reformatted).not.toBe(original);
    const stamp = await loadWith(reformatted);
    expect(check(releasedOn(stamp, files))).toEqual([]);
    expect(implementationPins(stamp.machine)).toEqual(JSON.parse(files.pins) as ImplementationPins);
    expect(releasedPartsOf(stamp)).toEqual(files.parts);
  });

  it('are the same under tsx as under vite, for the copy and for every registered workflow', async () => {
    await loadWith(original);
    const probe = `
const { implementationPins } = await import(${JSON.stringify(pathToFileURL(join(root, 'src/definitions/pins.ts')).href)});
const { registry } = await import(${JSON.stringify(pathToFileURL(join(root, 'machines/index.ts')).href)});
const { kitStampWorkflow } = await import(${JSON.stringify(pathToFileURL(machineFile).href)});
const pins = Object.fromEntries([...registry.versions].map(([key, d]) => [key, implementationPins(d.machine)]));
const { releasedPartsOf } = await import(${JSON.stringify(pathToFileURL(join(root, 'src/definitions/released-parts.ts')).href)});
pins.copy = implementationPins(kitStampWorkflow().latest.machine);
pins.parts = releasedPartsOf(kitStampWorkflow().latest);
pins.loanParts = releasedPartsOf(registry.resolve('loan@1'));
console.log(JSON.stringify(pins));
`;
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], {
      cwd: root,
    });
    expect(stderr).toBe('');
    const here: Record<string, ImplementationPins | ReleasedParts> = Object.fromEntries(
      [...workflowRegistry.versions].map(([key, d]) => [key, implementationPins(d.machine)]),
    );
    const copy = await loadWith(original);
    here.copy = implementationPins(copy.machine);
    here.parts = releasedPartsOf(copy);
    const loan = workflowRegistry.resolve('loan@1');
    if (loan) here.loanParts = releasedPartsOf(loan);
    expect(JSON.parse(stdout)).toEqual(here);
    expect((here['loan@1'] as ImplementationPins | undefined)?.guards.mayApprove).toMatch(/^ts:sha256:/);
  });

  it('cannot be taken nor checked without the TypeScript source: the check says so instead of passing', async () => {
    const stamp = await loadWith(original);
    const files = await releaseOf(original);
    const released = releasedOn(stamp, files);
    rmSync(machineFile);
    const problems = changedImplementations(released.machine, JSON.parse(files.pins) as ImplementationPins, 'kstamp@1');
    expect(new Set(problems.map((p) => p.code))).toEqual(new Set(['IMPLEMENTATION_UNVERIFIABLE']));
    expect(problems.find((p) => p.message.includes('guard notTheRequester'))?.message).toContain(
      'is pinned from its TypeScript source, which cannot be read here',
    );
    expect(() => releaseFiles(stamp.machine)).toThrow(/its TypeScript source is not here/);
    expect(check(released).map((p) => p.code)).toContain('IMPLEMENTATION_UNVERIFIABLE');
    expect(check(released).at(-1)?.message).toMatch(/^kstamp@1: its parts are pinned from TypeScript source/);
  });

  it('follow a spec given by name and a guard imported from another module, in a file with two kits', async () => {
    const kitFile = join(scratch, 'two.machine.ts');
    const checksFile = join(scratch, 'checks.ts');
    writeFileSync(
      kitFile,
      [
        "import { z } from 'zod';",
        `import { event, setup } from '${join(root, 'src/authoring/index.ts')}';`,
        "import { mayGo } from './checks.ts';",
        'const spec = {',
        '  input: z.strictObject({}),',
        '  context: () => ({ n: 0 }),',
        "  events: { GO: event({}, { roles: ['r'] }) },",
        '  guards: { mayGo },',
        '  delays: { later: () => 1_000 },',
        '};',
        'export const first = setup(spec);',
        'export const second = setup({ input: z.strictObject({}), context: () => ({}), events: {}, guards: { other: () => true } });',
        "export const machine = first.createMachine({ id: 'two', initial: 'a', states: { a: { on: { GO: { guard: 'mayGo', target: 'b' } }, after: { later: 'b' } }, b: {} } });",
        '',
      ].join('\n'),
    );
    const pinsWith = async (checks: string) => {
      writeFileSync(checksFile, checks);
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0; // the kit reads its caller whatever the limit
      try {
        const module = (await import(`${kitFile}?load=${loads++}`)) as {
          machine: Parameters<typeof implementationPins>[0];
        };
        return implementationPins(module.machine);
      } finally {
        Error.stackTraceLimit = limit;
      }
    };
    const released = await pinsWith("export const mayGo = ({ event }) => event.type === 'GO';\n");
    expect(released.guards.mayGo).toMatch(/^ts:sha256:/);
    expect(released.delays.later).toMatch(/^ts:sha256:/);
    expect(await pinsWith('// reformatted\nexport const mayGo = ({ event, }) =>\n  event.type === "GO"\n')).toEqual(
      released,
    );
    const changed = await pinsWith("export const mayGo = ({ event }) => event.type !== 'GO';\n");
    expect(changed.guards.mayGo).not.toBe(released.guards.mayGo);
    expect(changed.delays).toEqual(released.delays);
  });

  it('follow a section given by name, declared in another module with `satisfies`', async () => {
    const kitFile = join(scratch, 'typed.machine.ts');
    const updatesFile = join(scratch, 'updates.ts');
    writeFileSync(
      kitFile,
      [
        "import { z } from 'zod';",
        `import { event, setup } from '${join(root, 'src/authoring/index.ts')}';`,
        "import { updates } from './updates.ts';",
        "const kit = setup({ input: z.strictObject({}), context: () => ({ n: 0 }), events: { GO: event({}, { roles: ['r'] }) }, updates });",
        "export const machine = kit.createMachine({ id: 'typed', initial: 'a', states: { a: { on: { GO: { actions: 'count' } } } } });",
        '',
      ].join('\n'),
    );
    const pinsWith = async (text: string) => {
      writeFileSync(updatesFile, text);
      const module = (await import(`${kitFile}?load=${loads++}`)) as {
        machine: Parameters<typeof implementationPins>[0];
      };
      return implementationPins(module.machine);
    };
    const typed = (body: string) =>
      `export const updates = { count: ({ context }: { context: { n: number } }) => (${body}) } satisfies Record<string, unknown>;\n`;
    const released = await pinsWith(typed('{ n: context.n + 1 }'));
    expect(released.actions.count).toMatch(/^ts:sha256:/);
    expect((await pinsWith(typed('{ n: context.n - 1 }'))).actions.count).not.toBe(released.actions.count);
  });

  it('find the source of a built module through its source map', () => {
    mkdirSync(join(scratch, 'build'));
    mkdirSync(join(scratch, 'src'));
    writeFileSync(join(scratch, 'src/m.ts'), 'export {};\n');
    writeFileSync(join(scratch, 'build/m.js.map'), JSON.stringify({ sources: ['../src/m.ts'] }));
    expect(typescriptSourceOf(join(scratch, 'build/m.js'))).toBe(join(scratch, 'src/m.ts'));
    expect(typescriptSourceOf(join(scratch, 'build/gone.js'))).toBeUndefined();
    expect(typescriptSourceOf(join(scratch, 'src/gone.ts'))).toBeUndefined();
  });
});

describe('the pins of an effect a helper makes', () => {
  it('are taken from the call that made it: agent-task’s ledger effects, destructured from ledgerEffects({...})', () => {
    const parts = releasedPartsOf(workflowRegistry.resolve('agent-task@1') as WorkflowDefinition & ReleasableParts);
    const ledger = ['executeOperation', 'reconcileOperation', 'voidOperation'].map(
      (name) => parts.effects[name]?.params,
    );
    expect(ledger.every((pin) => pin?.startsWith('ts:sha256:'))).toBe(true);
    // One call made all three: it is their source.
    expect(new Set(ledger).size).toBe(1);
  });
});
