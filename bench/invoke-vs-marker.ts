// `npx tsx bench/invoke-vs-marker.ts`: what a job costs the engine per step when the chart says "work
// with a result" with XState's `invoke` (a child actor, `xstate.done.actor.*` / `xstate.error.actor.*`)
// and with the authoring kit's effect action (a marker action, typed result events). Each round
// rehydrates the persisted snapshot and takes the result transition, as the decider does; the
// rounds alternate so the machine's drift hits both alike. Figures: docs/authoring.md.
import { createActor, fromPromise, initialTransition, setup, transition } from 'xstate';

const machineOf = (invoke: boolean) =>
  setup({
    actors: { stamp: fromPromise(() => Promise.resolve({})) },
    actions: { stamp: () => undefined },
  }).createMachine({
    id: 'm',
    initial: 'idle',
    states: {
      idle: { on: { GO: 'work' } },
      work: invoke
        ? { invoke: { id: 'job', src: 'stamp', onDone: 'done', onError: 'failed' } }
        : { entry: 'stamp', on: { STAMPED: 'done', STAMP_FAILED: 'failed' } },
      done: { type: 'final' },
      failed: { type: 'final' },
    },
  });

const rounds = Number(process.argv[2] ?? 6);
const steps = 3000;
const results: Record<'marker' | 'invoke', { micros: number; bytes: number }[]> = { marker: [], invoke: [] };
for (let round = 0; round < rounds; round++) {
  for (const kind of round % 2 === 0 ? (['marker', 'invoke'] as const) : (['invoke', 'marker'] as const)) {
    const machine = machineOf(kind === 'invoke');
    const [start] = initialTransition(machine, {});
    const [working] = transition(machine, start, { type: 'GO' });
    const persisted = JSON.stringify(machine.getPersistedSnapshot(working));
    const event = kind === 'invoke' ? { type: 'xstate.done.actor.job', output: {} } : { type: 'STAMPED' };
    const t = performance.now();
    for (let i = 0; i < steps; i++) {
      transition(
        machine,
        createActor(machine, { snapshot: JSON.parse(persisted) as never, input: {} }).getSnapshot(),
        event,
      );
    }
    results[kind].push({ micros: ((performance.now() - t) / steps) * 1000, bytes: persisted.length });
  }
}
const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [kind, runs] of Object.entries(results)) {
  console.log(
    `${kind}: ${(median(runs.map((r) => r.micros)) ?? 0).toFixed(1)} µs per step (median of ${rounds}), persisted snapshot ${runs[0]?.bytes ?? 0} bytes`,
  );
}
