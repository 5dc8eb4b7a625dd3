/**
 * bench:routes' parts measured alone, beside the worker's (`routes-parts.ts`), in CPU
 * (`process.cpuUsage()`): a decision, a commit, a wake-up received; and a support workflow's Node
 * CPU by part from the run's lines.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { decideEvent } from '../src/engine/decider.ts';
import { createKeys } from '../src/store/redis/keys.ts';
import type { System } from '../src/system.ts';
import { principals } from '../test/support/principals.ts';
import { assign, commitChain, cpuPer, lanesOf, microsOf, percentile, workflowsInReview } from './lib.ts';
import type { JobParts } from './routes-parts.ts';

/** The median of `rounds` measurements after one that warms up. */
async function medianOf(rounds: number, measure: (round: number) => Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    const value = await measure(round);
    if (round > 0) values.push(value);
  }
  return percentile(
    values.sort((a, b) => a - b),
    50,
  );
}

/**
 * A decision alone (a reviewer's `REVIEW_ASSIGN` on a workflow in manual review, as `npm run bench`'s
 * decide-only) and a commit alone (the same events decided ahead of time), in CPU µs: one at a time,
 * and the commit also at 64 in flight, as `npm run bench` measures it. Medians of `rounds` of `n`.
 */
export async function decisionAndCommitAlone(system: System, n: number, rounds: number) {
  const { engine, store } = system;
  const [inReview = ''] = await workflowsInReview(engine, 1);
  const stored = await store.load(inReview);
  if (!stored) throw new Error('the workflow in review is gone');
  const definition = engine.definitionOf(stored);
  let decided = stored;
  const decision = await medianOf(rounds, () =>
    cpuPer(n, (i) => {
      const outcome = decideEvent({
        definition,
        record: decided,
        event: assign(i),
        principal: principals.reviewer,
        now: decided.updatedAt + 1,
      });
      if (outcome.outcome !== 'accepted') throw new Error(`decision alone refused: ${outcome.code}`);
      decided = outcome.record;
    }),
  );
  const chain = commitChain(stored, n * (rounds + 1), 'alone');
  const commit = await medianOf(rounds, (round) =>
    cpuPer(n, async (i) => {
      const request = chain[round * n + i];
      if (!request || (await store.commit(request)).status !== 'committed') throw new Error('commit alone failed');
    }),
  );
  const lanes = 64;
  const steps = Math.max(20, Math.ceil(n / lanes));
  const chains = await Promise.all(
    (await workflowsInReview(engine, lanes)).map(async (id, lane) => {
      const record = await store.load(id);
      if (!record) throw new Error(`workflow ${id} is gone`);
      return commitChain(record, steps * (rounds + 1), `lane-${lane}`);
    }),
  );
  const commitAt64 = await medianOf(rounds, async (round) => {
    const start = process.cpuUsage();
    await lanesOf(lanes, steps, async (lane, i) => {
      const request = chains[lane]?.[round * steps + i];
      if (!request || (await store.commit(request)).status !== 'committed') throw new Error('commit at 64 failed');
    });
    return microsOf(process.cpuUsage(start)) / (lanes * steps);
  });
  return { decision, commit, commitAt64 };
}

/**
 * A wake-up received, in CPU µs: the message a commit that queues a job publishes (Redis does, in
 * the commit's script), as a worker's subscription receives it (the client's parse, the message
 * split as the runtime does). `redis-cli` publishes them from a process of its own, so only the
 * receiving is counted here.
 */
export async function wakeUpReceived(system: System, redisUrl: string, n: number, rounds: number): Promise<number> {
  const roles = { jobs: true, timers: false };
  const keys = createKeys({ prefix: system.config.WARDEN_PREFIX, shards: system.store.shards });
  const [channel = ''] = keys.wakeChannels(roles);
  let received = 0;
  let arrived: () => void = () => undefined;
  const unsubscribe = await system.subscribeWakeUps((message) => {
    const [shard = '', kinds = 'jt'] = message.split(':');
    if (Number.isInteger(Number(shard)) && kinds.includes('j') && ++received === n) arrived();
  }, roles);
  try {
    return await medianOf(rounds, async () => {
      received = 0;
      let timer: NodeJS.Timeout | undefined;
      const all = new Promise<void>((resolve) => {
        arrived = resolve;
        // Pub/sub is at most once: a lost message fails the line rather than hang it.
        timer = setTimeout(resolve, 30_000);
      });
      const start = process.cpuUsage();
      const publisher = spawn('redis-cli', ['-u', redisUrl, '-r', String(n), 'PUBLISH', channel, '17:j'], {
        stdio: 'ignore',
      });
      const [[code]] = await Promise.all([once(publisher, 'exit') as Promise<[number | null]>, all]);
      const used = microsOf(process.cpuUsage(start));
      clearTimeout(timer);
      if (code !== 0 || received < n) throw new Error(`redis-cli exited with ${code}; ${received} of ${n} arrived`);
      return used / n;
    });
  } finally {
    await unsubscribe();
  }
}

/** One part of a workflow's Node CPU: µs each, how many a workflow has. */
export interface WorkflowPart {
  part: string;
  micros: number;
  count: number;
}

/**
 * A support workflow's Node CPU by part, from this run's lines: its four requests (each with what
 * it decides and commits), its jobs' deliveries and their results' decisions and commits, and any
 * other commit at a decision and a commit alone. The handlers (support's effects) are apart: they
 * are the workflow's own work, not the platform's.
 */
export function workflowParts(input: {
  results: Readonly<Record<string, Readonly<Record<string, number>>>>;
  jobs: readonly JobParts[];
  jobsPerWorkflow: number;
  alone: { decision: number; commit: number; wakeUp: number };
  /** Wake-ups a workflow's commits publish (the `all` process receives each). */
  wakeUpsPerWorkflow: number;
  versionOfFinished: number;
}) {
  const line = (name: string, variant: string) => input.results[name]?.[variant] ?? Number.NaN;
  const jobs = input.jobs.reduce((sum, parts) => sum + parts.jobs, 0);
  const perJob = (part: 'decisionAndCommit' | 'plumbing' | 'handler') =>
    input.jobs.reduce((sum, parts) => sum + parts[part] * parts.jobs, 0) / Math.max(1, jobs);
  const count = input.jobsPerWorkflow;
  // A workflow's version counts its accepted events: the creation's two (one write), the approval,
  // the results; anything else is another decision and commit.
  const others = Math.max(0, input.versionOfFinished - 3 - count);
  const parts: WorkflowPart[] = [
    {
      part: 'creation (its two decisions, one commit, the view)',
      micros: line('POST /v1/workflows (create)', 'request'),
      count: 1,
    },
    {
      part: 'view read (approver)',
      micros: line('GET /v1/workflows/:id (approver): fresh vs cached view', 'cached'),
      count: 1,
    },
    {
      part: 'approval (its decision and commit)',
      micros: line('POST /v1/workflows/:id/events (approval)', 'request'),
      count: 1,
    },
    {
      part: 'long poll (answered at once)',
      micros: line('GET /v1/workflows/:id?afterVersion=0 (long poll, at once)', 'request'),
      count: 1,
    },
    { part: "a job result's decision and commit", micros: perJob('decisionAndCommit'), count },
    { part: 'a job delivery without them (worker plumbing)', micros: perJob('plumbing'), count },
    {
      part: 'another commit (decision and commit alone)',
      micros: input.alone.decision + input.alone.commit,
      count: others,
    },
    {
      part: 'a wake-up received (one process with every role)',
      micros: input.alone.wakeUp,
      count: input.wakeUpsPerWorkflow,
    },
  ];
  const total = parts.reduce((sum, p) => sum + p.micros * p.count, 0);
  return {
    parts,
    totalMicros: total,
    handlerMicros: perJob('handler') * count,
    versionOfFinished: input.versionOfFinished,
  };
}
