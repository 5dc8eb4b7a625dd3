import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { classifyError, EffectError } from '../../../src/effects/effect-errors.ts';
import type { EffectContext } from '../../../src/effects/effect.ts';
import { jobHandler } from '../../../src/effects/handler-kit.ts';

const schemas = {
  DONE: z.strictObject({ jobId: z.string(), total: z.number() }),
  FAILED: z.strictObject({ jobId: z.string(), errorClass: z.string(), retryable: z.boolean() }),
};

function contextFor(params: Record<string, unknown>): EffectContext<never> {
  return {
    job: { workflowId: 'wf-1', jobId: 'wf-1/add/1', type: 'add', operation: 'add', params },
    context: undefined as never,
    now: () => 0,
    signal: new AbortController().signal,
    saveArtifact: () => Promise.reject(new Error('no artifacts')),
    loadArtifact: () => Promise.resolve(null),
  };
}

const add = (run?: () => Promise<never>) =>
  jobHandler<never, { a: number; b: number }>({
    timeoutMs: 20,
    schemas,
    params: z.object({ a: z.number(), b: z.number() }),
    run: run ?? ((params) => Promise.resolve({ type: 'DONE', payload: { total: params.a + params.b } })),
    onError: (_ctx, error) => {
      const { errorClass, retryable } = classifyError(error);
      return { type: 'FAILED', payload: { errorClass, retryable } };
    },
  });

describe('jobHandler', () => {
  it("gives run the job's parsed params and writes the job's id into its event", async () => {
    expect(await add()(contextFor({ a: 1, b: 2 }))).toEqual({
      type: 'DONE',
      payload: { total: 3, jobId: 'wf-1/add/1' },
    });
  });

  it('reports invalid params as a definitive INTERNAL failure, without running', async () => {
    let ran = false;
    const handler = add(() => {
      ran = true;
      return Promise.reject(new Error('ran'));
    });
    expect(await handler(contextFor({ a: 'one', b: 2 }))).toEqual({
      type: 'FAILED',
      payload: { errorClass: 'INTERNAL', retryable: false, jobId: 'wf-1/add/1' },
    });
    expect(ran).toBe(false);
  });

  it('reports a timeout and a failure an external worker reports as the error event, with the job id', async () => {
    const hanging = add(() => new Promise<never>(() => undefined));
    expect(await hanging(contextFor({ a: 1, b: 2 }))).toEqual({
      type: 'FAILED',
      payload: { errorClass: 'TIMEOUT', retryable: true, jobId: 'wf-1/add/1' },
    });
    expect(add().failure?.(contextFor({}), new EffectError('RATE_LIMITED', 'slow down', true))).toEqual({
      type: 'FAILED',
      payload: { errorClass: 'RATE_LIMITED', retryable: true, jobId: 'wf-1/add/1' },
    });
  });
});
