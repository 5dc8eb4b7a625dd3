import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { result } from '../../../src/authoring/index.ts';
import { freshProposalHash, nextProposal, proposalExamples } from '../../../src/authoring/model-proposal.ts';
import { proposalFields, proposalOutcome, proposalRecord } from '../../../src/authoring/model-proposal.ts';
import { contentHashOf } from '../../../src/effects/canonical-json.ts';

const task = {
  name: 'draft',
  promptVersion: 'draft/3',
  instructions: 'Draft.',
  output: z.strictObject({ text: z.string() }),
};
const spec = { name: 'draft', result: 'DRAFTED', giveUp: 'GIVE_UP', who: 'The drafting model' };
const artifact = { id: 'artifact-1', hash: `sha256:${'ab'.repeat(32)}` };
const usage = { promptTokens: 12.4, completionTokens: -3, calls: 0 };

describe('a model proposal as a result', () => {
  it('declares the output under its name, its hash, the artifact, model, prompt version and an optional usage', () => {
    const fields = z.strictObject(proposalFields('draft', { text: z.string().min(1) }));
    const valid = {
      draft: { text: 'hi' },
      draftHash: contentHashOf({ text: 'hi' }),
      artifact,
      model: 'm',
      promptVersion: 'p',
    };
    expect(fields.safeParse(valid).success).toBe(true);
    expect(fields.safeParse({ ...valid, usage: { promptTokens: 1, completionTokens: 1, calls: 1 } }).success).toBe(
      true,
    );
    expect(fields.safeParse({ ...valid, draft: { text: 'hi', extra: 1 } }).success).toBe(false);
    expect(fields.safeParse({ ...valid, draftHash: 'md5:1' }).success).toBe(false);
    const event = result(proposalFields('draft', { text: z.string() }));
    expect(event.schema.safeParse({ ...valid, jobId: 'w-1/draft/1' }).success).toBe(true);
  });

  it('reports a valid answer as the proposal with its content hash and usage within bounds', () => {
    const outcome = proposalOutcome(
      { status: 'valid', output: { text: 'hi' }, model: '', artifact, attempts: 1, usage },
      task,
      spec,
    );
    expect(outcome).toEqual({
      type: 'DRAFTED',
      payload: {
        draft: { text: 'hi' },
        draftHash: contentHashOf({ text: 'hi' }),
        artifact,
        model: 'unknown-model',
        promptVersion: 'draft/3',
        usage: { promptTokens: 12, completionTokens: 0, calls: 1 },
      },
    });
  });

  it('gives an answer still invalid after the repair to the dead letter, naming the model, the artifact and the issues', () => {
    const outcome = proposalOutcome(
      { status: 'invalid', issues: ['text: Required', 'extra key'], model: 'm1', artifact, usage },
      task,
      spec,
    );
    expect(outcome).toEqual({
      type: 'GIVE_UP',
      payload: {
        reason:
          'The drafting model (m1) answered invalid output twice, the second time after a repair request (artifact artifact-1): text: Required; extra key',
      },
    });
  });
});

describe('a proposal result in a path model', () => {
  const proposal = proposalExamples<{ draft: { version: number } | null }>('draft', 'draft/3');
  const payloadOf = (example: ReturnType<typeof proposal>, c: { draft: { version: number } | null }) =>
    example.payload(c);

  it('carries the output, a fresh hash per version, a placeholder artifact and the local model', () => {
    const valid = proposal(() => ({ text: 'hi' }));
    expect(payloadOf(valid, { draft: null })).toEqual({
      draft: { text: 'hi' },
      draftHash: freshProposalHash({ draft: null }, 'draft'),
      artifact: { id: 'artifact-draft', hash: expect.stringMatching(/^sha256:/) as unknown },
      model: 'local',
      promptVersion: 'draft/3',
    });
    expect(freshProposalHash({ draft: { version: 1 } }, 'draft')).not.toBe(freshProposalHash({ draft: null }, 'draft'));
    expect(freshProposalHash({ draft: null }, 'draft')).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('takes another hash given the fresh one, and usage', () => {
    const repeated = proposal(() => ({ text: 'hi' }), { hash: (_, fresh) => `${fresh}!`, usage: { calls: 1 } });
    expect(payloadOf(repeated, { draft: null })).toMatchObject({
      draftHash: `${freshProposalHash({ draft: null }, 'draft')}!`,
      usage: { calls: 1 },
    });
  });
});

describe('a proposal as the context records it', () => {
  it('numbers the versions and keeps the output, its hash, the artifact, model, prompt and time', () => {
    const payload = { draft: { text: 'hi' }, draftHash: 'sha256:h', artifact, model: 'm', promptVersion: 'p', usage };
    const first = nextProposal(null, 'draft', payload, 5);
    expect(first).toEqual({
      version: 1,
      hash: 'sha256:h',
      text: 'hi',
      artifact,
      model: 'm',
      promptVersion: 'p',
      proposedAt: 5,
    });
    expect(nextProposal(first, 'draft', payload, 6)).toMatchObject({ version: 2, proposedAt: 6 });
    expect(proposalRecord({ text: z.string() }).strict().safeParse(first).success).toBe(true);
  });
});
