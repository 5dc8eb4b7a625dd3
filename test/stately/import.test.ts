/**
 * `warden stately import` on code written the way the Stately editor exports XState v5 (fixtures in
 * `fixtures/`, kept as `.ts.txt` so the compiler and linters leave the editor's text as it is): the
 * config of a copy of the support machine file is replaced and nothing else, names setup() lacks
 * are listed, a construct that is not plain data is refused with its location, and an unchanged
 * export round-trips to the same file with the check passing.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyStateMachine } from 'xstate';
import { afterAll, describe, expect, it } from 'vitest';
import { registry as workflowRegistry } from '../../machines/index.ts';
import { supportV2 } from '../../machines/support/index.ts';
import { statelyFilesOnDisk } from '../../src/cli/stately.ts';
import { statelyImport } from '../../src/cli/stately-import.ts';
import { serialisableConfig } from '../../src/definitions/describe.ts';
import { findChart } from '../../src/definitions/machine-file.ts';
import { stateLockPath } from '../../src/definitions/stately.ts';
import { patchAt } from '../model/mutants.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const machineFile = join(root, 'machines/support/support.machine.ts');
const fixture = (name: string) => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'warden-stately-import-'));
const temporaries: string[] = [];

afterAll(() => {
  for (const path of temporaries) rmSync(path, { force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** A copy of a machine file beside it, so its relative imports resolve; removed after the tests. */
function machineFileCopy(original = machineFile): string {
  const path = original.replace(/\.machine\.ts$/, `.import-${process.pid}-${temporaries.length}.tmp.ts`);
  copyFileSync(original, path);
  temporaries.push(path);
  return path;
}

const loaded = new Map<string, AnyStateMachine>();

async function importInto(target: string, exportFile: string, definition?: string) {
  const lines: string[] = [];
  // The registered support@2 is the one the target file makes, as a command run after editing it would see.
  const module = (await import(`${target}?${Date.now()}`)) as { supportMachine?: AnyStateMachine };
  const definitions = new Map(workflowRegistry.versions);
  if (module.supportMachine) definitions.set('support@2', { ...supportV2, machine: module.supportMachine });
  const code = await statelyImport({
    exportFile,
    ...(definition ? { definition } : {}),
    definitions,
    findMigration: workflowRegistry.migration,
    machineFile: target,
    root,
    files: asDraft(statelyFilesOnDisk(workflowRegistry)),
    load: async (path) => {
      const module = (await import(path)) as Record<string, unknown>;
      loaded.set(path, module.supportMachine as AnyStateMachine);
      return module;
    },
    print: (line) => lines.push(line),
  });
  return { code, lines };
}

/** The support machine file with names declared in its kit's setup(): `{ guards: 'name: () => true' }`. */
function declared(source: string, names: Partial<Record<'guards' | 'updates' | 'delays', string>>): string {
  let text = source;
  for (const [block, entry] of Object.entries(names)) {
    // A block written in place (`delays: {`), or one imported and named (`guards,`).
    text = text.includes(`\n  ${block}: {\n`)
      ? text.replace(`\n  ${block}: {\n`, `\n  ${block}: {\n    ${entry},\n`)
      : text.replace(`\n  ${block},\n`, `\n  ${block}: { ...${block}, ${entry} },\n`);
  }
  return text;
}

/** The committed files with support@2 a draft again (it is released): the import edits a copy of it. */
function asDraft(files: Record<string, string | null>): Record<string, string | null> {
  const lock = files[stateLockPath] ?? '';
  return { ...files, [stateLockPath]: lock.replace(/("support@2": \{[^}]*?\])(,\n\s*"released": true)/, '$1') };
}

/** The text before and after the config literal of a machine file. */
function aroundTheConfig(source: string, fileName: string): [string, string] {
  const { literal, file } = findChart(source, fileName);
  return [source.slice(0, literal.getStart(file)), source.slice(literal.end)];
}

type Config = Record<string, unknown>;
const supportConfig = () => serialisableConfig(supportV2.machine) as Config;

describe('warden stately import', () => {
  it('writes nothing while the export names what setup() lacks; once the file declares it, replaces only the config', async () => {
    const target = machineFileCopy();
    const before = readFileSync(target, 'utf8');
    const refused = await importInto(target, fixture('support-create-machine.export.ts.txt'));
    expect(refused.code).toBe(1);
    expect(readFileSync(target, 'utf8')).toBe(before);
    expect(refused.lines).toContain(
      `needs an implementation: the guard requestIsComplete (states.beforeAction.states.requestReceived.on.START); add it to setup() in ${target}`,
    );
    expect(refused.lines.some((l) => l.startsWith("ignored: the export's guards requestIsComplete"))).toBe(true);
    expect(refused.lines).toContain('chart diff support@2 → support@2 (imported): 1 transition changed');
    expect(refused.lines.at(-1)).toBe(
      `not written: ${target} is unchanged; make the changes above in it, then import the export again`,
    );

    writeFileSync(target, declared(before, { guards: 'requestIsComplete: () => true' }));
    const { code, lines } = await importInto(target, fixture('support-create-machine.export.ts.txt'));
    const after = readFileSync(target, 'utf8');
    expect(lines.filter((l) => l.startsWith('needs'))).toEqual([]);
    expect(lines).toContain(`wrote ${target} (the config of support@2)`);
    expect(code).toBe(0);
    expect(aroundTheConfig(after, target)).toEqual(
      aroundTheConfig(declared(before, { guards: 'requestIsComplete: () => true' }), target),
    );
    expect(after).toContain('context: (input: SupportInput): SupportContext => supportContext(input),');
    expect(after).toContain('/** @xstate-layout N4Ig');
    // The chart is the support chart with that one edit.
    const edited = patchAt(
      supportConfig(),
      ['states', 'beforeAction', 'states', 'requestReceived', 'on', 'START'],
      (start) => ({ ...start, guard: 'requestIsComplete' }),
    );
    expect(serialisableConfig(loaded.get(target) as AnyStateMachine)).toEqual(edited);
  });

  it('imports a setup(...).createMachine(config) export and keeps the file’s setup and context', async () => {
    const target = machineFileCopy();
    const before = readFileSync(target, 'utf8');
    const refused = await importInto(target, fixture('support-setup.export.ts.txt'));
    expect(refused.code).toBe(1);
    expect(readFileSync(target, 'utf8')).toBe(before);
    expect(refused.lines.filter((l) => l.startsWith('needs an implementation'))).toEqual([
      `needs an implementation: the delay customerReplyWindow (states.manualReview.after); add it to setup() in ${target}`,
      `needs an implementation: the action recordCustomerSilence (states.manualReview.after.customerReplyWindow.actions); add it to setup() in ${target}`,
    ]);
    // What the import would change, the new route to a final state flagged, said before the refusal.
    expect(refused.lines).toContain(
      'chart diff support@2 → support@2 (imported): 1 transition added, 1 authority change',
    );
    expect(refused.lines).toContain(
      '  ! NEW_ROUTE_TO_FINAL cancelled is reached by a new route: manualReview —after customerReplyWindow→ cancelled',
    );

    const withNames = declared(before, {
      updates: 'recordCustomerSilence: () => ({})',
      delays: 'customerReplyWindow: () => 60_000',
    });
    writeFileSync(target, withNames);
    const { code, lines } = await importInto(target, fixture('support-setup.export.ts.txt'));
    const after = readFileSync(target, 'utf8');
    expect(lines.filter((l) => l.startsWith('needs'))).toEqual([]);
    expect(code).toBe(0);
    expect(aroundTheConfig(after, target)).toEqual(aroundTheConfig(withNames, target));
    expect(after).toContain('context: (input: SupportInput): SupportContext => supportContext(input),');
    expect(after).not.toContain('types:\n');
    const edited = patchAt(supportConfig(), ['states', 'manualReview'], (state) => ({
      ...state,
      after: {
        ...(state.after as Config),
        customerReplyWindow: { target: '#support.cancelled', actions: 'recordCustomerSilence' },
      },
    }));
    expect(serialisableConfig(loaded.get(target) as AnyStateMachine)).toEqual(edited);
  });

  it('refuses a function call inside the config, naming its location, and leaves the machine file untouched', async () => {
    const target = machineFileCopy();
    const before = readFileSync(target, 'utf8');
    const exportFile = join(scratch, 'with-assign.ts');
    writeFileSync(
      exportFile,
      [
        'import { assign, createMachine } from "xstate";',
        '',
        'export const machine = createMachine({',
        '  "id": "support",',
        '  "initial": "completed",',
        '  "states": {',
        '    "completed": { "type": "final", "entry": assign({ "count": 1 }) }',
        '  }',
        '});',
        '',
      ].join('\n'),
    );
    await expect(importInto(target, exportFile)).rejects.toThrow(
      `${exportFile}:7:46: states.completed.entry is a function call (assign(...)); only strings, numbers, booleans, null, arrays and objects can be imported (name an implementation and implement it in setup())`,
    );
    expect(readFileSync(target, 'utf8')).toBe(before);
  });

  it.each([
    ['support', 'machines/support/support.machine.ts'],
    ['agent-task', 'machines/agent-task/agent-task.machine.ts'],
  ])(
    'round-trips an unchanged export of %s: gen → import → check passes and the file is the same',
    async (id, file) => {
      const target = machineFileCopy(join(root, file));
      const before = readFileSync(target, 'utf8');
      // What `stately gen` wrote, as the editor's createMachine(config, implementations) export; the
      // definition is found by the chart's id (agentTask for agent-task).
      const generated = readFileSync(join(root, `stately/${id}.machine.json`), 'utf8');
      const exportFile = join(scratch, `unchanged-${id}.ts`);
      writeFileSync(
        exportFile,
        `import { createMachine } from "xstate";\n\nexport const machine = createMachine(${generated.trim()}, {\n  actions: {},\n  actors: {},\n  guards: {},\n  delays: {},\n});\n`,
      );
      const { code, lines } = await importInto(target, exportFile);

      expect(lines).toEqual([
        `${target}: the chart is unchanged`,
        'stately: the generated files are current and the round trip is safe',
      ]);
      expect(code).toBe(0);
      expect(readFileSync(target, 'utf8')).toBe(before);
    },
  );

  it('refuses an edit of a released version (agent-task@1): a new state, ESCALATE rewired to it without its guard', async () => {
    const target = machineFileCopy(join(root, 'machines/agent-task/agent-task.machine.ts'));
    const before = readFileSync(target, 'utf8');
    const generated = JSON.parse(readFileSync(join(root, 'stately/agent-task.machine.json'), 'utf8')) as Config;
    const withState = patchAt(generated, ['states'], (states) => ({ ...states, triage: { type: 'final' } }));
    const edited = patchAt(withState, ['states', 'awaitingApproval', 'on', 'ESCALATE'], () => ({ target: 'triage' }));
    const exportFile = join(scratch, 'agent-task-escalate.ts');
    writeFileSync(exportFile, `createMachine(${JSON.stringify(edited)});\n`);
    const { code, lines } = await importInto(target, exportFile);
    expect(code).toBe(1);
    expect(readFileSync(target, 'utf8')).toBe(before);
    // What it would change, the authority change named, then why nothing is written.
    expect(lines.some((l) => l.includes('GUARD_REMOVED') && l.includes('ESCALATE'))).toBe(true);
    expect(lines.at(-1)).toBe(
      'not written: agent-task@1 is released (stately/states.lock.json): its chart is what workflows running on it do, so it does not change in place; start the next version with `warden version new agent-task` and make the change there, then import again',
    );
  });

  it('refuses an export whose machine is not a registered definition', async () => {
    const exportFile = join(scratch, 'other.ts');
    writeFileSync(exportFile, 'createMachine({ "id": "billing", "initial": "a", "states": { "a": {} } });\n');
    await expect(importInto(machineFileCopy(), exportFile)).rejects.toThrow(
      `no definition billing is registered (registered: ${workflowRegistry.bundles.map((b) => b.id).join(', ')}); name one with --definition <id>`,
    );
  });
});
