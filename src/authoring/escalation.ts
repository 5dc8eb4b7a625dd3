/**
 * The record a workflow keeps while a person has its case (an escalation, a manual review): why
 * (the reason and step the chart's `escalate` names in its params), what the event that sent it
 * there says, who sent it and when. The chart's dead letter, a failure and a timer all escalate.
 */
import { z } from 'zod';

export const escalationRecord = z.object({
  reason: z.string(),
  detail: z.string().nullable(),
  step: z.string(),
  by: z.string(),
  at: z.number(),
});
export type EscalationRecord = z.infer<typeof escalationRecord>;

const textAt = (payload: unknown, name: string): unknown => (payload as Record<string, unknown> | undefined)?.[name];

/**
 * What an event says of why it escalates: a dead letter's `reason`, a failure's `message`, else
 * `fallback` (the last error the context kept); null when none is a text.
 */
export function escalationDetail(event: { payload?: unknown }, fallback: unknown = null): string | null {
  const detail = textAt(event.payload, 'reason') ?? textAt(event.payload, 'message') ?? fallback;
  return typeof detail === 'string' ? detail : null;
}

/**
 * The escalation an `escalate` update records: `params` as the chart names them (`{ reason, step }`),
 * the event's detail (`escalationDetail`), its sender (`timer` when no one sent it) and its time.
 */
export function escalationOf(
  event: { payload?: unknown; actor?: { id: string }; at: number },
  params: unknown,
  fallback: unknown = null,
): EscalationRecord {
  const { reason, step } = params as { reason: string; step: string };
  const by = event.actor?.id ?? 'timer';
  return { reason, detail: escalationDetail(event, fallback), step, by, at: event.at };
}
