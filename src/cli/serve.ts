/**
 * `warden serve`: runs the workers and the timer service (or one of them with `--role`) until
 * SIGTERM or SIGINT, then stops gracefully: no new reads, jobs in flight finish, leases released.
 */
import type { Config } from '../config.ts';
import type { Role } from '../runtime/runner.ts';
import { createSystem } from '../system.ts';

export const roleNames = ['worker', 'timers'] as const;

export function parseRoles(role: string | undefined): Set<Role> {
  if (role === undefined || role === 'all') return new Set(roleNames);
  if ((roleNames as readonly string[]).includes(role)) return new Set([role as Role]);
  throw new Error(`unknown role ${role}: use ${roleNames.join(' or ')}`);
}

export async function serve(config: Config, roles: Set<Role>): Promise<number> {
  const system = createSystem(config);
  const runtime = system.runtime(roles);
  await runtime.start();
  system.logger.info({ roles: [...roles], store: system.store.kind }, 'warden is running');
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  system.logger.info('stopping: finishing jobs in flight');
  await runtime.stop();
  await system.close();
  return 0;
}
