import { describe, expect, it } from 'vitest';
import { createEffectHandlers, createOfflineEffectDeps } from '../../../machines/support/effects/index.ts';
import {
  approvedForAction,
  ArtifactMemory,
  contextAfterEvidence,
  effectContext,
  expectEvent,
  runHandler,
  runJob,
  withRecommendation,
} from './support/effect-world.ts';

/** Offline handlers and a context approved for the refund, built by running the real handlers. */
async function approved() {
  const deps = createOfflineEffectDeps();
  const handlers = createEffectHandlers(deps);
  const artifacts = new ArtifactMemory();
  const evidence = await contextAfterEvidence(handlers, artifacts);
  const generated = expectEvent(
    await runJob(handlers, 'requestRecommendation', evidence, { artifacts }),
    'RECOMMENDATION_GENERATED',
  );
  return { deps, handlers, artifacts, context: approvedForAction(withRecommendation(evidence, generated)) };
}

describe('a redelivered refund job', () => {
  it('asks the provider before acting again, and reports the refund a dead worker made', async () => {
    const { deps, handlers, artifacts, context } = await approved();

    // The first worker refunded, then died before its result was committed.
    const first = expectEvent(await runJob(handlers, 'executeRefund', context, { artifacts }), 'ACTION_EXECUTED');
    const execute = deps.actions.execute.bind(deps.actions);
    let executions = 0;
    deps.actions.execute = (...args) => {
      executions++;
      return execute(...args);
    };
    const job = effectContext('executeRefund', context, { artifacts });
    const again = await runHandler(handlers.executeRefund, { ...job, job: { ...job.job, deliveries: 2 } });
    expect(expectEvent(again, 'ACTION_EXECUTED').receipt).toEqual(first.receipt);
    expect(executions).toBe(0);
    expect(await deps.actions.refunds()).toHaveLength(1);
  });

  it('executes under the same key when the provider never saw the first delivery', async () => {
    const { deps, handlers, artifacts, context } = await approved();
    const job = effectContext('executeRefund', context, { artifacts });
    expectEvent(
      await runHandler(handlers.executeRefund, { ...job, job: { ...job.job, deliveries: 3 } }),
      'ACTION_EXECUTED',
    );
    expect(await deps.actions.refunds()).toHaveLength(1);
  });
});
