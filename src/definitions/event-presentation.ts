/**
 * How an event is shown to the person who may send it: the words on its button (`label`), its style
 * (`kind`) and, if the definition says one, a line on what it does (`description`). A workflow
 * declares them by event type in its view (`view.events`; the authoring kit's `event(shape, { label,
 * kind })`), and the API gives every event one: the definition's own, or its type in words, neutral.
 *
 * Presentation, not behaviour: none of it is part of a definition version, so a label changes
 * without a new version and no released version's pins or parts move.
 */
import { z } from 'zod';

/**
 * How a button is styled, by what it does: `primary` the way forward (approve, accept, complete),
 * `danger` what refuses, ends or cannot be undone (reject, cancel, compensate), `neutral` the rest
 * (request changes, escalate, assign).
 */
export const eventButtonKinds = ['primary', 'danger', 'neutral'] as const;
export type EventButtonKind = (typeof eventButtonKinds)[number];

/** What a definition declares of one event type's presentation: each part optional. */
export interface DeclaredEventPresentation {
  /** The button's words, e.g. `Approve refund` (at most 60 characters). */
  label?: string;
  /** `primary`, `danger` or `neutral` (the default). */
  kind?: EventButtonKind;
  /** One line on what sending it does, shown as the button's hint (at most 300 characters). */
  description?: string;
}

/** An event type's presentation as the API gives it: a label and a kind always. */
export interface EventPresentation {
  label: string;
  kind: EventButtonKind;
  description?: string;
}

const maxLabel = 60;
const maxDescription = 300;

/** The API's description of an event's presentation (the workflow view's `allowedEvents`, `GET /v1/definitions`). */
export const eventPresentationSchema = z.object({
  label: z
    .string()
    .describe('The button’s words: the definition’s own label, else the event type in words (`Rejected by reviewer`)'),
  kind: z
    .enum(eventButtonKinds)
    .describe(
      'How the button is styled: `primary` the way forward, `danger` what refuses, ends or cannot be undone, `neutral` the rest (the default)',
    ),
  description: z.string().optional().describe('What sending it does, when the definition says'),
});

/**
 * An event type in words, in sentence case: `REJECTED_BY_REVIEWER` "Rejected by reviewer",
 * `planApproved` "Plan approved".
 */
export function eventTypeInWords(type: string): string {
  const words = type
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
  const text = words.join(' ');
  return text === '' ? type : text.charAt(0).toUpperCase() + text.slice(1);
}

/** `type`'s presentation: what `declared` says of it, the rest by default (its type in words, neutral). */
export function presentedEvent(
  declared: Readonly<Record<string, DeclaredEventPresentation>> | undefined,
  type: string,
): EventPresentation {
  const own = declared && Object.hasOwn(declared, type) ? declared[type] : undefined;
  return {
    label: own?.label ?? eventTypeInWords(type),
    kind: own?.kind ?? 'neutral',
    ...(own?.description === undefined ? {} : { description: own.description }),
  };
}

/**
 * What is wrong with a definition's declared presentations: an event type none of its versions has,
 * a kind outside the three, an empty or overlong label or description. Checked by `defineWorkflow`.
 */
export function eventPresentationProblems(
  declared: Readonly<Record<string, DeclaredEventPresentation>>,
  eventTypes: readonly string[],
): string[] {
  const problems: string[] = [];
  for (const [type, shown] of Object.entries(declared)) {
    if (!eventTypes.includes(type)) {
      problems.push(
        `view.events names ${type}, which is none of the events (${eventTypes.join(', ')}): a label for an event nobody sends`,
      );
      continue;
    }
    const { label, kind, description } = shown as { label?: unknown; kind?: unknown; description?: unknown };
    if (kind !== undefined && !eventButtonKinds.some((k) => k === kind)) {
      problems.push(
        `the event ${type}'s kind is ${JSON.stringify(kind)}: write 'primary' (the way forward: approve, accept), 'danger' (what refuses, ends or cannot be undone: reject, cancel) or 'neutral' (anything else, the default)`,
      );
    }
    for (const [field, value, max] of [
      ['label', label, maxLabel],
      ['description', description, maxDescription],
    ] as const) {
      if (value === undefined) continue;
      if (typeof value !== 'string' || value.trim() === '' || value.length > max) {
        problems.push(
          `the event ${type}'s ${field} is ${JSON.stringify(value)}: write a text of 1 to ${max} characters`,
        );
      }
    }
  }
  return problems;
}
