/**
 * `GET /v1/workflows/:id?afterVersion=N&waitMs=M`: a view read that waits for the workflow's next
 * version, woken by the commit watch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommitWatch } from '../../src/runtime/commit-watch.ts';
import { apiWorld, approvalBody, refundRequest, type ApiWorld } from './support.ts';

type View = {
  workflowId: string;
  version: number;
  status: string;
  evidence: { recommendation: { version: number; contentHash: string; amount: number } };
};

let w: ApiWorld;
beforeAll(async () => {
  w = await apiWorld();
});
afterAll(async () => {
  await w.stop();
});

async function awaitingApproval(world = w): Promise<View> {
  const response = await world.call('POST', '/v1/workflows', { token: world.tokens.agent, body: refundRequest });
  expect(response.status).toBe(201);
  const { workflowId } = await world.json<View>(response);
  return (await world.waitFor(workflowId, 'awaitingApproval', world.tokens.approver)) as View;
}

const approve = (world: ApiWorld, view: View) =>
  world.call('POST', `/v1/workflows/${view.workflowId}/events`, {
    token: world.tokens.approver,
    body: approvalBody(view),
  });

/** Settles the promise's state without waiting for it: 'pending' or 'settled'. */
async function stateOf(promise: Promise<unknown>): Promise<'pending' | 'settled'> {
  const pending = Symbol('pending');
  const winner = await Promise.race([promise.then(() => 'settled' as const), Promise.resolve(pending)]);
  return winner === pending ? 'pending' : 'settled';
}

/** A workflow awaiting approval, approved while the agent's read (`query`) waits; the read's answer. */
async function approvedWhileWaiting(query: (view: View) => string) {
  const view = await awaitingApproval();
  const read = w.call('GET', `/v1/workflows/${view.workflowId}?${query(view)}&waitMs=60000`, {
    token: w.tokens.agent,
  });
  await new Promise((resolve) => setTimeout(resolve, 30));
  expect(await stateOf(read)).toBe('pending');
  expect((await approve(w, view)).status).toBe(200);
  return { view, answer: await read };
}

describe('a long-polled view', () => {
  it('answers at the next commit with the newer version, woken by the commit watch', async () => {
    const { view, answer } = await approvedWhileWaiting((v) => `afterVersion=${v.version}`);
    expect(answer.status).toBe(200);
    const next = await w.json<View>(answer);
    expect(next.version).toBeGreaterThan(view.version);
    expect(answer.headers.get('etag')).toBe(`"${next.version}"`);
    expect(w.system.commits.waiting).toBe(0);
  });

  it('answers at once when the workflow is already past the version, or finished', async () => {
    const view = await awaitingApproval();
    const behind = await w.call('GET', `/v1/workflows/${view.workflowId}?afterVersion=1&waitMs=60000`, {
      token: w.tokens.agent,
    });
    expect((await w.json<View>(behind)).version).toBe(view.version);
    await approve(w, view);
    const done = (await w.waitFor(view.workflowId, 'completed')) as View;
    const finished = await w.call('GET', `/v1/workflows/${view.workflowId}?afterVersion=${done.version}&waitMs=60000`, {
      token: w.tokens.agent,
    });
    expect(finished.status).toBe(200);
    expect((await w.json<View>(finished)).status).toBe('finished');
  });

  it('answers the unchanged view when waitMs passes, and at once with waitMs=0', async () => {
    const view = await awaitingApproval();
    for (const waitMs of [0, 40]) {
      const answer = await w.call(
        'GET',
        `/v1/workflows/${view.workflowId}?afterVersion=${view.version}&waitMs=${waitMs}`,
        {
          token: w.tokens.agent,
        },
      );
      expect(answer.status).toBe(200);
      expect((await w.json<View>(answer)).version).toBe(view.version);
    }
    expect(w.system.commits.waiting).toBe(0);
  });

  it('refuses what it cannot wait for with 400, and another tenant’s workflow is 404', async () => {
    const view = await awaitingApproval();
    const cases: [string, string][] = [
      [`afterVersion=${view.version + 1}`, 'past the workflow'],
      [`afterVersion=${view.version}&until=finished`, 'two kinds of wait'],
      ['until=approved', 'finished'],
      ['waitMs=100', 'needs afterVersion'],
      ['afterVersion=1&waitMs=60001', 'at most'],
      ['afterVersion=-1', 'version number'],
      ['afterVersion=abc', 'version number'],
      ['afterVersion=1&waitMs=soon', 'milliseconds'],
    ];
    for (const [query, message] of cases) {
      const answer = await w.call('GET', `/v1/workflows/${view.workflowId}?${query}`, { token: w.tokens.agent });
      expect(answer.status, query).toBe(400);
      const body = await w.json<{ error: { code: string; message: string; details: unknown } }>(answer);
      expect(body.error.code).toBe('BAD_REQUEST');
      expect(JSON.stringify(body.error), query).toContain(message);
    }
    const other = await w.call('GET', `/v1/workflows/${view.workflowId}?afterVersion=${view.version}&waitMs=60000`, {
      token: w.tokens.otherAgent,
    });
    expect(other.status).toBe(404);
    expect(w.system.commits.waiting).toBe(0);
  });

  it('stops waiting when the caller goes away', async () => {
    const view = await awaitingApproval();
    const controller = new AbortController();
    const read = w.app.request(`/v1/workflows/${view.workflowId}?afterVersion=${view.version}&waitMs=60000`, {
      headers: { Authorization: `Bearer ${w.tokens.agent}` },
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(w.system.commits.waiting).toBe(1);
    controller.abort();
    await Promise.resolve(read).catch(() => undefined);
    expect(w.system.commits.waiting).toBe(0);
  });
});

describe('a read that waits until the workflow has finished', () => {
  it('waits through the versions before the last and answers with the finished view', async () => {
    const { view, answer } = await approvedWhileWaiting(() => 'until=finished');
    expect(answer.status).toBe(200);
    const done = await w.json<View>(answer);
    expect(done.status).toBe('finished');
    // The refund and the notification came between the approval and the end: it waited through them.
    expect(done.version).toBeGreaterThan(view.version + 1);
    expect(w.system.commits.waiting).toBe(0);
  });

  it('answers at once for a finished workflow, and the unfinished view when waitMs passes', async () => {
    const view = await awaitingApproval();
    const early = await w.call('GET', `/v1/workflows/${view.workflowId}?until=finished&waitMs=40`, {
      token: w.tokens.agent,
    });
    expect(early.status).toBe(200);
    expect((await w.json<View>(early)).status).toBe('active');
    await approve(w, view);
    await w.waitFor(view.workflowId, 'completed');
    const late = await w.call('GET', `/v1/workflows/${view.workflowId}?until=finished&waitMs=60000`, {
      token: w.tokens.agent,
    });
    expect((await w.json<View>(late)).status).toBe('finished');
  });
});

/** A workflow awaiting approval and the agent's read waiting for its next version (started, not answered). */
async function oneWaiting(world: ApiWorld) {
  const view = await awaitingApproval(world);
  const path = `/v1/workflows/${view.workflowId}?afterVersion=${view.version}&waitMs=60000`;
  const first = world.call('GET', path, { token: world.tokens.agent });
  await new Promise((resolve) => setTimeout(resolve, 30));
  return { view, path, first };
}

describe('waiting reads per caller, and the watch they use', () => {
  it('limits waiting reads per principal with 429, and frees the place when one answers', async () => {
    const world = await apiWorld({ maxWaitsPerPrincipal: 1 });
    try {
      const { view, path, first } = await oneWaiting(world);
      const second = await world.call('GET', path, { token: world.tokens.agent });
      expect(second.status).toBe(429);
      expect((await world.json<{ error: { code: string } }>(second)).error.code).toBe('RATE_LIMITED');
      // Another principal has places of its own.
      const approverRead = world.call('GET', path, { token: world.tokens.approver });
      await approve(world, view);
      expect((await first).status).toBe(200);
      expect((await approverRead).status).toBe(200);
      // The place is free again: a read that waits is let in (and answers after its 50 ms).
      const current = (await world.json<View>(await world.call('GET', path, { token: world.tokens.agent }))).version;
      const again = await world.call('GET', `/v1/workflows/${view.workflowId}?afterVersion=${current}&waitMs=50`, {
        token: world.tokens.agent,
      });
      expect(again.status).toBe(200);
    } finally {
      await world.stop();
    }
  });

  it('is woken by the watch, not by polling: a watch that is never told keeps it waiting', async () => {
    let wake: (() => void) | null = null;
    const silent: CommitWatch = {
      waiting: 0,
      wakeAll: () => undefined,
      next: () =>
        new Promise<void>((resolve) => {
          wake = resolve;
        }),
    };
    const world = await apiWorld({ commits: silent, streamPollMs: 5 });
    try {
      const view = await awaitingApproval(world);
      const read = world.call('GET', `/v1/workflows/${view.workflowId}?afterVersion=${view.version}&waitMs=60000`, {
        token: world.tokens.agent,
      });
      await approve(world, view);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await stateOf(read)).toBe('pending');
      (wake as (() => void) | null)?.();
      const answer = await world.json<View>(await read);
      expect(answer.version).toBeGreaterThan(view.version);
    } finally {
      await world.stop();
    }
  });

  it('answers 503 beyond the waiting reads one process holds in all, whoever asks', async () => {
    const world = await apiWorld({ maxWaits: 1 });
    try {
      const { view, path, first } = await oneWaiting(world);
      const other = await world.call('GET', path, { token: world.tokens.approver });
      expect(other.status).toBe(503);
      expect(other.headers.get('retry-after')).toBe('1');
      expect((await world.json<{ error: { code: string } }>(other)).error.code).toBe('UNAVAILABLE');
      await approve(world, view);
      expect((await first).status).toBe(200);
    } finally {
      await world.stop();
    }
  });

  it('answers every waiting read when the watch wakes them all (the server stopping)', async () => {
    let stopping = false;
    const world = await apiWorld({ isShuttingDown: () => stopping });
    try {
      const view = await awaitingApproval(world);
      const read = world.call('GET', `/v1/workflows/${view.workflowId}?afterVersion=${view.version}&waitMs=60000`, {
        token: world.tokens.agent,
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(await stateOf(read)).toBe('pending');
      stopping = true;
      world.system.commits.wakeAll();
      const answer = await read;
      expect(answer.status).toBe(200);
      expect((await world.json<View>(answer)).version).toBe(view.version);
    } finally {
      await world.stop();
    }
  });

  it('is woken by the memory store’s commits through the system’s watch (its own wait is an hour)', async () => {
    const view = await awaitingApproval();
    const woken = w.system.commits.next(view.workflowId, view.version, 3_600_000);
    expect(await stateOf(woken)).toBe('pending');
    await approve(w, view);
    await woken;
  });
});
