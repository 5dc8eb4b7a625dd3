/**
 * The kit stamp (test/platform/kit-stamp.ts) taken through a project's documented change path:
 * `warden release` writes version 1's files, `warden version new` turns them into data the next
 * version's `workflow({ released: [...] })` names, and the author edits the one shared `setup()`.
 * Each variant is a module of its own in a folder under the system's temporary folder (a kit's pins
 * are read from the TypeScript source on disk, so a variant's file must stay as it was loaded).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { releasedPartsOf } from '../../src/definitions/released-parts.ts';
import { releaseFiles } from '../../src/definitions/released-version.ts';
import { createRegistry, type WorkflowRegistry } from '../../src/definitions/registry.ts';
import type { kitStampWorkflow } from '../platform/kit-stamp.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The kit stamp's source, importing Warden's authoring kit by absolute path. */
export const kitStampSource = readFileSync(join(root, 'test/platform/kit-stamp.ts'), 'utf8').replaceAll(
  "'../../src/authoring/index.ts'",
  `'${join(root, 'src/authoring/index.ts')}'`,
);

/** One edit of the source: `from` must be in it once. */
export type Edit = readonly [from: string, to: string];

/** Version 1 as `warden release` wrote it and `warden version new` loads it. */
export interface KitRelease {
  version: number;
  config: unknown;
  pins: unknown;
  parts: unknown;
}

export interface KitStampProject {
  /** The project's folder (a package of ES modules, Warden's node_modules linked). */
  dir: string;
  /** The registry of the stamp as `edits` make its source, with `released` (none by default). */
  load(name: string, edits: readonly Edit[], released?: KitRelease): Promise<WorkflowRegistry>;
  /** The release of kstamp@1 from a registry of the unreleased stamp, as `warden release` writes it. */
  release(registry: WorkflowRegistry): KitRelease;
  remove(): void;
}

export function kitStampProject(): KitStampProject {
  const dir = mkdtempSync(join(tmpdir(), 'warden-kit-release-'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  mkdirSync(join(dir, 'workflows'));
  return {
    dir,
    async load(name, edits, released) {
      let text = kitStampSource;
      for (const [from, to] of edits) {
        if (text.split(from).length !== 2) throw new Error(`the kit stamp holds ${JSON.stringify(from)} not once`);
        text = text.replace(from, to);
      }
      if (released) {
        // What the author adds after `warden version new`: `released: [kstampV1]`.
        const create = "    create: ['clerk'],\n";
        text = text.replace(create, `${create}    released: [${JSON.stringify(released)}],\n`);
      }
      const file = join(dir, 'workflows', `${name}.machine.ts`);
      writeFileSync(file, text);
      const module = (await import(file)) as { kitStampWorkflow: typeof kitStampWorkflow };
      return createRegistry([module.kitStampWorkflow()]);
    },
    release(registry) {
      const definition = registry.resolve('kstamp@1');
      if (!definition) throw new Error('kstamp@1 is not registered');
      const { config, pins } = releaseFiles(definition.machine);
      return { version: 1, config: JSON.parse(config), pins: JSON.parse(pins), parts: releasedPartsOf(definition) };
    },
    remove() {
      rmSync(join(dir, 'node_modules'));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
