/**
 * The console's presentation of a kit workflow, derived from its view: facts, confirmations and
 * artifact notes are written as templates over the rendered view (`'v{plan.version} by
 * {approval.approverId}'`) or as functions of the context, and the payload fields a person's
 * decision names (`planVersion`, `planHash`) are pre-filled from the view (`plan.version`, `plan.hash`).
 */
import { z } from 'zod';
import { presentOver, type Rendered } from '../definitions/present-over.ts';
import type { Presentation } from '../definitions/workflow.ts';
import type { WorkflowRecord } from '../engine/decision.ts';

/**
 * A text of the presentation: a template whose `{path}` is the rendered view's value there (text as
 * is, a list joined with `; `, an object as JSON) and `{path?yes|no}` one of two words by whether it
 * is true, left out when a value is missing (null, undefined, empty), except inside `[…]`, an
 * optional part left out alone; or a function of the context (null or undefined: left out).
 */
export type Shown<TContext> = string | ((context: TContext, record: WorkflowRecord) => string | null | undefined);

export interface PresentationSpec<TContext> {
  /** The evidence card, in order, by label; `{ value, supporting: true }` for a model's rationale (not proof). */
  facts?: Readonly<Record<string, Shown<TContext> | { value: Shown<TContext>; supporting: true }>>;
  /** What the confirmation dialog says before an event type is sent. */
  confirm?: Readonly<Record<string, Shown<TContext>>>;
  /** What the latest accepted event of a type brought in, for the audit timeline. */
  artifacts?: Readonly<Record<string, Shown<TContext>>>;
  /** Payload fields the console fills in by event type, beyond (or instead of) the derived ones. */
  prefill?(context: TContext, record: WorkflowRecord): Record<string, Record<string, unknown>>;
}

const placeholder = /\{([A-Za-z0-9_.]+)(?:\?([^|}]*)\|([^}]*))?\}/g;
const part = new RegExp(`\\[([^\\]]*)\\]|${placeholder.source}`, 'g');

function valueAt(view: unknown, path: string | readonly string[]): unknown {
  let value = view;
  for (const key of typeof path === 'string' ? path.split('.') : path) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

function text(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (Array.isArray(value)) return value.length === 0 ? null : value.map((v) => text(v) ?? '').join('; ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A placeholder: the view's value at `path`, or with `yes`, one of two words by whether it is true. */
interface Slot {
  path: readonly string[];
  yes: string | undefined;
  no: string;
}
/** Text as is, a placeholder, or an optional part (`[…]`, left out alone when one of its placeholders has no value). */
type Segment = string | Slot | { optional: readonly (string | Slot)[] };

function slotOf(path: string, yes: string | undefined, no: string | undefined): Slot {
  return { path: path.split('.'), yes, no: no ?? '' };
}

function shownAt(slot: Slot, view: unknown): string | null {
  const value = valueAt(view, slot.path);
  return slot.yes === undefined || value === null || value === undefined
    ? text(value)
    : value === true
      ? slot.yes
      : slot.no;
}

/** The segments of a template, read once: a value filled in is never read as a template again (a reason a person typed may hold braces). */
function compile(template: string): readonly Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  for (const match of template.matchAll(part)) {
    if (match.index > at) segments.push(template.slice(at, match.index));
    at = match.index + match[0].length;
    const [, optional, path, yes, no] = match;
    if (optional === undefined) {
      segments.push(slotOf(path ?? '', yes, no));
      continue;
    }
    const pieces: (string | Slot)[] = [];
    let inner = 0;
    for (const found of optional.matchAll(placeholder)) {
      if (found.index > inner) pieces.push(optional.slice(inner, found.index));
      inner = found.index + found[0].length;
      pieces.push(slotOf(found[1] ?? '', found[2], found[3]));
    }
    if (inner < optional.length) pieces.push(optional.slice(inner));
    segments.push({ optional: pieces });
  }
  if (at < template.length) segments.push(template.slice(at));
  return segments;
}

/** Templates read so far (a definition's are few); emptied when it holds too many to be a definition's. */
const compiled = new Map<string, readonly Segment[]>();
const maxCompiled = 4096;

/** A template filled from `view`, or null when a placeholder outside `[…]` has no value. */
export function fillTemplate(template: string, view: unknown): string | null {
  let segments = compiled.get(template);
  if (!segments) {
    if (compiled.size >= maxCompiled) compiled.clear();
    segments = compile(template);
    compiled.set(template, segments);
  }
  let filled = '';
  for (const segment of segments) {
    if (typeof segment === 'string') filled += segment;
    else if ('path' in segment) {
      const one = shownAt(segment, view);
      if (one === null) return null;
      filled += one;
    } else {
      let optional = '';
      for (const piece of segment.optional) {
        const one = typeof piece === 'string' ? piece : shownAt(piece, view);
        if (one === null) {
          optional = '';
          break;
        }
        optional += one;
      }
      filled += optional;
    }
  }
  return filled;
}

/**
 * Each payload field of a person's event that names a view field by its parts: `planVersion` is
 * `plan.version`, `recommendationContentHash` is `recommendation.contentHash`, when that is a text,
 * number or boolean.
 */
export function derivedPrefill(
  eventFields: Readonly<Record<string, readonly string[]>>,
  view: unknown,
): Record<string, Record<string, unknown>> {
  const prefill: Record<string, Record<string, unknown>> = {};
  for (const [type, fields] of Object.entries(eventFields)) {
    for (const field of fields) {
      const match = /^([a-z][a-z0-9]*)([A-Z])(\w*)$/.exec(field);
      if (!match) continue;
      const [, head = '', first = '', rest = ''] = match;
      const value = valueAt(view, `${head}.${first.toLowerCase()}${rest}`);
      if (['string', 'number', 'boolean'].includes(typeof value)) (prefill[type] ??= {})[field] = value;
    }
  }
  return prefill;
}

/** The presentation of `spec` over the rendered `view`. */
export function presentationOf<TContext>(
  spec: PresentationSpec<TContext>,
  eventFields: Readonly<Record<string, readonly string[]>>,
  view: unknown,
  context: TContext,
  record: WorkflowRecord,
): Presentation {
  const show = (shown: Shown<TContext>) =>
    typeof shown === 'string' ? fillTemplate(shown, view) : (shown(context, record) ?? null);
  const shownAll = (texts: Readonly<Record<string, Shown<TContext>>> = {}) =>
    Object.fromEntries(
      Object.entries(texts).flatMap(([key, shown]) => {
        const value = show(shown);
        return value === null ? [] : [[key, value]];
      }),
    );
  const facts = Object.entries(spec.facts ?? {}).flatMap(([label, fact]): Presentation['facts'] => {
    const value = show(typeof fact === 'object' ? fact.value : fact);
    if (value === null) return [];
    return [typeof fact === 'object' ? { label, value, supporting: true } : { label, value }];
  });
  const prefill = derivedPrefill(eventFields, view);
  for (const [type, fields] of Object.entries(spec.prefill?.(context, record) ?? {}))
    prefill[type] = { ...prefill[type], ...fields };
  return { facts, prefill, confirm: shownAll(spec.confirm), artifacts: shownAll(spec.artifacts) };
}

/**
 * A view's `present` from its presentation spec: over what `render` returns, with the payloads of
 * the person events (`personEvents`, their schemas by type) pre-filled from the view. `workflow()`
 * gives a kit view this; a workflow bundled with `defineWorkflow` calls it itself.
 */
export function presentFromSpec<TContext>(
  spec: PresentationSpec<TContext>,
  personEvents: Readonly<Record<string, z.ZodType>>,
  render: (context: TContext, record: WorkflowRecord) => unknown,
): (context: TContext, record: WorkflowRecord, rendered?: Rendered) => Presentation {
  const fields = Object.fromEntries(
    Object.entries(personEvents).flatMap(([type, schema]) =>
      schema instanceof z.ZodObject ? [[type, Object.keys(schema.shape)]] : [],
    ),
  );
  // Handed what `render` returned for the same context and record (the API's view has it), it does not render again.
  const present = (context: TContext, record: WorkflowRecord, rendered?: Rendered) =>
    presentationOf(spec, fields, rendered ? rendered.view : render(context, record), context, record);
  return presentOver(present, render);
}
