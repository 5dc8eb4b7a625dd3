/**
 * `warden serve --processes N`: N processes of the same roles on one machine, so a role can use
 * every core (one Node process uses one). The processes share the API port (node:cluster hands
 * connections out in turn) and split the shards by the per-role leases, as separate machines would.
 * The first process prints the starter tokens; a process that dies is started again with the same
 * index (`WARDEN_PROCESS_INDEX`, so it takes the same metrics port); SIGTERM or SIGINT stops them
 * all gracefully.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { UsageError } from './commands.ts';

/** Resolves on the first SIGTERM or SIGINT (a graceful stop), then stops listening for them. */
export function stopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** How many processes `serve` should run, from `--processes` (default 1). */
export function parseProcesses(text: string | undefined): number {
  if (text === undefined) return 1;
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1 || count > 64) {
    throw new UsageError(`--processes must be a whole number from 1 to 64, not ${text}`);
  }
  return count;
}

/** True in a process `serveProcesses` started: it serves, and prints starter tokens only if it is the first. */
export const isServeChild = (): boolean => cluster.isWorker;
export const isFirstServeChild = (): boolean => !cluster.isWorker || cluster.worker?.id === 1;

/** In a started process, once it stopped serving: lets go of the channel to the first, so it can exit. */
export function leaveServeCluster(): void {
  if (cluster.isWorker) cluster.worker?.disconnect();
}

/** Starts `count` copies of this command and waits until they all stopped; returns the exit code. */
export async function serveProcesses(count: number, logger: Pick<Logger, 'info' | 'warn'>): Promise<number> {
  let stopping = false;
  /** When each process started and its index, by cluster worker id. */
  const started = new Map<number, { at: number; index: number }>();
  const fork = (index: number): Worker => {
    const worker = cluster.fork({ WARDEN_PROCESS_INDEX: String(index) });
    started.set(worker.id, { at: Date.now(), index });
    return worker;
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    const { at, index } = started.get(worker.id) ?? { at: 0, index: 0 };
    started.delete(worker.id);
    // A crash loop is not restarted faster than once a second.
    const ranFor = Date.now() - at;
    logger.warn(
      { childPid: worker.process.pid, index, exit: signal || code },
      'warden process exited; starting another',
    );
    setTimeout(() => fork(index), Math.max(0, 1_000 - ranFor)).unref();
  });
  for (let i = 0; i < count; i++) fork(i);
  logger.info({ processes: count }, 'warden processes started');
  await stopSignal();
  stopping = true;
  const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.isDead()) {
            resolve();
            return;
          }
          worker.once('exit', () => {
            resolve();
          });
          worker.process.kill('SIGTERM');
        }),
    ),
  );
  return 0;
}
