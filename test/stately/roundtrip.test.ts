/**
 * The machine file as the Stately editor writes code back — double quotes, lines reflowed to its
 * width, an `@xstate-layout` comment before the config — still loads, describes the same chart and
 * passes the check. This covers the formatting the editor changes; changes to the chart itself
 * (a dropped `params`, reordered guarded transitions) are caught by the check's other rules, the
 * transition table and the generated path suite, not here.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import type { AnyStateMachine } from 'xstate';
import { afterAll, describe, expect, it } from 'vitest';
import { registry as workflowRegistry } from '../../machines/index.ts';

const definitions = workflowRegistry.versions;
const findMigration = workflowRegistry.migration;
import { supportV2 } from '../../machines/support/index.ts';
import { statelyFilesOnDisk } from '../../src/cli/stately.ts';
import { serialisableConfig } from '../../src/definitions/describe.ts';
import { statelyCheck } from '../../src/definitions/stately.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';

const machineFile = fileURLToPath(new URL('../../machines/support/support.machine.ts', import.meta.url));
// Beside the original, so its relative imports resolve; removed after the test.
const editedFile = fileURLToPath(new URL('../../machines/support/support.editor-roundtrip.tmp.ts', import.meta.url));
const layout =
  '/** @xstate-layout N4IgpgJg5mDOIC5QAoC2BDAxgCwJYDswBKAOl0QHsAnAWwGIAVAeQHEOBZAUQG0AGAXUSgADhVi4ALrgoA7YSAAeiALQBGAOwAmMjs0BOAMx6ArAF8T5tFlz4ipCtTqNmbANKCR4yTLkKlaprafgbGpoEWVqgY2HiExGSU1DRwAMoAcgCiAIIAMpk5Fo4A6gASXJISAE6ZABKZAOK5AOpcAMqZQrlC9Ulwq5AA */';

afterAll(() => {
  rmSync(editedFile, { force: true });
});

/** Rewrites the machine file the way the editor does. */
async function asTheEditorWritesIt(source: string): Promise<string> {
  const reflowed = await prettier.format(source, {
    parser: 'typescript',
    singleQuote: false,
    printWidth: 80,
    trailingComma: 'all',
  });
  const marked = reflowed.replace('.createMachine({', `.createMachine(\n  ${layout}\n  {`);
  if (marked === reflowed) throw new Error('no createMachine({ in the machine file');
  return marked;
}

describe('the Stately editor round trip', () => {
  it('keeps the chart and passes the check when the file comes back reformatted', async () => {
    const original = readFileSync(machineFile, 'utf8');
    const edited = await asTheEditorWritesIt(original);
    expect(edited).toContain('@xstate-layout');
    expect(edited).toContain('"#support.manualReview"');
    expect(edited).not.toEqual(original);
    writeFileSync(editedFile, edited);

    const { supportMachine } = (await import(editedFile)) as { supportMachine: AnyStateMachine };
    expect(serialisableConfig(supportMachine)).toEqual(serialisableConfig(supportV2.machine));
    const registry = new Map<string, WorkflowDefinition>([
      ...definitions,
      ['support@2', { ...supportV2, machine: supportMachine }],
    ]);
    expect(statelyCheck({ definitions: registry, findMigration }, statelyFilesOnDisk(workflowRegistry))).toEqual([]);
  });
});
