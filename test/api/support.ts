/**
 * An API under test: a memory-store system with its runtime running (fast polling), the Hono app
 * (no port), and tokens for the usual principals of tenants `acme` and `globex`.
 */
import { workflows } from '../../machines/index.ts';
import pino from 'pino';
import { createAuthenticator } from '../../src/api/auth.ts';
import { tokenMinter } from '../support/tokens.ts';
import type { ApiDeps } from '../../src/api/context.ts';
import { createApp } from '../../src/api/create-app.ts';
import { apiDeps } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import type { Runtime } from '../../src/runtime/runner.ts';
import { createSystem, type System, type SystemOptions } from '../../src/system.ts';

export const secret = 'test-secret-0123456789abcdef';

export interface ApiWorld {
  system: System;
  runtime: Runtime;
  deps: ApiDeps;
  app: ReturnType<typeof createApp>;
  tokens: Record<
    'agent' | 'approver' | 'smallApprover' | 'reviewer' | 'otherAgent' | 'otherApprover' | 'worker',
    string
  >;
  call(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  json<T = Record<string, unknown>>(response: Response): Promise<T>;
  waitFor(id: string, state: string, token?: string): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function apiWorld(
  overrides: Partial<ApiDeps> = {},
  env: Record<string, string> = {},
  /** More of the system's options (a store decorator, say). */
  options: Omit<SystemOptions, 'definitions'> = {},
): Promise<ApiWorld> {
  const system = createSystem(loadConfig({ LOG_LEVEL: 'silent', WARDEN_POLL_MS: '5', WARDEN_SHARDS: '16', ...env }), {
    definitions: workflows,
    logger: pino({ level: 'silent' }),
    ...options,
  });
  const runtime = system.runtime(new Set(['worker', 'timers']));
  await runtime.start();
  const deps = { ...apiDeps(system, createAuthenticator({ secret })), ...overrides };
  const app = createApp(deps);
  const token = tokenMinter(secret);
  const tokens = {
    agent: await token('agent-1', 'acme', ['support_agent']),
    approver: await token('alice', 'acme', ['support_approver'], 1000),
    smallApprover: await token('bob', 'acme', ['support_approver'], 10),
    reviewer: await token('rita', 'acme', ['support_reviewer']),
    otherAgent: await token('agent-9', 'globex', ['support_agent']),
    otherApprover: await token('mallory', 'globex', ['support_approver'], 1_000_000),
    worker: await token('worker-x', 'system', ['worker'], undefined, 'service'),
  };
  const call: ApiWorld['call'] = (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    return Promise.resolve(app.request(path, { method, headers, ...(body === undefined ? {} : { body }) }));
  };
  const json = async <T>(response: Response) => (await response.json()) as T;
  return {
    system,
    runtime,
    deps,
    app,
    tokens,
    call,
    json,
    async waitFor(id, state, token = tokens.agent) {
      const until = Date.now() + 10_000;
      for (;;) {
        const view = await json<Record<string, unknown>>(await call('GET', `/v1/workflows/${id}`, { token }));
        const states = (view.state as string[] | undefined) ?? [
          (view.result as { outcome: string } | undefined)?.outcome,
        ];
        if (states.some((s) => s === state || s?.startsWith(`${state}.`) || s?.endsWith(`.${state}`))) return view;
        if (Date.now() > until) throw new Error(`workflow ${id} did not reach ${state}: ${JSON.stringify(states)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async stop() {
      await runtime.stop();
      await system.close();
    },
  };
}

export const refundRequest = {
  request: {
    customerId: 'cust-1',
    subject: 'Charged twice',
    message: 'Billed twice for March.',
    requestedAmount: 40,
    currency: 'EUR',
  },
};

/** The body of an `APPROVED` event for exactly the recommendation a view shows (`patch` overrides payload fields). */
export const approvalBody = (
  view: { evidence: { recommendation: { version: number; contentHash: string; amount: number } } },
  patch: Record<string, unknown> = {},
) => ({
  type: 'APPROVED',
  payload: {
    recommendationVersion: view.evidence.recommendation.version,
    contentHash: view.evidence.recommendation.contentHash,
    amount: view.evidence.recommendation.amount,
    ...patch,
  },
});
