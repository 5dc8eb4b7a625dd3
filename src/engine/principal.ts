/**
 * Who acts: the authenticated caller or a Warden service (worker, timer). Authority — roles, tenant,
 * and the claims a definition reads (an approval limit...) — comes only from here, never from an
 * event payload.
 */
import { z } from 'zod';

/** A JSON value, as a claim of a token carries one. */
export type ClaimValue = z.infer<ReturnType<typeof z.json>>;

/** At most this many claims beyond the standard ones, and this many characters of them as JSON. */
export const claimLimits = { count: 50, characters: 8192 } as const;

/**
 * The claims of a token beyond the standard ones (`sub`, `tenant`, `roles`, `kind`, `exp`...), as the
 * token carries them: the platform never reads them; a definition validates the ones it reads.
 */
export const claimsSchema = z
  .record(z.string().min(1).max(100), z.json())
  .refine((claims) => Object.keys(claims).length <= claimLimits.count, `at most ${claimLimits.count} claims`)
  .refine(
    (claims) => JSON.stringify(claims).length <= claimLimits.characters,
    `at most ${claimLimits.characters} characters of claims as JSON`,
  );

export type Claims = Readonly<Record<string, ClaimValue>>;

export const principalSchema = z.strictObject({
  id: z.string().trim().min(1).max(200),
  tenantId: z.string().trim().min(1).max(200),
  /** `service` principals (workers) act across tenants; `user` principals only within theirs. */
  kind: z.enum(['user', 'service']),
  roles: z.array(z.string().min(1).max(100)).max(50),
  /** The token's other claims, for the definitions that read one; none when absent. */
  claims: claimsSchema.optional(),
});

export type Principal = z.infer<typeof principalSchema>;

/**
 * A claim of the principal's token as `schema` reads it; null when the token has none or one the
 * schema refuses. The platform hands claims over unread: a workflow reads each through its schema,
 * so a missing or malformed claim grants nothing and never crashes a guard.
 */
export function claimOf<T>(principal: Pick<Principal, 'claims'>, name: string, schema: z.ZodType<T>): T | null {
  const claims = principal.claims;
  const parsed = schema.safeParse(claims && Object.hasOwn(claims, name) ? claims[name] : undefined);
  return parsed.success ? parsed.data : null;
}

/** The role of Warden's workers, in-process or external: the only role that may report a job's result. */
export const workerRole = 'worker';

/** A worker service (in-process or external): the sender of a job's results and its dead letter. */
export const isWorker = (principal: Principal): boolean =>
  principal.kind === 'service' && principal.roles.includes(workerRole);

/** Workers act for every tenant; anybody else — user or service — only within their own. */
export function actsAcrossTenants(principal: Principal): boolean {
  return (
    principal.kind === 'service' && principal.roles.length > 0 && principal.roles.every((role) => role === workerRole)
  );
}

/**
 * Whether the principal acts for `tenantId`: a pure worker service for every tenant, anybody else
 * (a service with any other role too) only for its own.
 */
export function actsForTenant(principal: Principal, tenantId: string): boolean {
  return actsAcrossTenants(principal) || principal.tenantId === tenantId;
}
