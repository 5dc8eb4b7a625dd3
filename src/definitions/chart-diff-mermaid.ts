/**
 * A chart diff as a Mermaid `stateDiagram-v2`: the new chart, with the states and transitions the
 * old one had and the new one lacks put back. States are marked by class — added green, removed red
 * and dashed, changed (moved, entry/exit/initial changed, or a transition from it added, removed or
 * changed) orange; Mermaid cannot style a transition of a state diagram, so its label is marked:
 * `+` added, `-` removed, `~` changed.
 */
import { diffCharts, readChart, type ChartDiff, type ChartSide, type ChartTransition } from './chart-diff.ts';

type Mark = 'added' | 'removed' | 'changed';

const classDefs = [
  '  classDef added fill:#dafbe1,stroke:#1a7f37,color:#1a7f37',
  '  classDef removed fill:#ffebe9,stroke:#cf222e,stroke-dasharray:5 5,color:#cf222e',
  '  classDef changed fill:#fff1e5,stroke:#bc4c00,color:#bc4c00',
];

const idOf = (path: string) => (path ? `s_${path.replace(/[^A-Za-z0-9_]/g, '_')}` : 's__root');
const keyOf = (path: string) => path.slice(path.lastIndexOf('.') + 1);

function edgeLine(t: ChartTransition, mark: string): string[] {
  const event = t.delay ? `after ${t.delay}` : t.event;
  const text = `${mark}${event}${t.guard ? ` [${t.guard.split(' ')[0] ?? t.guard}]` : ''}`.replace(/[:;]/g, ' ');
  return t.targets.map((target) => `  ${idOf(t.source)} --> ${idOf(target)}: ${text}`);
}

/** The Mermaid text of the diff between `before` and `after` (computed when not given). */
export function mermaidChartDiff(
  before: ChartSide,
  after: ChartSide,
  diff: ChartDiff = diffCharts(before, after),
): string {
  const chart = readChart(after.machine);
  const removed = new Set(diff.states.removed.map((s) => s.state));
  const marks = new Map<string, Mark>();
  const mark = (path: string, as: Mark) => {
    if (!marks.has(path)) marks.set(path, as);
  };
  for (const s of diff.states.added) mark(s.state, 'added');
  for (const s of diff.states.removed) mark(s.state, 'removed');
  for (const m of diff.states.moved) mark(m.to, 'changed');
  for (const s of diff.states.changed) mark(s.state, 'changed');
  for (const t of [...diff.transitions.added, ...diff.transitions.removed, ...diff.transitions.changed])
    mark(t.source, 'changed');

  // The new chart's states, and the removed ones under their old parent.
  const children = new Map<string, { path: string; type: string }[]>();
  const place = (path: string, parent: string | null, type: string) => {
    if (parent === null) return;
    const under = chart.states.has(parent) || removed.has(parent) ? parent : '';
    children.set(under, [...(children.get(under) ?? []), { path, type }]);
  };
  for (const s of chart.states.values()) place(s.path, s.parent, s.type);
  for (const s of diff.states.removed) place(s.state, s.parent, s.type);

  const lines = ['stateDiagram-v2'];
  const write = (path: string, type: string, indent: string) => {
    const inner = children.get(path) ?? [];
    const name = `"${keyOf(path)}"`;
    if (path !== '' && inner.length === 0) {
      lines.push(`${indent}state ${name} as ${idOf(path)}`);
      if (type === 'final') lines.push(`${indent}${idOf(path)} --> [*]`);
      return;
    }
    if (path !== '') lines.push(`${indent}state ${name} as ${idOf(path)} {`);
    const deeper = path === '' ? '  ' : `${indent}  `;
    const initial = chart.states.get(path)?.initial[0];
    if (type !== 'parallel' && initial !== undefined) lines.push(`${deeper}[*] --> ${idOf(initial)}`);
    inner.forEach((child, i) => {
      write(child.path, child.type, deeper);
      if (type === 'parallel' && i < inner.length - 1) lines.push(`${deeper}--`);
    });
    if (path !== '') lines.push(`${indent}}`);
  };
  write('', chart.states.get('')?.type ?? 'compound', '');

  const key = (t: Pick<ChartTransition, 'source' | 'event' | 'guard'>) => `${t.source}\u0000${t.event}\u0000${t.guard}`;
  const added = new Set(diff.transitions.added.map((t) => `${key(t)}\u0000${t.delay}\u0000${t.targets.join()}`));
  const changed = new Set(
    diff.transitions.changed.map((c) => key({ ...c, guard: c.changes.guard ? c.changes.guard.after : c.guard })),
  );
  for (const t of chart.transitions) {
    const isAdded = added.has(`${key(t)}\u0000${t.delay}\u0000${t.targets.join()}`);
    lines.push(...edgeLine(t, isAdded ? '+ ' : changed.has(key(t)) ? '~ ' : ''));
  }
  for (const t of diff.transitions.removed) lines.push(...edgeLine(t, '- '));
  for (const { changes, ...t } of diff.transitions.changed) {
    const gone = changes.target?.before.filter((p) => !changes.target?.after.includes(p)) ?? [];
    lines.push(...edgeLine({ ...t, targets: gone, actions: [] }, '- '));
  }
  lines.push(...classDefs);
  for (const [path, as] of marks) if (path !== '') lines.push(`  class ${idOf(path)} ${as}`);
  return `${lines.join('\n')}\n`;
}
