/**
 * Allocation sampling for a Node process, loaded with `--import`: what every function allocated,
 * including what the garbage collector took back since (`--heap-prof` keeps only what is still
 * alive when the process exits: module code, caches, not the rate a step allocates at), and the
 * time of each kind of collection. On exit it writes `<dir>/alloc.<pid>.heapprofile` (open it in
 * Chrome DevTools, Memory, or sum it with `npx tsx bench/profile-summary.ts <file>`) and
 * `<dir>/gc.<pid>.json`; `<dir>` is `ALLOCATION_SAMPLING_DIR`, else `reports/profile`. Under load:
 * `BENCH_NODE_ARGS="--import $PWD/scripts/allocation-sampling.mjs" npm run bench:http -- --rounds 2 --warmup 100`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const dir = process.env.ALLOCATION_SAMPLING_DIR ?? 'reports/profile';
const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: 16_384,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});

const kinds = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'markCompact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incrementalMarking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakCallbacks',
};
/** @type {Record<string, { count: number, ms: number }>} */
const collections = {};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    /** @type {unknown} */
    const detail = Reflect.get(entry, 'detail');
    const code = typeof detail === 'object' && detail !== null && 'kind' in detail ? Number(detail.kind) : -1;
    const kind = kinds[code] ?? 'other';
    const seen = (collections[kind] ??= { count: 0, ms: 0 });
    seen.count++;
    seen.ms += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

process.on('exit', () => {
  // The in-process session answers at once, so the profile is written before the process ends.
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) return;
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}/alloc.${process.pid}.heapprofile`, JSON.stringify(result.profile));
    writeFileSync(`${dir}/gc.${process.pid}.json`, JSON.stringify({ collections, cpu: process.cpuUsage() }));
  });
});
