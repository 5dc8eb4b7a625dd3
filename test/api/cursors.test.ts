/**
 * A page's `next` is the only cursor a paginated read takes. The audit trail and a queue refuse
 * any other with 400 naming `cursor`, as the workflow list and the incidents do: a cursor that does
 * not parse used to restart the trail from its first entry, or answer a queue with an empty page
 * and no `next`, so a client could not tell a broken cursor from the end of the list.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';
import { apiWorld, refundRequest, type ApiWorld } from './support.ts';

interface Page {
  entries?: { eventType: string }[];
  items?: { workflowId: string }[];
  next: string | null;
  error?: { code: string; details: { issues?: { path: string }[] } };
}

describe.each(['memory', 'redis'] as const)('cursors, %s store', (kind) => {
  let w: ApiWorld;
  let redis: Redis | undefined;
  const ids: string[] = [];
  const prefix = freshPrefix('cursors');

  beforeAll(async () => {
    if (kind === 'redis') redis = await connectTestRedis();
    w = await apiWorld({}, kind === 'redis' ? { REDIS_URL: redisUrl, WARDEN_PREFIX: prefix } : {});
    for (let i = 0; i < 3; i++) {
      const created = await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest });
      ids.push((await w.json<{ workflowId: string }>(created)).workflowId);
    }
    for (const id of ids) await w.waitFor(id, 'awaitingApproval');
  });

  afterAll(async () => {
    await w.stop();
    if (redis) {
      await deletePrefix(redis, prefix);
      await redis.quit();
    }
  });

  const read = async (path: string) => {
    const response = await w.call('GET', path, { token: w.tokens.approver });
    return { status: response.status, body: await w.json<Page>(response) };
  };
  const queue = '/v1/workflows?state=awaitingApproval&definition=support';

  it('pages through an audit trail and a queue with the cursors they give out', async () => {
    const trail: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = (
        await read(`/v1/workflows/${ids[0]}/audit?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).body;
      trail.push(...(page.entries ?? []).map((e) => e.eventType));
      cursor = page.next;
    } while (cursor);
    expect(trail.slice(0, 2)).toEqual(['xstate.init', 'START']);
    expect(trail.at(-1)).toBe('FRAUD_CLEARED');

    const seen: string[] = [];
    do {
      const page: Page = (await read(`${queue}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
      seen.push(...(page.items ?? []).map((item) => item.workflowId));
      cursor = page.next;
    } while (cursor);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it('refuses an audit cursor it did not give out with 400 naming cursor', async () => {
    for (const cursor of ['garbage', '-5', '1e3', '0x10', '12-', 'a-1', '']) {
      const answer = await read(`/v1/workflows/${ids[0]}/audit?cursor=${encodeURIComponent(cursor)}`);
      expect(answer.status, cursor).toBe(400);
      expect(answer.body.error, cursor).toMatchObject({
        code: 'BAD_REQUEST',
        details: { issues: [{ path: 'cursor' }] },
      });
    }
  });

  it('refuses a queue cursor it did not give out with 400 naming cursor', async () => {
    for (const cursor of ['garbage', '12', '12:', ':s001-x', 'abc:s001-x', '-1:s001-x', '1e3:s001-x', '12:a:b', '']) {
      const answer = await read(`${queue}&cursor=${encodeURIComponent(cursor)}`);
      expect(answer.status, cursor).toBe(400);
      expect(answer.body.error, cursor).toMatchObject({
        code: 'BAD_REQUEST',
        details: { issues: [{ path: 'cursor' }] },
      });
    }
  });
});
