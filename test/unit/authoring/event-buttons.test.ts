/**
 * A workflow says how each event a person sends is shown (its button's label, kind and
 * description): the kit's `event(shape, { label, kind })` carries it to the bundle's `view.events`,
 * `defineWorkflow` refuses one no button can show, and every event has one (its type in words,
 * neutral, when the definition says nothing).
 */
import { describe, expect, it } from 'vitest';
import {
  eventPresentationProblems,
  eventTypeInWords,
  presentedEvent,
} from '../../../src/definitions/event-presentation.ts';
import { InvalidWorkflowError } from '../../../src/definitions/define-workflow.ts';
import { signOffWorkflow as signOff } from '../../support/sign-off-workflow.ts';

describe("an event's button", () => {
  it('is declared with the event and reaches the bundle’s view, for the events that say one', () => {
    const bundle = signOff({ label: 'Sign off', kind: 'primary', description: 'Sign the document off.' });
    expect(bundle.view.events).toEqual({
      SIGNED: { label: 'Sign off', kind: 'primary', description: 'Sign the document off.' },
      GIVE_UP: { label: 'Hand over', kind: 'neutral' },
    });
  });

  it('is the definition’s own where it says one, else the event type in words, neutral', () => {
    const { events } = signOff({ label: 'Sign off', kind: 'primary' }).view;
    expect(presentedEvent(events, 'SIGNED')).toEqual({ label: 'Sign off', kind: 'primary' });
    expect(presentedEvent(events, 'WITHDRAWN')).toEqual({ label: 'Withdrawn', kind: 'neutral' });
    expect(presentedEvent(signOff({ kind: 'danger' }).view.events, 'SIGNED')).toEqual({
      label: 'Signed',
      kind: 'danger',
    });
    expect(presentedEvent(undefined, 'REJECTED_BY_REVIEWER')).toEqual({
      label: 'Rejected by reviewer',
      kind: 'neutral',
    });
    // An inherited name is no declaration.
    expect(presentedEvent({}, 'toString')).toEqual({ label: 'To string', kind: 'neutral' });
  });

  it('says an event type in words, in sentence case', () => {
    expect(eventTypeInWords('REJECTED_BY_REVIEWER')).toBe('Rejected by reviewer');
    expect(eventTypeInWords('CANCEL_REQUESTED')).toBe('Cancel requested');
    expect(eventTypeInWords('planApproved')).toBe('Plan approved');
    expect(eventTypeInWords('review.assign')).toBe('Review assign');
    expect(eventTypeInWords('___')).toBe('___');
  });

  it('with a kind outside primary, danger and neutral is refused when the workflow is defined, saying which', () => {
    const defining = () => signOff({ label: 'Sign off', kind: 'positive' as never });
    expect(defining).toThrow(InvalidWorkflowError);
    expect(defining).toThrow(
      `the event SIGNED's kind is "positive": write 'primary' (the way forward: approve, accept), 'danger' (what refuses, ends or cannot be undone: reject, cancel) or 'neutral' (anything else, the default)`,
    );
  });

  it('with an empty or overlong label or description is refused', () => {
    expect(() => signOff({ label: ' ' })).toThrow(
      `the event SIGNED's label is " ": write a text of 1 to 60 characters`,
    );
    expect(() => signOff({ description: 'x'.repeat(301) })).toThrow(
      /the event SIGNED's description is "x+": write a text of 1 to 300 characters/,
    );
  });

  it('for an event none of the versions has is refused: a label nobody sees', () => {
    expect(eventPresentationProblems({ SIGND: { label: 'Sign off' } }, ['SIGNED', 'WITHDRAWN'])).toEqual([
      'view.events names SIGND, which is none of the events (SIGNED, WITHDRAWN): a label for an event nobody sends',
    ]);
    expect(eventPresentationProblems({ SIGNED: { label: 'Sign off', kind: 'danger' } }, ['SIGNED'])).toEqual([]);
  });
});
