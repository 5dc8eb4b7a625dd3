/** A `warden serve` of its own for the benchmark and the fuzz run: a free port, a fresh secret, ready when /healthz answers. */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

const bin = fileURLToPath(new URL('../bin/warden.mjs', import.meta.url));

/** `warden serve` with `roles` (all when empty) and `env` over this process's environment, logging nothing. */
export function spawnWarden(roles: readonly string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [bin, 'serve', ...(roles.length > 0 ? ['--role', roles.join(',')] : [])], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: 'ignore',
  });
}

export interface RunningServer {
  origin: string;
  /** The JWT secret the server verifies tokens with. */
  secret: string;
  stop(): void;
  /** The server's process. */
  child: ChildProcess;
}

/** Starts `warden serve [--role …]` with `env` (REDIS_URL, WARDEN_PREFIX, …) and waits until it answers. */
export async function startServer(roles: string[], env: Record<string, string>): Promise<RunningServer> {
  const secret = env.WARDEN_JWT_SECRET ?? randomBytes(24).toString('hex');
  const port = await freePort();
  const child = spawnWarden(roles, {
    WARDEN_JWT_SECRET: secret,
    WARDEN_RATE_PER_MINUTE: '0',
    PORT: String(port),
    ...env,
  });
  const origin = `http://127.0.0.1:${port}`;
  const stop = () => {
    child.kill('SIGTERM');
  };
  const until = Date.now() + 20_000;
  for (;;) {
    const up = await fetch(`${origin}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { origin, secret, stop, child };
    if (Date.now() > until) {
      stop();
      throw new Error('the server did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
