/**
 * `warden token --sub alice --tenant demo --roles support_approver --limit 500`: mints a Bearer
 * token signed with WARDEN_JWT_SECRET, or else with the secret a server started without it keeps
 * in WARDEN_SECRET_FILE (`.warden/secret`).
 */
import { mintToken } from '../api/auth.ts';
import type { Config } from '../config.ts';
import { readSecretFile } from './secret-file.ts';

export async function token(
  config: Config,
  values: Record<string, string | boolean | undefined>,
  print: (line: string) => void,
): Promise<number> {
  const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
  const sub = text('sub');
  const tenant = text('tenant');
  const roles = text('roles');
  const secret = config.WARDEN_JWT_SECRET ?? readSecretFile(config.WARDEN_SECRET_FILE);
  if (!secret) {
    print(
      `no secret to sign with: set WARDEN_JWT_SECRET (the server's), or run this in the directory where ` +
        `\`npm start\` runs without it (it keeps its secret in ${config.WARDEN_SECRET_FILE})`,
    );
    return 2;
  }
  if (!sub || !tenant || !roles) {
    print('usage: warden token --sub ID --tenant TENANT --roles role1,role2 [--limit AMOUNT] [--kind user|service]');
    return 2;
  }
  const kind = text('kind') ?? 'user';
  if (kind !== 'user' && kind !== 'service') {
    print('--kind must be user or service (an external worker is a service with the worker role)');
    return 2;
  }
  const limit = Number(text('limit') ?? 0);
  if (!Number.isFinite(limit) || limit < 0) {
    print('--limit must be a non-negative number');
    return 2;
  }
  print(await mintToken(secret, { sub, tenant, roles: roles.split(','), approvalLimit: limit, kind }));
  return 0;
}
