/**
 * Checked by `tsc`, never run: an answer that says other than its schema does not compile. Each
 * `@ts-expect-error` fails the typecheck when the line below it stops being an error.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { respond } from '../../src/api/respond.ts';
import { responseSchemas, workflowViewSchema } from '../../src/api/responses.ts';

declare const c: Context;
const page = z.object({ id: z.string(), items: z.array(z.object({ at: z.number(), note: z.string().nullable() })) });

export function answers() {
  const item = { at: 1, note: null };
  respond(c, page, { id: 'a', items: [item] });
  const readOnly: readonly (typeof item)[] = [item];
  respond(c, page, { id: 'a', items: readOnly });

  // @ts-expect-error a field the schema requires is missing
  respond(c, page, { items: [] });
  const extra = { id: 'a', items: [], added: true };
  // @ts-expect-error a field the schema does not name, in a body built elsewhere
  respond(c, page, extra);
  const deep = { id: 'a', items: [{ ...item, added: true }] };
  // @ts-expect-error a field the schema does not name, deep in the body
  respond(c, page, deep);
  // @ts-expect-error a field of the wrong type
  respond(c, page, { id: 1, items: [] });

  const health = { status: 'ok' as const, uptime: 3 };
  // @ts-expect-error the health answer has `status` only
  respond(c, responseSchemas.Health, health);

  const platform = {
    workflowId: 's001-abcdefgh',
    tenantId: 'acme',
    definition: 'support@2',
    version: 1,
    createdAt: '2026-12-02T10:00:00.000Z',
    updatedAt: '2026-12-02T10:00:00.000Z',
    state: ['done'],
  };
  // A definition renders fields of its own beside the platform's.
  respond(c, workflowViewSchema, { ...platform, status: 'finished', result: { outcome: 'done' } });
  // @ts-expect-error an active view has its allowed events and timers
  respond(c, workflowViewSchema, { ...platform, status: 'active' });
}
