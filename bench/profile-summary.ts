/**
 * `npx tsx bench/profile-summary.ts <file.cpuprofile|file.heapprofile> [--top N]`: a profile
 * written by `--cpu-prof` or by `scripts/allocation-sampling.mjs`, summed by function (self, and
 * inclusive: each function once per stack), by file, and by area (XState, the Redis client and
 * the socket, zod, HTTP, Warden's own folders), as shares of the busy time or of the bytes
 * allocated. A native frame (a `JSON.stringify`, a `sort`) counts to the area of its caller.
 */
import { readFileSync } from 'node:fs';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface HeapNode {
  callFrame: Frame;
  selfSize: number;
  children: HeapNode[];
}
interface CpuNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}

const file = process.argv[2];
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile|file.heapprofile> [--top N]');
const topAt = process.argv.indexOf('--top');
const top = topAt > 0 ? Number(process.argv[topAt + 1]) : 25;

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*?\/(src|machines|bench)\//, '$1/');
const label = (frame: Frame) => `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url) || '(native)'}`;
const areas: [RegExp, string][] = [
  [/xstate\//, 'XState'],
  [/^(ioredis\/|node:(net|buffer|internal\/stream_base_commons))/, 'Redis client and socket'],
  [/^zod\//, 'zod'],
  [/^(hono\/|@hono\/|node:_http|node:internal\/deps\/undici)/, 'HTTP (hono, node)'],
  [/^@opentelemetry\//, 'OpenTelemetry'],
  [/^node:internal\/modules\//, 'module loading'],
  [/^src\/store\//, 'src/store'],
  [/^src\/engine\//, 'src/engine'],
  [/^src\/api\//, 'src/api'],
  [/^(src|machines)\//, 'src (other), machines'],
];
const areaOf = (frame: Frame) => areas.find(([pattern]) => pattern.test(shortUrl(frame.url)))?.[1];

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const byFile = new Map<string, number>();
const byArea = new Map<string, number>();
const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value);
let total = 0;

/** One sample: its stack, leaf first, and what it weighs. */
function count(stack: Frame[], weight: number): void {
  const leaf = stack[0];
  if (!leaf || leaf.functionName === '(idle)' || weight === 0) return;
  total += weight;
  add(self, label(leaf), weight);
  add(byFile, shortUrl(leaf.url) || '(native)', weight);
  add(byArea, stack.map(areaOf).find((area) => area !== undefined) ?? 'other', weight);
  for (const name of new Set(stack.map(label))) add(inclusive, name, weight);
}

const profile = JSON.parse(readFileSync(file, 'utf8')) as
  { head: HeapNode } | { nodes: CpuNode[]; samples: number[]; timeDeltas: number[] };
if ('head' in profile) {
  const walk = (node: HeapNode, stack: Frame[]) => {
    const here = [node.callFrame, ...stack];
    count(here, node.selfSize);
    for (const child of node.children) walk(child, here);
  };
  walk(profile.head, []);
} else {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const weights = new Map<number, number>();
  profile.samples.forEach((id, i) => weights.set(id, (weights.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  for (const [id, weight] of weights) {
    const stack: Frame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = nodes.get(at);
      if (node) stack.push(node.callFrame);
    }
    count(stack, weight);
  }
}

const heap = 'head' in profile;
console.log(heap ? `${(total / 1e6).toFixed(1)} MB allocated (sampled)` : `${(total / 1e6).toFixed(2)} s busy`);
for (const [title, map] of [
  ['by area', byArea],
  ['by function, self', self],
  ['by function, inclusive', inclusive],
  ['by file, self', byFile],
] as const) {
  console.log(`\n${title}`);
  for (const [name, value] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((100 * value) / total).toFixed(2).padStart(6)} %  ${name}`);
}
