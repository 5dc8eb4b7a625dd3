/**
 * Tokens of test and bench callers, signed with the server's secret: `approvalLimit` is the claim
 * the support workflow reads (a caller without one approves nothing).
 */
import { mintToken } from '../../src/api/auth.ts';

export function tokenMinter(secret: string) {
  return (sub: string, tenant: string, roles: string[], approvalLimit?: number, kind: 'user' | 'service' = 'user') =>
    mintToken(secret, {
      sub,
      tenant,
      roles,
      kind,
      ...(approvalLimit === undefined ? {} : { claims: { approvalLimit } }),
    });
}
