/**
 * The named checks of a person's decision on a versioned, hashed subject of the context (a plan, a
 * recommendation): it names the current version and hash (`<subject>Version`, `<subject>Hash` of
 * the payload against `<subject>.version`, `.hash`), and the decider is of the case's tenant, holds
 * the deciding role and is not the requester (four eyes). Named `<subject>VersionIsCurrent`,
 * `<subject>HashMatches`, `<decider>IsNotRequester`, `<decider>SameTenant`, `<decider>HasRole`, so a
 * refusal lists what failed. And who decided, as the decision's record keeps them.
 */
import { z } from 'zod';
import type { AnyEnvelope } from './events.ts';

type DecisionCheck = (args: { context: unknown; event: AnyEnvelope }) => boolean;

export interface DecisionChecksSpec {
  /** The context field holding `{ version, hash }` (null before there is one). */
  subject: string;
  /** Who decides, for the checks' names (`approver`). */
  decider: string;
  /** The role the decider must hold. */
  role: string;
}

const fieldOf = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;

/**
 * Whether `record` (a validation, an approval: a decision's record) names the context's current
 * `subject` by its `<subject>Version` and `<subject>Hash`; never while there is no subject or record.
 */
export function namesCurrent(context: unknown, subject: string, record: unknown): boolean {
  const current = fieldOf(context, subject);
  const version = fieldOf(current, 'version');
  const hash = fieldOf(current, 'hash');
  return (
    version !== undefined &&
    hash !== undefined &&
    fieldOf(record, `${subject}Version`) === version &&
    fieldOf(record, `${subject}Hash`) === hash
  );
}

export function decisionChecks({ subject, decider, role }: DecisionChecksSpec): Record<string, DecisionCheck> {
  const current = (context: unknown, part: 'version' | 'hash') => fieldOf(fieldOf(context, subject), part);
  // Read as a property whatever the payload is: the allowed-events probe (a proxy) must see the read.
  const named = (e: AnyEnvelope, part: string) =>
    (e.payload as Record<string, unknown> | null | undefined)?.[`${subject}${part}`];
  const present = (v: unknown) => v !== undefined && v !== null;
  return {
    [`${subject}VersionIsCurrent`]: ({ context: c, event: e }) =>
      present(current(c, 'version')) && named(e, 'Version') === current(c, 'version'),
    [`${subject}HashMatches`]: ({ context: c, event: e }) =>
      present(current(c, 'hash')) && named(e, 'Hash') === current(c, 'hash'),
    [`${decider}IsNotRequester`]: ({ context: c, event: e }) =>
      e.actor !== undefined && e.actor.id !== fieldOf(c, 'requesterId'),
    [`${decider}SameTenant`]: ({ context: c, event: e }) => e.actor?.tenantId === fieldOf(c, 'tenantId'),
    [`${decider}HasRole`]: ({ event: e }) => e.actor?.roles.includes(role) ?? false,
  };
}

type DeciderFields<D extends string> = { [K in `${D}Id` | `${D}TenantId`]: z.ZodString } & {
  [K in `${D}Roles`]: z.ZodArray<z.ZodString>;
};

/** The fields of a decision's record naming who decided: `<decider>Id`, `<decider>TenantId`, `<decider>Roles`. */
export function deciderFields<D extends string>(decider: D): DeciderFields<D> {
  const fields = { [`${decider}Id`]: z.string(), [`${decider}TenantId`]: z.string() };
  return { ...fields, [`${decider}Roles`]: z.array(z.string()) } as DeciderFields<D>;
}

/** Who decided, as `deciderFields(decider)` names them: the actor's id, tenant and roles at the time. */
export function deciderOf<D extends string>(
  actor: { id: string; tenantId: string; roles: readonly string[] },
  decider: D,
) {
  const fields = { [`${decider}Id`]: actor.id, [`${decider}TenantId`]: actor.tenantId };
  return { ...fields, [`${decider}Roles`]: [...actor.roles] } as { [K in `${D}Id` | `${D}TenantId`]: string } & {
    [K in `${D}Roles`]: string[];
  };
}
