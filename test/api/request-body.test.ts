/**
 * A request body is JSON as RFC 8259 has it between systems: `application/json`, UTF-8, not
 * compressed. Anything else is refused before it is read, never decoded into something the sender
 * did not send (an invalid byte becoming U+FFFD in the audit trail's stated reason).
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';
import { apiWorld, refundRequest, type ApiWorld } from './support.ts';

describe.each(['memory', 'redis'] as const)('a request body, %s store', (kind) => {
  let w: ApiWorld;
  let redis: Redis | undefined;
  let id: string;
  const prefix = freshPrefix('request-body');

  beforeAll(async () => {
    if (kind === 'redis') redis = await connectTestRedis();
    w = await apiWorld({}, kind === 'redis' ? { REDIS_URL: redisUrl, WARDEN_PREFIX: prefix } : {});
    const created = await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest });
    id = (await w.json<{ workflowId: string }>(created)).workflowId;
    await w.waitFor(id, 'awaitingApproval');
  });

  afterAll(async () => {
    await w.stop();
    if (redis) {
      await deletePrefix(redis, prefix);
      await redis.quit();
    }
  });

  const escalate = JSON.stringify({ type: 'ESCALATE', payload: { reason: 'needs a second look' } });

  async function send(headers: Record<string, string>, body: string | Uint8Array) {
    const response = await w.app.request(`/v1/workflows/${id}/events`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${w.tokens.approver}`, ...headers },
      body,
    });
    return { status: response.status, body: await w.json<{ error?: { code: string } }>(response) };
  }

  async function trailLength(): Promise<number> {
    const page = await w.json<{ entries: unknown[] }>(
      await w.call('GET', `/v1/workflows/${id}/audit`, { token: w.tokens.approver }),
    );
    return page.entries.length;
  }

  it('is refused with 415 when its media type only starts like application/json or names another charset', async () => {
    const before = await trailLength();
    for (const type of [
      'application/jsonx',
      'application/json-patch+json',
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-16',
      'application/json;charset="latin1"',
    ]) {
      const response = await send({ 'Content-Type': type }, escalate);
      expect(response.status, type).toBe(415);
      expect(response.body.error?.code, type).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect(await trailLength()).toBe(before);
  });

  it('is refused with 415 when it is compressed (Content-Encoding other than identity)', async () => {
    for (const encoding of ['gzip', 'br', 'deflate']) {
      const response = await send({ 'Content-Type': 'application/json', 'Content-Encoding': encoding }, escalate);
      expect(response.status, encoding).toBe(415);
      expect(response.body.error?.code, encoding).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('is refused with 400 when it is not valid UTF-8, and changes nothing', async () => {
    const before = await trailLength();
    // "café" with é as its Latin-1 byte 0xE9: not UTF-8.
    const latin1 = new Uint8Array([
      ...new TextEncoder().encode('{"type":"ESCALATE","payload":{"reason":"caf'),
      0xe9,
      ...new TextEncoder().encode('"}}'),
    ]);
    const response = await send({ 'Content-Type': 'application/json' }, latin1);
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe('MALFORMED_JSON');
    expect(await trailLength()).toBe(before);
    const view = await w.json<{ state: string[] }>(
      await w.call('GET', `/v1/workflows/${id}`, { token: w.tokens.approver }),
    );
    expect(view.state).toEqual(['beforeAction.awaitingApproval']);
  });

  it('is answered, when it does not match its schema, with details of a bounded size, as a refused event is', async () => {
    const unknown = Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`k${i}`, 1]));
    for (const [path, token, body] of [
      ['/v1/workflows', w.tokens.agent, { ...refundRequest, ...unknown }],
      ['/v1/workflows', w.tokens.agent, { definition: 'support', input: { ...refundRequest, ...unknown } }],
      [`/v1/workflows/${id}/events`, w.tokens.approver, { type: 'ESCALATE', payload: {}, ...unknown }],
    ] as const) {
      const response = await w.call('POST', path, { token, body });
      expect(response.status).toBe(422);
      const text = await response.text();
      const details = (JSON.parse(text) as { error: { details: { issues: unknown[]; truncated?: boolean } } }).error
        .details;
      expect(JSON.stringify(details).length).toBeLessThanOrEqual(4096);
      expect(details).toMatchObject({
        issues: [expect.objectContaining({ code: 'unrecognized_keys' })],
        truncated: true,
      });
    }
  });

  it('is read with the spellings of application/json and UTF-8 that mean the same, a BOM included', async () => {
    const types = [
      'application/json; charset=utf-8',
      'Application/JSON; Charset="UTF-8"',
      'application/json;charset=utf8',
      'application/json; charset=utf-8; foo=bar',
    ];
    // An unknown type is refused after the body is read as JSON: what the check lets through is parsed.
    const unknown = JSON.stringify({ type: 'NOT_AN_EVENT', payload: {} });
    for (const type of types) {
      const response = await send({ 'Content-Type': type }, unknown);
      expect(response.body.error?.code, type).toBe('INVALID_EVENT');
    }
    const withBom = await send(
      { 'Content-Type': 'application/json', 'Content-Encoding': 'identity' },
      `\ufeff${unknown}`,
    );
    expect(withBom.body.error?.code).toBe('INVALID_EVENT');
  });
});
