import { describe, expect, it } from 'vitest';
import type { ModelCallOptions, ModelClient, ModelResponse } from '../../../src/effects/model-client.ts';
import { createEffectHandlers, createOfflineEffectDeps } from '../../../machines/support/effects/index.ts';
import { ArtifactMemory, contextAfterEvidence, expectEvent, runJob, supportContext } from './support/effect-world.ts';

/** A model that gives scripted answers in order and remembers the tasks and repair requests it got. */
function scriptedModel(answers: unknown[]): ModelClient & { calls: ModelCallOptions[]; tasks: string[] } {
  const calls: ModelCallOptions[] = [];
  const tasks: string[] = [];
  return {
    calls,
    tasks,
    complete: (task, _input, options): Promise<ModelResponse> => {
      calls.push(options);
      tasks.push(task.name);
      const output = answers.shift();
      return Promise.resolve({ output, usage: { promptTokens: 10, completionTokens: 5 }, model: 'scripted-1' });
    },
  };
}

function handlersWith(model: ModelClient) {
  return createEffectHandlers({ ...createOfflineEffectDeps(), model });
}

describe('model output validation and repair', () => {
  it('repairs an invalid classification once and references the repaired call', async () => {
    const model = scriptedModel([
      { category: 'refunds', confidence: 2 },
      { category: 'billing', confidence: 0.66 },
    ]);
    const artifacts = new ArtifactMemory();
    const event = await runJob(handlersWith(model), 'requestClassification', supportContext(), { artifacts });

    const classified = expectEvent(event, 'CLASSIFIED');
    expect(classified).toMatchObject({ category: 'billing', confidence: 0.66, model: 'scripted-1' });
    expect(model.tasks).toEqual(['classify', 'classify']);
    expect(model.calls[0]?.repair).toBeUndefined();
    expect(model.calls[1]?.repair?.previousOutput).toEqual({ category: 'refunds', confidence: 2 });
    expect(model.calls[1]?.repair?.issues).toEqual([
      expect.stringMatching(/^category: /),
      expect.stringMatching(/^confidence: /),
    ]);
    const calls = artifacts.ofKind('model-call');
    expect(calls.map((call) => call.content)).toEqual([
      expect.objectContaining({ attempt: 1, invalidOutput: { category: 'refunds', confidence: 2 } }),
      expect.objectContaining({ attempt: 2, output: { category: 'billing', confidence: 0.66 } }),
    ]);
    expect(classified.artifact).toEqual({ id: calls[1]!.id, hash: calls[1]!.hash });
    expect(calls[1]!.content).toMatchObject({
      model: 'scripted-1',
      promptVersion: 'classify@1',
      usage: { promptTokens: 10, completionTokens: 5 },
      latencyMs: 0,
    });
  });

  it('escalates when the repaired answer is still invalid, after exactly two calls', async () => {
    const model = scriptedModel([
      'I think it is billing',
      { category: 'billing' },
      { category: 'billing', confidence: 1 },
    ]);
    const artifacts = new ArtifactMemory();
    const event = await runJob(handlersWith(model), 'requestClassification', supportContext(), { artifacts });

    const escalation = expectEvent(event, 'ESCALATE');
    expect(escalation.jobId).toBe('wf-effects/classify/1');
    expect(escalation.reason).toContain('confidence');
    expect(escalation.questions).toHaveLength(1);
    expect(model.calls).toHaveLength(2);
    const calls = artifacts.ofKind('model-call');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.content).toMatchObject({ attempt: 2, invalidOutput: { category: 'billing' } });
  });

  it('escalates a recommendation whose amount has more than two decimals twice', async () => {
    const bad = { actionType: 'refund', amount: 12.345, currency: 'EUR', rationale: 'Double charge.' };
    const model = scriptedModel([bad, bad]);
    const handlers = handlersWith(model);
    const artifacts = new ArtifactMemory();
    const context = await contextAfterEvidence(createEffectHandlers(createOfflineEffectDeps()), artifacts);
    const event = await runJob(handlers, 'requestRecommendation', context, { artifacts });

    expect(expectEvent(event, 'ESCALATE').reason).toContain('at most two decimals');
    expect(model.tasks).toEqual(['recommend', 'recommend']);
    expect(model.calls[1]?.repair?.issues).toEqual(['amount: at most two decimals']);
  });
});
