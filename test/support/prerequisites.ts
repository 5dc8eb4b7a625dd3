/**
 * The suite's global setup: before any test file starts, checks what `npm test` needs from the
 * machine (Redis at REDIS_URL, `redis-server` and `redis-cli`, and Chromium when the console tests
 * are in the run) and stops the run with one message naming everything missing and how to get it.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';
import { chromiumHint, chromiumPath } from './chromium.ts';
import { redisStartHint, redisUrl } from './redis.ts';

async function redisProblem(): Promise<string | undefined> {
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let reason = 'no answer';
  client.on('error', (error: Error) => (reason = error.message));
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `Redis at ${redisUrl} does not answer (${reason === 'no answer' ? (error as Error).message : reason}); start one with:\n    ${redisStartHint}`;
  } finally {
    client.disconnect();
  }
}

/** Whether `command` is an executable file in a directory of the PATH. */
function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Whether this run includes the browser tests; when vitest does not say, they count as included. */
function runsBrowserTests(project: TestProject): boolean {
  const paths = project.vitest.state.getPaths();
  return paths.length === 0 || paths.some((path) => path.includes('/test/console/'));
}

export default async function checkPrerequisites(project: TestProject): Promise<void> {
  // Every project inherits this setup; the root project's run, always last, is the one that checks.
  if (!project.isRootProject()) return;
  const problems = [await redisProblem()];
  // The cluster, crash and restart tests start Redis processes of their own.
  const tools = ['redis-server', 'redis-cli'].filter((command) => !onPath(command));
  if (tools.length > 0) {
    problems.push(
      `${tools.join(' and ')} not on the PATH (tests start Redis processes of their own): apt-get install -y redis-server`,
    );
  }
  if (runsBrowserTests(project) && !existsSync(chromiumPath)) {
    problems.push(`Chromium is not installed at ${chromiumPath} (the console tests drive it): ${chromiumHint}`);
  }
  const missing = problems.filter((problem) => problem !== undefined);
  if (missing.length === 0) return;
  // A throw here is reported by vitest as "No test files found" under the filters of every
  // project, which buries the one thing to fix: say it alone and stop.
  process.stderr.write(`\nnpm test cannot run on this machine:\n${missing.map((p) => `  - ${p}`).join('\n')}\n\n`);
  process.exit(1);
}
