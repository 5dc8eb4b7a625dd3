/**
 * Warden as a user gets it: `npm pack` of the repository, installed into a fresh project outside
 * it, then `warden init`, `warden new`, `warden paths`, `warden demo`, the workflow's own path test under vitest,
 * the project type-checked against the package's declarations, and `warden serve` driving the new
 * workflow over HTTP to its end with tokens from `warden token` — on the real Redis, under a key
 * prefix of its own that is deleted afterwards.
 *
 * It touches no file of the repository: the package is packed from a copy of what `npm pack` reads
 * (its scripts build dist/ there), with the repository's node_modules linked for the build tools.
 * The installs take the dependencies from the npm cache (`--prefer-offline`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** What `npm pack` and the build read: the package's files and the build's inputs. */
const packInputs = [
  'package.json',
  'README.md',
  'tsconfig.json',
  'tsconfig.types.json',
  'bin',
  'scripts',
  'src',
  'docs',
];
const id = 'doc-check';
const prefix = freshPrefix('pack');
const secret = `pack-test-secret-${prefix}`;

/** The child processes' environment: this one without npm's, vitest's or Warden's settings, and then Warden's for the test. */
function childEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(npm_|VITEST|WARDEN_|REDIS_|PORT$|HOST$|NODE_ENV$|NODE_OPTIONS$|INIT_CWD$)/i.test(name),
    ),
  );
  return {
    ...env,
    REDIS_URL: redisUrl,
    WARDEN_PREFIX: prefix,
    WARDEN_JWT_SECRET: secret,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    WARDEN_POLL_MS: '20',
  };
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; a failing command resolves with its code and output. */
function run(command: string, args: string[], cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: childEnv(), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const durations: string[] = [];

/** Runs a step, records how long it took, and fails with its output when it exits non-zero. */
async function step(name: string, command: string, args: string[], cwd: string): Promise<Ran> {
  const started = performance.now();
  const ran = await run(command, args, cwd);
  durations.push(`${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (ran.code !== 0) throw new Error(`${name} exited ${ran.code}\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

const install = ['install', '--prefer-offline', '--no-audit', '--no-fund'];

describe('the packed package in a fresh project', { timeout: 300_000 }, () => {
  let base: string;
  let project: string;
  let tarball: string;
  let server: ChildProcess | undefined;
  let stopped = false;
  const started = performance.now();

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'warden-pack-'));
    const source = join(base, 'source');
    project = join(base, 'project');
    mkdirSync(source);
    mkdirSync(project);
    for (const path of packInputs) cpSync(join(root, path), join(source, path), { recursive: true });
    // The build reads machines/ beside src/ (scripts/build-state.mjs); the package does not ship it.
    cpSync(join(root, 'machines'), join(source, 'machines'), { recursive: true });
    symlinkSync(realpathSync(join(root, 'node_modules')), join(source, 'node_modules'), 'dir');
    const packed = await step('npm pack', 'npm', ['pack', '--pack-destination', base], source);
    tarball = join(base, packed.stdout.trim().split('\n').at(-1) ?? '');
  }, 300_000);

  afterAll(async () => {
    if (server?.pid !== undefined && !stopped) {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    const redis = await connectTestRedis();
    // warden serve's keys, and warden demo's (it keeps to `<prefix>-demo`).
    await deletePrefix(redis, prefix);
    await deletePrefix(redis, `${prefix}-demo`);
    redis.disconnect();
    rmSync(base, { recursive: true, force: true });
    durations.push(`in all: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    console.log(`pack-install steps:\n  ${durations.join('\n  ')}`);
  }, 120_000);

  it('packs the build, the declarations, the docs and the loan example, not the sources or the other workflows', async () => {
    const listed = await run('tar', ['tzf', tarball], base);
    const files = listed.stdout.split('\n').filter(Boolean);
    expect(files).toContain('package/dist/src/index.js');
    expect(files).toContain('package/dist/src/testing/index.js');
    expect(files).toContain('package/dist/types/src/index.d.ts');
    expect(files).toContain('package/dist/types/src/testing/index.d.ts');
    expect(files).toContain('package/dist/src/store/redis/lua/transition.lua');
    // The loan example and the docs ship to be read (the README links them); no other workflow, no test.
    expect(files).toContain('package/docs/authoring.md');
    expect(files).toContain('package/machines/loan/loan.machine.ts');
    const unshipped = /^package\/(src|machines|test|dist\/machines)\//;
    expect(
      files.filter((f) => unshipped.test(f) && !/^package\/machines\/loan\/[^/]+(?<!\.test)\.ts$/.test(f)),
    ).toEqual([]);
  });

  it('installs into a project and scaffolds it with warden init', async () => {
    await step('npm install <tarball>', 'npm', [...install, tarball], project);
    const init = await step('warden init', 'npx', ['--no', 'warden', 'init'], project);
    expect(init.stdout).toContain('wrote warden.config.ts');
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      type: string;
      dependencies: Record<string, string>;
    };
    expect(pkg.type).toBe('module');
    expect(pkg.dependencies.warden).toMatch(/^file:/); // the install's, kept
    for (const file of ['tsconfig.json', 'vitest.config.ts', 'warden.config.ts', '.gitignore', 'workflows']) {
      expect(existsSync(join(project, file)), file).toBe(true);
    }
    // A project with no workflow yet says so.
    const empty = await run('npx', ['--no', 'warden', 'paths'], project);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('warden.config.ts lists no workflow');
    await step('npm install (the scaffold’s dev dependencies)', 'npm', install, project);
  });

  it('scaffolds a workflow with warden new that passes warden paths, the demo, its path test and the type check', async () => {
    const made = await step('warden new', 'npx', ['--no', 'warden', 'new', id], project);
    expect(made.stdout).toContain('registered docCheckWorkflow in warden.config.ts');
    // warden new wrote the chart's Stately files: the check passes without a gen step.
    expect(made.stdout).toContain('wrote stately/');
    const check = await step('warden stately check', 'npx', ['--no', 'warden', 'stately', 'check'], project);
    expect(check.stdout).toContain('stately: the generated files are current');
    const again = await run('npx', ['--no', 'warden', 'new', id], project);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`workflows/${id} exists already`);

    const paths = await step('warden paths', 'npx', ['--no', 'warden', 'paths', '--definition', id], project);
    expect(paths.stdout).toMatch(/^unreachable\s+none$/m);
    expect(paths.stdout).toMatch(/^invariant violations\s+0$/m);
    expect(paths.stdout).toMatch(/^transitions covered\s+(\d+) of \1$/m);

    const demo = await step('warden demo', 'npx', ['--no', 'warden', 'demo'], project);
    expect(demo.stdout).toMatch(/final state: completed$/m);

    const tests = await step('vitest run (the path test)', 'npx', ['--no', 'vitest', 'run'], project);
    expect(`${tests.stdout}${tests.stderr}`).toMatch(/Test Files\s+.*1 passed/);
    await step('tsc --noEmit', 'npx', ['--no', 'tsc', '--noEmit'], project);
  });

  it('serves the workflow: created, stamped by a worker, signed off over HTTP, then stopped', async () => {
    const token = async (sub: string, roles: string) =>
      (
        await step(
          `warden token ${roles}`,
          'npx',
          ['--no', 'warden', 'token', '--sub', sub, '--tenant', 't1', '--roles', roles],
          project,
        )
      ).stdout.trim();
    const clerk = await token('clerk-7', 'clerk');
    const signer = await token('signer-7', 'signer');

    const serveStarted = performance.now();
    const child = spawn('npx', ['--no', 'warden', 'serve'], { cwd: project, env: childEnv(), detached: true });
    server = child;
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const base = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output)?.[1];
        if (url) resolve(url);
      });
      child.on('exit', (code) => {
        reject(new Error(`warden serve exited ${code}:\n${output}`));
      });
    });
    durations.push(`warden serve (until it listens): ${((performance.now() - serveStarted) / 1000).toFixed(1)} s`);

    const call = async (method: string, path: string, bearer: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const until = async (workflowId: string, state: string) => {
      for (let i = 0; i < 150; i++) {
        const { body } = await call('GET', `/v1/workflows/${workflowId}`, clerk);
        if ((body.state as string[] | undefined)?.includes(state)) return body;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${workflowId} never reached ${state}:\n${output}`);
    };

    const driveStarted = performance.now();
    const created = await call('POST', '/v1/workflows', clerk, { definition: id, input: { document: 'contract-7' } });
    expect(created.status).toBe(201);
    const workflowId = created.body.workflowId as string;
    const stamped = await until(workflowId, 'awaitingSignOff');
    expect(stamped).toMatchObject({ definition: `${id}@1`, stamp: 'stamp:contract-7', signedBy: null });
    // The requester may not sign off their own document; a signer may.
    const own = await call('POST', `/v1/workflows/${workflowId}/events`, clerk, { type: 'SIGNED_OFF', payload: {} });
    expect(own.status).toBe(403);
    const signed = await call('POST', `/v1/workflows/${workflowId}/events`, signer, {
      type: 'SIGNED_OFF',
      payload: {},
    });
    expect(signed.status).toBe(200);
    const done = await until(workflowId, 'completed');
    expect(done).toMatchObject({ status: 'finished', signedBy: 'signer-7' });
    durations.push(`drive over HTTP: ${((performance.now() - driveStarted) / 1000).toFixed(1)} s`);

    // SIGTERM to the process group (npx and the warden process under it); the output closes once
    // warden has stopped: requests and jobs finished, Redis closed.
    const closed = new Promise<void>((resolve) =>
      child.once('close', () => {
        resolve();
      }),
    );
    const stopStarted = performance.now();
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    await closed;
    stopped = true;
    durations.push(`warden serve (stop): ${((performance.now() - stopStarted) / 1000).toFixed(1)} s`);
    expect(output).toContain('stopping: finishing requests and jobs in flight');
    expect(output).not.toMatch(/"level":(50|60)/); // no error or fatal log line
  });
});
