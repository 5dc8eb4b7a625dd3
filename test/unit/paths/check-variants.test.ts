import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { failingSides } from '../../../src/paths/check-variants.ts';
import type { Principal } from '../../../src/engine/principal.ts';

const schema = z.strictObject({
  jobId: z.string().optional(),
  version: z.number().int().positive(),
  hash: z.string().regex(/^sha256:[0-9a-f]{4}$/),
  step: z.enum(['a', 'c']),
  final: z.boolean(),
});
const context = { version: 2, hash: 'sha256:0a1f', requesterId: 'agent-1', amount: 100 };
const creator: Principal = { id: 'agent-1', tenantId: 't', kind: 'user', roles: ['agent'] };
const approver: Principal = {
  id: 'approver-1',
  tenantId: 't',
  kind: 'user',
  roles: ['approver'],
  claims: { limit: 500, senior: true },
};
const valid = { jobId: 'wf/x/1', version: 2, hash: 'sha256:0a1f', step: 'a', final: false };

/** Named checks of an approval, as a kit guard explains them. */
function failing(payload: Record<string, unknown>, actor: Principal): string[] {
  const checks: Record<string, boolean> = {
    namesCurrentVersion: payload.version === context.version,
    hashMatches: payload.hash === context.hash,
    notRequester: actor.id !== context.requesterId,
    withinLimit: typeof actor.claims?.limit === 'number' && actor.claims.limit >= context.amount,
    isFinal: payload.final === true,
  };
  return Object.keys(checks).filter((name) => !checks[name]);
}
const accepts = (payload: Record<string, unknown>) => schema.safeParse(payload).success;

describe('failingSides', () => {
  it('finds, for each check the valid event passes, the first small change that makes it fail', () => {
    const sides = failingSides({ payload: valid, principal: approver, creator, accepts, failing });
    expect(sides.map((s) => s.check)).toEqual(['namesCurrentVersion', 'hashMatches', 'notRequester', 'withinLimit']);
    const [stale, tampered, self, over] = sides;
    expect(stale?.payload).toEqual({ ...valid, version: 3 });
    expect(tampered?.payload).toEqual({ ...valid, hash: 'sha256:0a1a' });
    expect(self?.principal).toEqual({ ...approver, id: 'agent-1', roles: ['agent', 'approver'] });
    expect(over?.principal.claims).toEqual({ limit: 0, senior: true });
  });

  it('leaves the job id and the changes the schema refuses alone, and a check already failing', () => {
    const seen: Record<string, unknown>[] = [];
    failingSides({
      payload: valid,
      principal: approver,
      creator,
      accepts,
      failing: (payload, actor) => {
        seen.push(payload);
        return failing(payload, actor);
      },
    });
    expect(seen.some((p) => p.jobId !== valid.jobId)).toBe(false);
    // `step` changed is no value of the enum: the schema's refusal, not a check's.
    expect(seen.some((p) => p.step !== 'a')).toBe(false);
    // `final` flipped passes isFinal, which the valid event fails: nothing to report.
    expect(seen.some((p) => p.final === true)).toBe(true);
  });

  it('changes no sender that is a worker', () => {
    const worker: Principal = { id: 'worker-1', tenantId: 'system', kind: 'service', roles: ['worker'] };
    const sides = failingSides({ payload: valid, principal: worker, creator, accepts, failing });
    expect(sides.every((s) => s.principal === worker)).toBe(true);
  });
});
