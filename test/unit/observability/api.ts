/**
 * The HTTP API over a memory-store system (no runtime, no port), with a token for an agent.
 */
import pino from 'pino';
import { workflows } from '../../../machines/index.ts';
import { createAuthenticator, mintToken } from '../../../src/api/auth.ts';
import { createApp } from '../../../src/api/create-app.ts';
import { apiDeps } from '../../../src/api/server.ts';
import { loadConfig } from '../../../src/config.ts';
import { createSystem } from '../../../src/system.ts';

const secret = 'observability-test-secret-0123456789';

export async function testApi() {
  const system = createSystem(loadConfig({ LOG_LEVEL: 'silent', WARDEN_SHARDS: '4' }), {
    definitions: workflows,
    logger: pino({ level: 'silent' }),
  });
  const app = createApp(apiDeps(system, createAuthenticator({ secret })));
  const agent = await mintToken(secret, { sub: 'agent-1', tenant: 'acme', roles: ['support_agent'] });
  const createWorkflow = () =>
    app.request('/v1/workflows', {
      method: 'POST',
      headers: { Authorization: `Bearer ${agent}`, 'Content-Type': 'application/json', 'X-Request-Id': 'req-1' },
      body: JSON.stringify({ request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } }),
    });
  const postEvent = (workflowId: string, event: { type: string; payload: unknown }) =>
    app.request(`/v1/workflows/${workflowId}/events`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${agent}`, 'Content-Type': 'application/json', 'X-Request-Id': 'req-2' },
      body: JSON.stringify({ ...event, eventId: 'cancel-1' }),
    });
  return { system, app, createWorkflow, postEvent };
}
