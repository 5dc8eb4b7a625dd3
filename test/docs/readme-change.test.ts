/**
 * The README's "Changing a workflow safely", run as a user would, line by line in a project whose
 * loan workflow has an edit exported from the Stately editor (`exports/loan.ts`): each command in its
 * own process, `npx warden` being Warden's bin; the one step the block states in words (add the two
 * lines `version new` printed) done as it says. Every line succeeds but the import of the released
 * version, which is refused with nothing written.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loanExport, project, referredDescribed, removeProjects, root } from '../support/loan-project.ts';
import { deletePrefix, connectTestRedis, freshPrefix, redisUrl } from '../support/redis.ts';

const prefix = freshPrefix('readme-change');
afterAll(async () => {
  removeProjects();
  const client = await connectTestRedis();
  await deletePrefix(client, prefix);
  client.disconnect();
});

/** The lines of the README's block: commands, and the comment lines that say what to do by hand. */
function changeBlock(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split('\n## Changing a workflow safely\n')[1];
  const block = section?.split(/\n## /)[0]?.match(/\n```bash\n([\s\S]*?)\n```/)?.[1];
  if (!block) throw new Error('README.md has no ```bash block under "## Changing a workflow safely"');
  return block.split('\n').filter((line) => line.trim() !== '');
}

describe('README: changing a workflow safely', () => {
  it('runs line by line: release, a refused import, version new, import, gen, check, diff, paths, deploy check', () => {
    const dir = project();
    const lines = changeBlock();
    expect(lines.length).toBeGreaterThan(8);
    const env = { PATH: process.env.PATH, WARDEN_FROM_SOURCE: '1', REDIS_URL: redisUrl, WARDEN_PREFIX: prefix };
    let printed = '';
    for (const line of lines) {
      if (line.startsWith('#')) {
        // The step said in words: add what `version new` printed to the workflow's workflow({...}).
        expect(line).toContain('add the two lines it printed');
        const imports = printed.match(/import \{ \w+ \} from '[^']+'/g) ?? [];
        const fields = printed.match(/^ {2}(released|migrations): \[\w+\],/gm) ?? [];
        expect([imports.length, fields.length]).toEqual([2, 2]);
        const index = join(dir, 'workflows/loan/index.ts');
        const text = readFileSync(index, 'utf8');
        writeFileSync(
          index,
          `${imports.map((i) => `${i};`).join('\n')}\n${text.replace('>({\n', `>({\n${fields.join('\n')}\n`)}`,
        );
        continue;
      }
      const command = line.replace(/\s+#.*$/, '').trim();
      const [npx, warden, ...argv] = command.split(/\s+/);
      expect([npx, warden]).toEqual(['npx', 'warden']);
      if (argv[0] === 'stately' && argv[1] === 'import') loanExport(dir, argv[2] ?? '', referredDescribed);
      const run = spawnSync(process.execPath, [join(root, 'bin/warden.mjs'), ...argv], {
        cwd: dir,
        encoding: 'utf8',
        env,
      });
      printed = run.stdout;
      const refused = printed.includes('not written: loan@1 is released');
      expect({ command, status: run.status, refused: refused || undefined }).toEqual(
        line.includes('refused') ? { command, status: 1, refused: true } : { command, status: 0, refused: undefined },
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    const lock = JSON.parse(readFileSync(join(dir, 'stately/states.lock.json'), 'utf8')) as Record<string, object>;
    expect(lock['loan@1']).toMatchObject({ released: true });
    expect(lock['loan@2']).not.toHaveProperty('released');
    expect(readFileSync(join(dir, 'workflows/loan/loan.machine.ts'), 'utf8')).toContain(
      'An officer takes the case over.',
    );
  }, 300_000);
});
