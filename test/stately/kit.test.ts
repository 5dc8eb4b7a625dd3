/**
 * The Stately commands on charts made with the authoring kit (`kit.createMachine({...})`): the loan
 * workflow (machines/loan, registered here in a registry of this test only) and the kit stamp
 * (test/platform/kit-stamp.ts, whose chart is made in a function of its id). The chart is found in
 * its file, the generated files are written and pass the check, the check knows the names the kit
 * supplies and where they work, and an import replaces the config literal keeping the kit's setup.
 * Imports run on copies in a folder under the system's temporary folder.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyStateMachine } from 'xstate';
import { afterAll, describe, expect, it } from 'vitest';
import { loan } from '../../machines/loan/index.ts';
import { loanKit, loanMachine } from '../../machines/loan/loan.machine.ts';
import { kitFactsOf } from '../../src/cli/stately.ts';
import { statelyImport } from '../../src/cli/stately-import.ts';
import { serialisableConfig } from '../../src/definitions/describe.ts';
import { findChart } from '../../src/definitions/machine-file.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import { statelyCheck, statelyFiles, type Problem } from '../../src/definitions/stately.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { patchAt } from '../model/mutants.ts';
import { kitStampWorkflow } from '../platform/kit-stamp.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const loanFile = join(root, 'machines/loan/loan.machine.ts');
const stampFile = join(root, 'test/platform/kit-stamp.ts');
const registry = createRegistry([loan, kitStampWorkflow()]);
const { versions: definitions, migration: findMigration } = registry;
const generated = () => Object.fromEntries(statelyFiles({ definitions }).map((f) => [f.path, f.content]));

const scratch = mkdtempSync(join(tmpdir(), 'warden-stately-kit-'));
// The copies import zod as the originals do, and are formatted with the repository's options.
symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'), 'dir');
writeFileSync(join(scratch, '.prettierrc.json'), readFileSync(join(root, '.prettierrc.json')));
afterAll(() => {
  rmSync(join(scratch, 'node_modules'));
  rmSync(scratch, { recursive: true, force: true });
});

type Config = Record<string, unknown>;
/** The chart as the kit was given it: the config without the context the kit adds. */
const chartOf = (machine: AnyStateMachine): Config => {
  const { context: _context, ...chart } = serialisableConfig(machine) as Config;
  return chart;
};

/** A copy of a machine file in the scratch folder, its relative imports made absolute. */
let copies = 0;
function copyOf(original: string, imports: Record<string, string>): string {
  let text = readFileSync(original, 'utf8');
  for (const [from, to] of Object.entries(imports)) text = text.replaceAll(`'${from}'`, `'${join(root, to)}'`);
  const path = join(scratch, `copy-${copies++}.machine.ts`);
  writeFileSync(path, text);
  return path;
}
const loanCopy = () =>
  copyOf(loanFile, {
    '../../src/authoring/index.ts': 'src/authoring/index.ts',
    './loan.effects.ts': 'machines/loan/loan.effects.ts',
  });
const stampCopy = () => copyOf(stampFile, { '../../src/authoring/index.ts': 'src/authoring/index.ts' });

/** An export as the Stately editor writes it for XState v5: createMachine(config, placeholders). */
function exportOf(config: Config, name: string): string {
  const path = join(scratch, `${name}.export.ts`);
  writeFileSync(
    path,
    `import { createMachine } from "xstate";\n\nexport const machine = createMachine(${JSON.stringify({ ...config, context: {} }, null, 2)}, {\n  actions: {},\n  actors: {},\n  guards: { canRetry: function ({ context, event }) { return false; } },\n  delays: { backoff: 1000 },\n});\n`,
  );
  return path;
}

/** The text before and after the config literal of a machine file. */
function aroundTheConfig(path: string, id?: string): [string, string] {
  const source = readFileSync(path, 'utf8');
  const { literal, file } = findChart(source, path, id);
  return [source.slice(0, literal.getStart(file)), source.slice(literal.end)];
}

async function importInto(
  machineFile: string,
  exportFile: string,
  reload?: () => Promise<ReadonlyMap<string, WorkflowDefinition>>,
) {
  const lines: string[] = [];
  let machine: AnyStateMachine | undefined;
  const code = await statelyImport({
    exportFile,
    definitions,
    findMigration,
    machineFile,
    root: scratch,
    files: generated(),
    load: async (path) => {
      const module = (await import(path)) as Record<string, unknown>;
      machine = module.loanMachine as AnyStateMachine | undefined;
      return module;
    },
    ...(reload ? { reloadDefinitions: reload } : {}),
    kitFacts: kitFactsOf,
    print: (line) => lines.push(line),
  });
  return { code, lines, machine: () => machine };
}

/** The loan definition with its chart edited by `edit`, made by the loan's kit. */
function loanWith(edit: (chart: Config) => Config): WorkflowDefinition {
  const machine = loanKit.createMachine(edit(chartOf(loanMachine)) as never);
  return { ...(registry.resolve('loan@1') as WorkflowDefinition), machine };
}

function checkLoan(definition: WorkflowDefinition): Problem[] {
  const edited = new Map([...definitions, ['loan@1', definition]]);
  const files = Object.fromEntries(statelyFiles({ definitions: edited }).map((f) => [f.path, f.content]));
  return statelyCheck({ definitions: edited, findMigration, kitFacts: kitFactsOf }, files);
}

describe('stately on kit workflows', () => {
  it('finds the chart of a kit machine file: kit.createMachine and loanKit.createMachine', () => {
    const loanChart = findChart(readFileSync(loanFile, 'utf8'), loanFile);
    expect(loanChart.id).toBe('loan');
    expect(loanChart.literal.getText(loanChart.file)).toContain("initial: 'created'");
    // kit-stamp makes its chart in a function of the id: it is the file's chart whatever the id.
    const stampChart = findChart(readFileSync(stampFile, 'utf8'), stampFile, 'kstamp');
    expect(stampChart.id).toBeUndefined();
    expect(stampChart.literal.getText(stampChart.file)).toContain("entry: 'stamp'");
  });

  it('generates the machine JSON and mermaid of each, and the check passes on them', () => {
    const files = generated();
    expect(Object.keys(files).sort()).toEqual([
      'stately/kstamp.machine.json',
      'stately/kstamp.mmd',
      'stately/loan.machine.json',
      'stately/loan.mmd',
      'stately/states.lock.json',
    ]);
    expect(JSON.parse(files['stately/loan.machine.json'] ?? '{}')).toMatchObject({ id: 'loan', initial: 'created' });
    expect(files['stately/loan.mmd']).toContain('stateDiagram-v2');
    expect(statelyCheck({ definitions, findMigration, kitFacts: kitFactsOf }, files)).toEqual([]);
  });

  it('knows the kit’s names: the effects, canRetry, backoff and the job marker are not missing', () => {
    const facts = kitFactsOf(loanMachine);
    expect(facts).toEqual({
      supplied: {
        guards: ['canRetry', 'errorIsRetryable', 'answersTheJob'],
        delays: ['backoff'],
        actions: ['warden.job'],
      },
      effects: ['checkIdentity', 'checkCredit', 'draftMemo', 'disburse'],
      failureEvents: ['CREDIT_FAILED', 'DISBURSE_FAILED', 'IDENTITY_FAILED', 'MEMO_FAILED'],
    });
    expect(kitFactsOf(kitStampWorkflow('other').latest.machine)?.failureEvents).toEqual(['STAMP_FAILED']);
  });

  it('reports a kit name used where it does not work, and where a missing name is declared', () => {
    const problems = checkLoan(
      loanWith((chart) => {
        let edited = patchAt(chart, ['states', 'drafting', 'on', 'MEMO_DRAFTED'], (t) => ({
          ...t,
          actions: ['recordMemo', 'disburse'],
        }));
        edited = patchAt(edited, ['states', 'awaitingUnderwriter', 'on', 'APPROVED'], (t) => ({
          ...t,
          guard: 'canRetry',
        }));
        edited = patchAt(edited, ['states', 'awaitingUnderwriter', 'on', 'DECLINED'], (t) => ({
          ...t,
          guard: 'fastTrack',
          actions: ['warden.job', 'notifyApplicant'],
        }));
        return patchAt(edited, ['states', 'disburseWait'], () => ({ after: { coolOff: 'disbursing' } }));
      }),
    ).filter((p) => p.code !== 'STALE_FILE');
    expect(problems).toEqual([
      {
        code: 'KIT_REFERENCE',
        message:
          "loan@1: states.drafting.on.MEMO_DRAFTED.actions starts the effect disburse; the kit follows a job only from the entry of the state that waits for its result: entry: 'disburse'",
      },
      {
        code: 'KIT_REFERENCE',
        message:
          "loan@1: states.awaitingUnderwriter.on.APPROVED guards APPROVED with canRetry, which decides only on an effect's failure event (CREDIT_FAILED, DISBURSE_FAILED, IDENTITY_FAILED, MEMO_FAILED): there it is never true",
      },
      {
        code: 'MISSING_IMPLEMENTATION',
        message:
          "loan@1: states.awaitingUnderwriter.on.DECLINED names the guard fastTrack, which the kit's setup() does not implement; declare it in guards",
      },
      {
        code: 'KIT_REFERENCE',
        message:
          "loan@1: states.awaitingUnderwriter.on.DECLINED.actions names warden.job, the kit's own job marker; name the effect instead (entry: '<effect>')",
      },
      {
        code: 'MISSING_IMPLEMENTATION',
        message:
          "loan@1: states.awaitingUnderwriter.on.DECLINED.actions names the action notifyApplicant, which the kit's setup() does not implement; declare it in updates (an assign) or effects (a job)",
      },
      {
        code: 'UNDECLARED_DELAY',
        message:
          "loan@1: states.disburseWait.after names the delay coolOff, which the kit's setup() does not declare; XState would fire it at once: declare it in setup({ delays: { coolOff: () => <ms> } })",
      },
    ]);
  });

  it('round-trips an unchanged export of the loan: the file is the same and the check passes', async () => {
    const target = loanCopy();
    const before = readFileSync(target, 'utf8');
    const { code, lines } = await importInto(target, exportOf(chartOf(loanMachine), 'loan-unchanged'));
    expect(lines).toEqual([
      `ignored: the export's guards canRetry (placeholders); the kit's setup() in ${target} is kept`,
      `ignored: the export's delays backoff (placeholders); the kit's setup() in ${target} is kept`,
      `${target}: the chart is unchanged`,
      'stately: the generated files are current and the round trip is safe',
    ]);
    expect(code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe(before);
  });

  it('imports an edited loan chart: only the config literal changes, the kit setup stays; a name the kit lacks writes nothing', async () => {
    const target = loanCopy();
    const original = readFileSync(target, 'utf8');
    const before = aroundTheConfig(target);
    const lacking = patchAt(chartOf(loanMachine), ['states', 'awaitingUnderwriter'], (state) => ({
      ...state,
      on: { ...(state.on as Config), APPROVED: { guard: 'fastTrack', target: 'disbursing' } },
    }));
    const refused = await importInto(target, exportOf(lacking, 'loan-lacking'));
    expect(refused.code).toBe(1);
    expect(readFileSync(target, 'utf8')).toBe(original);
    expect(refused.lines).toContain(
      `needs a change in ${target}: loan@1: states.awaitingUnderwriter.on.APPROVED names the guard fastTrack, which the kit's setup() does not implement; declare it in guards`,
    );
    // The import's chart diff flags the underwriter's guard replaced; the missing name is said once.
    expect(refused.lines).toContain(
      '  ! GUARD_WEAKENED awaitingUnderwriter: APPROVED: the guard mayApprove became fastTrack: check it refuses all it did; APPROVED may be sent by underwriter',
    );
    expect(refused.lines.filter((l) => l.includes('fastTrack') && !l.startsWith('  '))).toHaveLength(1);
    expect(refused.lines.at(-1)).toBe(
      `not written: ${target} is unchanged; make the changes above in it, then import the export again`,
    );

    const edited = patchAt(chartOf(loanMachine), ['states', 'awaitingUnderwriter'], (state) => ({
      ...state,
      description: 'An underwriter decides.',
    }));
    const { code, lines, machine } = await importInto(target, exportOf(edited, 'loan-edited'));
    const after = readFileSync(target, 'utf8');

    expect(code).toBe(0);
    expect(aroundTheConfig(target)).toEqual(before);
    expect(after).toContain('export const loanKit = setup({');
    expect(after).toContain("export const loanMachine = loanKit.createMachine({\n  id: 'loan',");
    expect(after).not.toContain('context: {}');
    expect(lines.some((l) => l.startsWith('STALE_FILE: stately/loan.machine.json is stale'))).toBe(true);
    expect(chartOf(machine() as AnyStateMachine)).toEqual(edited);
  });

  it('imports into kit-stamp, whose chart a function of the id makes: the file keeps its id and the chart is read again from the workflow', async () => {
    const target = stampCopy();
    const before = aroundTheConfig(target, 'kstamp');
    const stamp = registry.resolve('kstamp') as WorkflowDefinition;
    const edited = patchAt(chartOf(stamp.machine), ['states', 'stuck'], (state) => ({
      ...state,
      description: 'A person takes it over.',
    }));
    let reloaded: AnyStateMachine | undefined;
    const reload = async () => {
      const module = (await import(target)) as { kitStampWorkflow: typeof kitStampWorkflow };
      const fresh = createRegistry([module.kitStampWorkflow()]);
      reloaded = fresh.resolve('kstamp')?.machine;
      return fresh.versions;
    };
    const { code, lines } = await importInto(target, exportOf(edited, 'kstamp-edited'), reload);
    const after = readFileSync(target, 'utf8');

    expect(aroundTheConfig(target, 'kstamp')).toEqual(before);
    expect(after).toContain('return kit.createMachine({\n    id,\n');
    expect(after).toContain("description: 'A person takes it over.'");
    expect(lines.filter((l) => !l.startsWith('ignored:')).map((l) => l.replace(/ \(first difference.*$/, ''))).toEqual([
      `wrote ${target} (the config of kstamp@1)`,
      'STALE_FILE: stately/kstamp.machine.json is stale',
      'STALE_FILE: stately/states.lock.json is stale',
      'stately: the round trip is safe; run npm run stately:gen and commit stately/',
    ]);
    expect(code).toBe(0);
    expect(chartOf(reloaded as AnyStateMachine)).toEqual(edited);
  });
});
