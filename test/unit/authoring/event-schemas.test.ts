import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  deadLetter,
  event,
  eventSchemasOf,
  failure,
  payloadReaders,
  personEventsOf,
  result,
} from '../../../src/authoring/events.ts';

const events = {
  SCORED: result({ score: z.number() }),
  APPROVED: event({ note: z.string() }, { roles: ['approver'] }),
  FAILED: failure({ flat: true, retryable: true }),
  GIVE_UP: deadLetter({ fields: { questions: z.array(z.string()).optional() } }),
};

describe('eventSchemasOf', () => {
  it('gives each declared event its schema, the job id a result names included', () => {
    const schemas = eventSchemasOf(events);
    expect(Object.keys(schemas)).toEqual(['SCORED', 'APPROVED', 'FAILED', 'GIVE_UP']);
    expect(schemas.SCORED).toBe(events.SCORED.schema);
    expect(schemas.SCORED.safeParse({ score: 1, jobId: 'wf/score/1' }).success).toBe(true);
    expect(schemas.SCORED.safeParse({ score: 1 }).success).toBe(false);
    expect(schemas.GIVE_UP.safeParse({ reason: 'stuck', questions: ['why?'] }).success).toBe(true);
  });

  it('keeps each schema a z.ZodObject with its shape, so it can be extended or cut', () => {
    const schemas = eventSchemasOf(events);
    expect(Object.keys(schemas.APPROVED.shape)).toEqual(['note']);
    expect(Object.keys(schemas.SCORED.omit({ jobId: true }).shape)).toEqual(['score']);
    expectTypeOf(schemas.APPROVED.shape.note).toEqualTypeOf<z.ZodString>();
  });

  it('with start, puts START and its empty payload first', () => {
    const schemas = eventSchemasOf(events, { start: true });
    expect(Object.keys(schemas)[0]).toBe('START');
    expect(schemas.START.safeParse({}).success).toBe(true);
    expect(schemas.START.safeParse({ extra: 1 }).success).toBe(false);
  });

  it('keeps a job id the shape names first where it was written', () => {
    const schema = result({ jobId: z.string(), score: z.number() }).schema;
    expect(Object.keys(schema.shape)).toEqual(['jobId', 'score']);
  });
});

describe('personEventsOf', () => {
  it('lists the people’s events a model may not propose, in the order declared', () => {
    const declared = {
      ...events,
      ASSIGNED: event({ owner: z.string() }, { roles: ['reviewer'], byModel: true }),
      CANCELLED: event({}, { roles: ['agent'] }),
    };
    expect(personEventsOf(declared)).toEqual(['APPROVED', 'CANCELLED']);
  });
});

describe('payloadReaders', () => {
  const { payloadOf, payloadField } = payloadReaders(events);

  it('reads the payload of an event of the type asked, typed by its declaration', () => {
    const approved = { type: 'APPROVED', payload: { note: 'fine' } };
    expect(payloadOf(approved, 'APPROVED')?.note).toBe('fine');
    expectTypeOf(payloadOf(approved, 'APPROVED')).toEqualTypeOf<{ note: string } | null>();
    expect(payloadOf(approved, 'SCORED')).toBeNull();
  });

  it('reads one field of any payload, undefined for an event without one (a timer)', () => {
    expect(payloadField({ type: 'SCORED', payload: { score: 3 } }, 'score')).toBe(3);
    expect(payloadField({ type: 'xstate.after.t', eventId: 'e', at: 0 }, 'score')).toBeUndefined();
  });
});
