import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { keywordPlanner } from '../../../src/authoring/keyword-planner.ts';

const planner = keywordPlanner({
  input: z.strictObject({ title: z.string(), body: z.string(), wanted: z.string().optional() }),
  request: ({ title, body, wanted }) => ({ title, text: body, operation: wanted, parameters: { title } }),
  rules: [
    [/\b(refund|credit\w*)\b/i, 'refund'],
    [/\b(tag)\b/i, 'tag'],
  ],
});

describe('keywordPlanner', () => {
  it('plans the operation the request names, with its parameters', () => {
    expect(planner({ title: 'T', body: 'refund it', wanted: 'tag' })).toEqual({
      operation: 'tag',
      parameters: { title: 'T' },
      rationale: 'The requester asked for tag: "T".',
    });
  });

  it('else the first rule its text matches, naming the rule’s words', () => {
    expect(planner({ title: 'T', body: 'Please tag and credit them' })).toEqual({
      operation: 'refund',
      parameters: { title: 'T' },
      rationale: 'The task mentions refund|credit: refund fits "T".',
    });
  });

  it('answers without an operation when no rule matches or the input is not readable', () => {
    expect(planner({ title: 'T', body: 'hello' })).toEqual({
      parameters: { title: 'T' },
      rationale: 'No catalogue operation matches this task.',
    });
    expect(planner({ title: 7 })).toEqual({ rationale: 'the planning input could not be read' });
  });
});
