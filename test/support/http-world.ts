/**
 * A running Warden over real HTTP: `createSystem` on the real Redis (fresh key prefix) with the
 * given workflows, workers and the timer service running, and the API listening on a free port.
 * Tests talk to it with `fetch` only, as any client would.
 */
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createAuthenticator, mintToken } from '../../src/api/auth.ts';
import type { ClaimValue } from '../../src/engine/principal.ts';
import { apiDeps, serveApi } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import type { AnyWorkflowBundle } from '../../src/definitions/workflow.ts';
import { createSystem, type System, type SystemOptions } from '../../src/system.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from './redis.ts';

const secret = 'http-world-secret-0123456789abcdef';
/** The secret the world's API verifies tokens with (for a second app on the same system). */
export const httpWorldSecret = secret;

export interface HttpWorld {
  system: System;
  base: string;
  token(
    sub: string,
    tenant: string,
    roles: string[],
    options?: { claims?: Record<string, ClaimValue>; kind?: 'user' | 'service' },
  ): Promise<string>;
  /** Sends a JSON request; resolves with the status and the parsed body (typed as the caller expects). */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  request<T = Record<string, unknown>>(
    method: string,
    path: string,
    token: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>;
  /** Polls the workflow until one of its leaf states is (or ends with) `state`; returns the view. */
  waitFor(id: string, state: string, token: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function httpWorld(
  definitions: readonly AnyWorkflowBundle[],
  options: Omit<SystemOptions, 'definitions'> = {},
  /** More configuration, as environment variables (e.g. `WARDEN_EXTERNAL_EFFECTS`). */
  env: Record<string, string> = {},
): Promise<HttpWorld> {
  const client = await connectTestRedis(); // fails with the start hint when Redis is down
  const prefix = freshPrefix('http');
  const config = loadConfig({
    REDIS_URL: redisUrl,
    WARDEN_PREFIX: prefix,
    WARDEN_POLL_MS: '5',
    WARDEN_SHARDS: '8',
    LOG_LEVEL: 'silent',
    WARDEN_RATE_PER_MINUTE: '0',
    ...env,
  });
  const system = createSystem(config, { logger: pino({ level: 'silent' }), ...options, definitions });
  const runtime = system.runtime(new Set(['worker', 'timers']));
  await runtime.start();
  const server = await serveApi(apiDeps(system, createAuthenticator({ secret })), 0);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request: HttpWorld['request'] = async (method, path, token, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as never };
  };

  return {
    system,
    base,
    token: (sub, tenant, roles, tokenOptions = {}) =>
      mintToken(secret, {
        sub,
        tenant,
        roles,
        ...(tokenOptions.claims ? { claims: tokenOptions.claims } : {}),
        ...(tokenOptions.kind ? { kind: tokenOptions.kind } : {}),
      }),
    request,
    async waitFor(id, state, token, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const { body: view } = await request('GET', `/v1/workflows/${id}`, token);
        const states = (view.state as string[] | undefined) ?? [];
        if (states.some((s) => s === state || s.endsWith(`.${state}`) || s.startsWith(`${state}.`))) return view;
        if (Date.now() > until) throw new Error(`workflow ${id} did not reach ${state}: ${JSON.stringify(view)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await runtime.stop();
      await system.close();
      await deletePrefix(client, prefix);
      client.disconnect();
    },
  };
}
