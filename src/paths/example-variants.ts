/**
 * Example payloads that path models of many workflows share, for `paths.examples`: a failure that
 * another attempt may cure and a permanent one, and a person's decision on a versioned, hashed
 * subject of the context (current, stale, tampered, and by the requester themselves).
 */
import type { Principal } from '../engine/principal.ts';
import type { EventExample } from './derive.ts';

/** A content hash no subject of a walk has (a tampered decision names it). */
export const foreignHash = `sha256:${'cd'.repeat(32)}`;
const sampleHash = `sha256:${'ab'.repeat(32)}`;

const failed = (retryable: boolean) => ({
  payload: { errorClass: retryable ? 'UNAVAILABLE' : 'CONFLICT', message: 'failed', retryable },
});

/** A `failure()` event's payloads: `valid` another attempt may cure, `permanent` one it may not. */
export const failureExamples = { valid: failed(true), permanent: failed(false) };

/** The derived principal of a role holding a second one too (the requester who is also an approver). */
export const personWithRoles = (role: string, also: string, tenantId = 'acme'): Principal => ({
  id: `${role}-1`,
  tenantId,
  kind: 'user',
  roles: [role, also],
});

export interface DecisionExamplesOptions {
  /** The decision's other fields (a reason, a comment). */
  extra?: Record<string, unknown>;
  /** The requester's role and the deciding role: `selfDecision` is the requester holding both. */
  self?: { requester: string; decider: string; tenantId?: string };
}

/**
 * Decisions on the context's `subject` (`plan`): its payload names the subject's version and hash as
 * `<subject>Version` and `<subject>Hash` (`planVersion` from `plan.version`, as the presentation
 * prefills them). `valid` names the current one, `staleVersion` the next version, `tamperedHash` a
 * hash no subject has, and `selfDecision` is the current one decided by the requester.
 */
export function decisionExamples<TContext>(
  subject: string,
  options: DecisionExamplesOptions = {},
): Record<string, EventExample<TContext>> {
  const current = (c: TContext) => {
    const s = (c as Record<string, unknown>)[subject] as { version?: unknown; hash?: unknown } | null | undefined;
    return {
      version: typeof s?.version === 'number' ? s.version : 1,
      hash: typeof s?.hash === 'string' ? s.hash : sampleHash,
    };
  };
  const decided = (patch: (v: { version: number; hash: string }) => { version: number; hash: string }) => ({
    payload: (c: TContext) => {
      const { version, hash } = patch(current(c));
      return { [`${subject}Version`]: version, [`${subject}Hash`]: hash, ...options.extra };
    },
  });
  const same = (v: { version: number; hash: string }) => v;
  const { self } = options;
  return {
    valid: decided(same),
    staleVersion: decided((v) => ({ ...v, version: v.version + 1 })),
    tamperedHash: decided((v) => ({ ...v, hash: foreignHash })),
    ...(self
      ? { selfDecision: { ...decided(same), principal: personWithRoles(self.requester, self.decider, self.tenantId) } }
      : {}),
  };
}
