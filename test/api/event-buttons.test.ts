/**
 * Every event a caller may send comes with its button: the definition's own label, kind and
 * description, or, where it declares none, the event type in words, neutral. The workflow view's
 * `allowedEvents` and `GET /v1/definitions` say the same, for the shipped workflows and for one of
 * a project's own.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../src/api/auth.ts';
import { createApp } from '../../src/api/create-app.ts';
import { apiDeps } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { eventTypeInWords } from '../../src/definitions/event-presentation.ts';
import { createSystem, type System } from '../../src/system.ts';
import { signOffWorkflow } from '../support/sign-off-workflow.ts';
import { tokenMinter } from '../support/tokens.ts';
import { apiWorld, refundRequest, secret, type ApiWorld } from './support.ts';

interface Button {
  type: string;
  label: string;
  kind: string;
  description?: string;
  schema: Record<string, unknown>;
}
interface DefinitionList {
  definitions: {
    key: string;
    events: string[];
    personEvents: string[];
    eventPresentation: Record<string, Omit<Button, 'type' | 'schema'>>;
  }[];
}

describe('a project’s own workflow', () => {
  let system: System;
  let app: ReturnType<typeof createApp>;
  const token = tokenMinter(secret);

  beforeAll(() => {
    system = createSystem(loadConfig({ LOG_LEVEL: 'silent' }), {
      definitions: [signOffWorkflow({ label: 'Sign off', kind: 'primary', description: 'Sign the document off.' })],
      logger: pino({ level: 'silent' }),
    });
    app = createApp(apiDeps(system, createAuthenticator({ secret })));
  });
  afterAll(async () => {
    await system.close();
  });

  const call = async (method: string, path: string, bearer: string, body?: unknown) =>
    app.request(path, {
      method,
      headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('shows each allowed event with the label and kind declared, the others by their type in words, neutral', async () => {
    const created = await call('POST', '/v1/workflows', await token('clerk-1', 'acme', ['clerk']), {
      definition: 'sign-off',
      input: {},
    });
    expect(created.status).toBe(201);
    const { workflowId } = (await created.json()) as { workflowId: string };
    const view = (await (
      await call('GET', `/v1/workflows/${workflowId}`, await token('sam', 'acme', ['signer']))
    ).json()) as { allowedEvents: Button[] };
    expect(view.allowedEvents.map(({ schema: _schema, ...button }) => button)).toEqual([
      { type: 'SIGNED', label: 'Sign off', kind: 'primary', description: 'Sign the document off.' },
      { type: 'WITHDRAWN', label: 'Withdrawn', kind: 'neutral' },
      { type: 'GIVE_UP', label: 'Hand over', kind: 'neutral' },
    ]);
    expect(view.allowedEvents[0]?.schema).toMatchObject({ type: 'object' });
  });

  it('lists every event’s button in GET /v1/definitions', async () => {
    const list = (await (
      await call('GET', '/v1/definitions', await token('sam', 'acme', ['signer']))
    ).json()) as DefinitionList;
    const [definition] = list.definitions;
    expect(Object.keys(definition?.eventPresentation ?? {})).toEqual(definition?.events);
    expect(definition?.eventPresentation).toMatchObject({
      SIGNED: { label: 'Sign off', kind: 'primary' },
      WITHDRAWN: { label: 'Withdrawn', kind: 'neutral' },
      STAMPED: { label: 'Stamped', kind: 'neutral' },
    });
  });
});

describe('the shipped workflows', () => {
  let w: ApiWorld;
  beforeAll(async () => {
    w = await apiWorld();
  });
  afterAll(async () => {
    await w.stop();
  });

  it('label an approver’s and an agent’s buttons in words, styled by what they do', async () => {
    const created = await w.json<{ workflowId: string }>(
      await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest }),
    );
    const waiting = (await w.waitFor(created.workflowId, 'awaitingApproval', w.tokens.approver)) as {
      allowedEvents: Button[];
    };
    const buttons = (view: { allowedEvents: Button[] }) =>
      view.allowedEvents.map(({ type, label, kind }) => [type, label, kind]);
    expect(buttons(waiting)).toEqual([
      ['APPROVED', 'Approve refund', 'primary'],
      ['REJECTED_BY_REVIEWER', 'Reject refund', 'danger'],
      ['CHANGES_REQUESTED', 'Request changes', 'neutral'],
      ['ESCALATE', 'Escalate', 'neutral'],
    ]);
    expect(waiting.allowedEvents[0]?.description).toMatch(/\S/);
    const asAgent = await w.json<{ allowedEvents: Button[] }>(
      await w.call('GET', `/v1/workflows/${created.workflowId}`, { token: w.tokens.agent }),
    );
    expect(buttons(asAgent)).toEqual([
      ['CANCEL_REQUESTED', 'Cancel request', 'danger'],
      ['ESCALATE', 'Escalate', 'neutral'],
    ]);
  });

  it('declare a label for every event a person may send', async () => {
    const list = await w.json<DefinitionList>(await w.call('GET', '/v1/definitions', { token: w.tokens.agent }));
    // A label of the definition's own: not the event type in words the API falls back on.
    const undeclared = list.definitions.flatMap((d) =>
      d.personEvents
        .filter((type) => d.eventPresentation[type]?.label === eventTypeInWords(type))
        .map((type) => `${d.key} ${type}`),
    );
    expect(undeclared).toEqual([]);
    const support = list.definitions.find((d) => d.key === 'support@2');
    expect(support?.eventPresentation.REVIEW_COMPLETE).toMatchObject({ label: 'Resolve by hand', kind: 'primary' });
  });
});
