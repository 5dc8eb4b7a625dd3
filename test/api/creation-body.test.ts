/**
 * A creation body's fields beside `input` are refused naming them; one that would carry authority
 * (`tenant`, `roles`, `actor` …) names the token as where that comes from. Never echoed unbounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiWorld, refundRequest, type ApiWorld } from './support.ts';

let w: ApiWorld;

beforeAll(async () => {
  w = await apiWorld();
});

afterAll(async () => {
  await w.stop();
});

describe('a creation body with fields beside its input', () => {
  it('names the fields, and names the token as where the tenant, roles and actor come from', async () => {
    const create = (body: unknown) => w.call('POST', '/v1/workflows', { token: w.tokens.agent, body });
    const beside = await create({ input: refundRequest, tenant: 'globex', priority: 'high' });
    expect(beside.status).toBe(422);
    expect(await w.json(beside)).toEqual({
      error: {
        code: 'INVALID_INPUT',
        message: 'tenant: the tenant, roles and actor come from the token only',
        details: { topLevel: ['tenant', 'priority'] },
      },
    });
    const stray = await create({ input: refundRequest, priority: 'high' });
    expect(await w.json(stray)).toMatchObject({
      error: {
        code: 'INVALID_INPUT',
        message: 'send the creation input as `input` or at the top level, not both (priority beside `input`)',
      },
    });
    // Thousands of them: named up to five, the details bounded.
    const many = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`field${i}`, 1]));
    const flood = await w.json<{ error: { message: string; details: { truncated?: boolean } } }>(
      await create({ input: refundRequest, ...many }),
    );
    expect(flood.error.message).toContain('field0, field1, field2, field3, field4, … beside');
    expect(flood.error.details.truncated).toBe(true);
    expect(JSON.stringify(flood).length).toBeLessThan(5_000);
  });
});
