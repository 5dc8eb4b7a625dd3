/**
 * A released version is data beyond its chart too: who may create it and send each event, its start
 * and dead-letter events, job guards and effect operations come from its release; its event and input
 * schemas, effect job-parameter builders, `currentJobs`, `explainGuard` and pinned functions are
 * pinned there, and the Stately check reports each one that changed.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registry as workflowRegistry } from '../../machines/index.ts';
import { supportV1, supportV2 } from '../../machines/support/index.ts';
import { createInitialContext, supportInputSchema } from '../../machines/support/support.context.ts';
import { supportEffects as effects } from '../../machines/support/support.effects.ts';
import { eventSchemas } from '../../machines/support/support.events.ts';
import { supportPinnedFunctions } from '../../machines/support/support.guards.ts';
import releasedParts from '../../machines/support/versions/support.v1.parts.json' with { type: 'json' };
import { statelyFilesOnDisk } from '../../src/cli/stately.ts';
import {
  changedParts,
  functionFingerprint,
  loadReleasedParts,
  releasedPartsOf,
  schemaFingerprint,
  type ReleasedParts,
} from '../../src/definitions/released-parts.ts';
import { statelyCheck } from '../../src/definitions/stately.ts';

const definitions = workflowRegistry.versions;
const findMigration = workflowRegistry.migration;
const onDisk = statelyFilesOnDisk(workflowRegistry);

const checkWithV1 = (v1: typeof supportV1) =>
  statelyCheck({ definitions: new Map([...definitions, ['support@1', v1]]), findMigration }, onDisk);

const code = {
  inputSchema: supportInputSchema,
  eventSchemas,
  effects,
  // support@1's, the kit's for its chart (closures: no `this`).
  // eslint-disable-next-line @typescript-eslint/unbound-method
  currentJobs: supportV1.currentJobs,
  // eslint-disable-next-line @typescript-eslint/unbound-method
  explainGuard: supportV1.explainGuard,
  pinnedFunctions: supportPinnedFunctions,
};

describe('the parts of a released version', () => {
  it('are those support@1 runs on, written again the same whoever compiled the code', () => {
    // The committed file was written by the CLI (tsx); this is computed under vite.
    expect(releasedPartsOf(supportV1)).toEqual(releasedParts);
    expect(supportV1.releasedParts).toEqual(releasedParts);
    expect(supportV1.eventRoles).toEqual(
      Object.fromEntries(Object.entries(releasedParts.events).map(([type, event]) => [type, event.roles])),
    );
    expect(Object.keys(supportV1.eventSchemas).sort()).toEqual(Object.keys(releasedParts.events).sort());
    expect(supportV1.createRoles).toEqual(releasedParts.createRoles);
    expect(checkWithV1(supportV1)).toEqual([]);
  });

  it('run support@1 on the roles, start and dead-letter events and effect operations of its release', () => {
    const parts: ReleasedParts = structuredClone(releasedParts);
    parts.events.APPROVED!.roles = ['support_reviewer'];
    parts.effects.notifyCustomer!.operation = 'notify-v1';
    parts.createRoles = ['support_reviewer'];
    parts.deadLetterEvent = null;
    const loaded = loadReleasedParts({ key: 'support@1', parts, code });
    expect(loaded.eventRoles.APPROVED).toEqual(['support_reviewer']);
    expect(loaded.effects.notifyCustomer?.operation).toBe('notify-v1');
    expect(loaded.createRoles).toEqual(['support_reviewer']);
    expect(loaded.deadLetterEvent).toBeNull();
    // ...while the job-parameter builder is the code given, which the release pins.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- compared, never called
    expect(loaded.effects.notifyCustomer?.params).toBe(effects.notifyCustomer.params);
  });

  it('take only the event types, effects and pinned functions of the release from code that has more', () => {
    const later = {
      ...code,
      eventSchemas: { ...eventSchemas, REOPENED: z.strictObject({}) },
      pinnedFunctions: { ...supportPinnedFunctions, reopenWindow: () => 7 },
    };
    const loaded = loadReleasedParts({ key: 'support@1', parts: releasedParts, code: later });
    expect(Object.keys(loaded.eventSchemas).sort()).toEqual(Object.keys(releasedParts.events).sort());
    expect(loaded.pinnedFunctions).not.toHaveProperty('reopenWindow');
    // What the later code adds is not reported for support@1: only what the release pins differently.
    const asReleased = loadReleasedParts({ key: 'support@1', parts: releasedParts, code });
    expect(changedParts({ ...supportV1, ...loaded }, 'support@1')).toEqual(
      changedParts({ ...supportV1, ...asReleased }, 'support@1'),
    );
  });

  it('refuse to load a release naming an event type or effect the code lacks, or that is not a parts list', () => {
    const { APPROVED: _approved, ...withoutApproved } = eventSchemas;
    const { voidAction: _void, ...withoutVoid } = effects;
    expect(() =>
      loadReleasedParts({
        key: 'support@1',
        parts: releasedParts,
        code: { ...code, eventSchemas: withoutApproved, effects: withoutVoid },
      }),
    ).toThrow(
      'support@1: its release has the event schema of APPROVED, the effect voidAction, which the code given lacks; keep the released one',
    );
    expect(() => loadReleasedParts({ key: 'support@1', parts: { events: {} }, code })).toThrow(
      /^support@1: the released parts are not a parts list/,
    );
  });

  it('report a changed event schema, role, effect builder, input schema or pinned function, naming each', () => {
    const approved = eventSchemas.APPROVED.extend({ note: z.string().max(200).optional() });
    const notifyParams: (typeof effects.notifyCustomer)['params'] = (c) => ({
      deliveryKey: `support-notify:${c.workflowId}`,
      customerId: c.request.customerId,
      template: 'refund-issued-v2',
      amount: c.action.receipt?.amount ?? null,
      currency: c.action.receipt?.currency ?? null,
    });
    const changedExplain = (guard: string) => [guard];
    const changedContext = (input: never) => ({ ...createInitialContext(input), revisions: 1 });
    const v1 = {
      ...supportV1,
      inputSchema: supportInputSchema.extend({ channel: z.string().optional() }),
      eventSchemas: { ...supportV1.eventSchemas, APPROVED: approved },
      eventRoles: { ...supportV1.eventRoles, CANCEL_REQUESTED: ['support_agent'] },
      effects: { ...supportV1.effects, notifyCustomer: { operation: 'notify', params: notifyParams } },
      explainGuard: changedExplain,
      pinnedFunctions: { ...supportV1.pinnedFunctions, createInitialContext: changedContext },
    };
    const pinned = releasedParts;
    const keep = 'keep the released one for support@1 and pin again only a deliberate change';
    const was = (pin: string, now: string, how = keep) =>
      `(pinned ${pin.slice(0, 19)}, now ${now.slice(0, 19)}); ${how}`;
    // One declaration serves every version: the way to keep an event's released schema is a new name for the new one.
    const keepEvent =
      "keep the released one for support@1 (give a later version's changed payload an event of a new name) and pin again only a deliberate change";
    expect(checkWithV1(v1)).toEqual(
      [
        `the creation input's schema is not the one support@1 was released with ${was(pinned.input, schemaFingerprint(v1.inputSchema))}`,
        `the event schema of APPROVED is not the one support@1 was released with ${was(pinned.events.APPROVED.schema, schemaFingerprint(approved), keepEvent)}`,
        `the roles that may send CANCEL_REQUESTED are ["support_agent"], released as ["support_agent","support_reviewer"]; ${keep}`,
        `the job-parameter builder of the effect notifyCustomer is not the one support@1 was released with ${was(pinned.effects.notifyCustomer.params, functionFingerprint(notifyParams))}`,
        `the function createInitialContext is not the one support@1 was released with ${was(pinned.functions.createInitialContext, functionFingerprint(changedContext))}`,
        `the function explainGuard is not the one support@1 was released with ${was(pinned.functions.explainGuard, functionFingerprint(changedExplain))}`,
      ].map((message) => ({ code: 'DEFINITION_CHANGED', message: `support@1: ${message}` })),
    );
  });

  it('report an event type, effect or pinned function added to or gone from a released version', () => {
    const { COMPENSATE: _gone, ...schemas } = supportV1.eventSchemas;
    const { retryPolicies: _policies, ...functions } = supportPinnedFunctions;
    const v1 = {
      ...supportV1,
      eventSchemas: { ...schemas, REOPEN: z.strictObject({}) },
      eventRoles: { ...supportV1.eventRoles, REOPEN: ['support_reviewer'] },
      pinnedFunctions: { ...functions, refundCap: () => 1000 },
      startEvent: null,
    };
    expect(changedParts(v1, 'support@1').map((p) => p.message.split(';')[0])).toEqual([
      'support@1: startEvent is null, released as "START"',
      'support@1: it was released with the event schema of COMPENSATE, which is gone',
      'support@1: it now has the event schema of REOPEN, which its release does not have',
      'support@1: it was released with the function retryPolicies, which is gone',
      'support@1: it now has the function refundCap, which its release does not have',
    ]);
    // The latest version carries no release: nothing to compare.
    expect(changedParts(supportV2, 'support@2')).toEqual([]);
  });

  it('fingerprint a function the same however tsx or vite printed it, and a change differently', () => {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- two spellings of one function, as compilers print it
    const [spaced, tight] = [new Function('e', 'return "actor" in e'), new Function('e', 'return "actor"in e')];
    expect(functionFingerprint(spaced)).toBe(functionFingerprint(tight));
    // An arrow with and without parentheses around its one parameter.
    const [withParens, without] = [(0, eval)('(c) => c.jobs') as unknown, (0, eval)('c => c.jobs') as unknown];
    expect(functionFingerprint(withParens)).toBe(functionFingerprint(without));
    expect(functionFingerprint((c: { jobs: object }) => c.jobs)).not.toBe(
      functionFingerprint((c: { jobs: object }) => ({ ...c.jobs })),
    );
  });
});
