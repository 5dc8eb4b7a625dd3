/**
 * The README's "A five-minute tour", run as a newcomer would: `warden serve` started without
 * WARDEN_JWT_SECRET in a directory of its own, the `export BASE=… AGENT=…` line it gives pasted
 * into bash, then the README's block, verbatim, in the same shell. Its stdout is a pipe here, not
 * a terminal, so it writes that line to `.warden/starter-tokens` instead of printing it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../support/child-env.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/warden.mjs');
const prefix = freshPrefix('readme');
const cwd = mkdtempSync(join(tmpdir(), 'warden-readme-'));

/** Where the walkthrough lives: the first ```bash block under this heading of this file. */
const walkthrough = { file: 'README.md', heading: '## A five-minute tour' };

function walkthroughBlock(): string {
  const text = readFileSync(join(root, walkthrough.file), 'utf8');
  const section = text.split(`\n${walkthrough.heading}\n`)[1];
  const block = section?.split(/\n#{2,6} /)[0]?.match(/\n```bash\n([\s\S]*?)\n```/)?.[1];
  if (!block) throw new Error(`${walkthrough.file} has no \`\`\`bash block under "${walkthrough.heading}"`);
  return block;
}

/** The environment of a newcomer's shell: no secret, Redis under a fresh prefix. */
const newcomerEnv = (): NodeJS.ProcessEnv => childEnv({ REDIS_URL: redisUrl, WARDEN_PREFIX: prefix });

function run(command: string, args: string[], timeoutMs: number, input?: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: newcomerEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

let server: ChildProcess | undefined;
let exportLine = '';
let printed = '';

beforeAll(async () => {
  const client = await connectTestRedis(); // fails with the start hint when Redis is down
  client.disconnect();
  server = spawn(process.execPath, [bin, 'serve'], {
    cwd,
    env: { ...newcomerEnv(), PORT: '0', HOST: '127.0.0.1', WARDEN_SHARDS: '8', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = server;
  exportLine = await new Promise<string>((resolve, reject) => {
    const take = (chunk: Buffer) => {
      printed += chunk.toString();
    };
    started.stdout?.on('data', take);
    started.stderr?.on('data', take);
    const poll = setInterval(() => {
      const file = join(cwd, '.warden/starter-tokens');
      const line = existsSync(file) ? /^export BASE=.*$/m.exec(readFileSync(file, 'utf8'))?.[0] : undefined;
      if (line) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(line);
      }
    }, 100);
    const timer = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`warden serve wrote no export line within 60 s:\n${printed}`));
    }, 60_000);
    started.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`warden serve exited (${code}) before it wrote the export line:\n${printed}`));
    });
  });
}, 90_000);

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    const running = server;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    const kill = setTimeout(() => running.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(kill);
  }
  rmSync(cwd, { recursive: true, force: true });
  const client = await connectTestRedis();
  await deletePrefix(client, prefix);
  client.disconnect();
}, 30_000);

describe('the README walkthrough', () => {
  it('prints a paste-ready export line with BASE and the support tokens when no secret is set', () => {
    expect(exportLine).toMatch(
      /^export BASE=http:\/\/127\.0\.0\.1:\d+ AGENT=[\w.-]+ APPROVER=[\w.-]+ REVIEWER=[\w.-]+$/,
    );
    expect(statSync(join(cwd, '.warden/secret')).mode & 0o777).toBe(0o600);
    // Written for its owner only, never into the server's output (a log pipeline's input).
    expect(statSync(join(cwd, '.warden/starter-tokens')).mode & 0o777).toBe(0o600);
    expect(printed).not.toContain('export BASE=');
    expect(statSync(join(cwd, '.warden')).mode & 0o777).toBe(0o700);
  });

  it('runs the block pasted after that line to a completed workflow', { timeout: 120_000 }, async () => {
    const { code, stdout, stderr } = await run(
      'bash',
      ['-euo', 'pipefail'],
      100_000,
      `${exportLine}\n${walkthroughBlock()}\n`,
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('"outcome":"accepted"');
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^s\d+-[\w-]+: completed$/);
  });

  it(
    'mints with warden token, in the directory npm start ran in, tokens that server accepts',
    { timeout: 60_000 },
    async () => {
      const minted = await run(
        process.execPath,
        [
          bin,
          'token',
          '--sub',
          'alice',
          '--tenant',
          'demo',
          '--roles',
          'support_approver',
          '--claim',
          'approvalLimit=500',
        ],
        50_000,
      );
      expect(minted.code).toBe(0);
      const base = /BASE=(\S+)/.exec(exportLine)?.[1] ?? '';
      const queue = await fetch(`${base}/v1/workflows?state=awaitingApproval&definition=support`, {
        headers: { authorization: `Bearer ${minted.stdout.trim()}` },
      });
      expect(queue.status).toBe(200);
    },
  );
});
