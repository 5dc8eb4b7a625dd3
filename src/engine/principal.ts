/**
 * Who acts: the authenticated caller or a Warden service (worker, timer). Authority — roles, tenant,
 * approval limit — comes only from here, never from an event payload.
 */
import { z } from 'zod';

export const principalSchema = z.strictObject({
  id: z.string().trim().min(1).max(200),
  tenantId: z.string().trim().min(1).max(200),
  /** `service` principals (workers) act across tenants; `user` principals only within theirs. */
  kind: z.enum(['user', 'service']),
  roles: z.array(z.string().min(1).max(100)).max(50),
  /** Highest amount this principal may approve, in major units; 0 when absent. */
  approvalLimit: z.number().min(0).default(0),
});

export type Principal = z.infer<typeof principalSchema>;

/** The role of Warden's workers, in-process or external: the only role that may report a job's result. */
export const workerRole = 'worker';

/** Workers act for every tenant; anybody else — user or service — only within their own. */
export function actsAcrossTenants(principal: Principal): boolean {
  return (
    principal.kind === 'service' && principal.roles.length > 0 && principal.roles.every((role) => role === workerRole)
  );
}
