/**
 * A throw-away 3-master Redis Cluster on loopback ports, started from the `redis-server` binary.
 * Standalone Redis does not enforce slot rules; only a real cluster proves that every script
 * touches one slot.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster } from 'ioredis';

export interface TestCluster {
  ports: number[];
  url: string;
  stop: () => Promise<void>;
}

function cli(port: number, ...args: string[]): string {
  return execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).trim();
}

async function waitFor(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if (check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Starts a 3-master cluster on loopback ports from `basePort` (random by default). A random base can
 * meet a port another process holds (its own or its cluster bus port, +10000): then another base
 * is tried, up to three times.
 */
export async function startCluster(basePort?: number): Promise<TestCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startClusterOn(basePort ?? 20_000 + Math.floor(Math.random() * 9_000));
    } catch (error) {
      if (basePort !== undefined || attempt >= 3) throw error;
    }
  }
}

async function startClusterOn(basePort: number): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-cluster-'));
  const ports = [basePort, basePort + 1, basePort + 2];
  const children = ports.map((port) =>
    spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        '2000',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    ),
  );
  const stop = async () => {
    for (const child of children) child.kill('SIGKILL');
    await sleep(50);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) await waitFor(() => cli(port, 'ping') === 'PONG', `redis-server on ${port}`);
    execFileSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
      { stdio: 'ignore' },
    );
    for (const port of ports) {
      await waitFor(() => cli(port, 'cluster', 'info').includes('cluster_state:ok'), `cluster state on ${port}`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { ports, url: `redis://127.0.0.1:${ports[0]}`, stop };
}

export function connectCluster(cluster: TestCluster): Cluster {
  return new Cluster(
    cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
    { enableAutoPipelining: true, redisOptions: { protocol: 2 } },
  );
}
