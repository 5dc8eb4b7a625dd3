// The console's statechart drawing: Mermaid source for the whole chart or for a focused view (the
// active states, the states with transitions into them and the states they may go to next), and a
// drawn chart fitted to its box with zoom. A browser module, no build step.

/** Charts with more transitions than this start in the focused view. */
const busyEdges = 30;
/** Beyond this many states on one side of the focused view, states are grouped by their top-level state. */
const groupAbove = 8;
/** Event names shown on one drawn edge before the rest are counted. */
const labelsPerEdge = 3;
const zoomStep = 1.25;

export const mermaidId = (id) => id.replace(/[^A-Za-z0-9_]/g, '_');
const safe = (text) => String(text).replace(/[:;#"{}<>]/g, ' ');

/** `xstate.after.workflowDeadline.support.manualReview` reads as `after workflowDeadline`. */
function eventLabel(event) {
  const after = /^xstate\.after\.([^.]+)/.exec(event);
  if (after) return `after ${after[1]}`;
  const actor = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event);
  if (actor) return `${actor[1]} ${actor[2]}`;
  if (/^xstate\.done\.state\./.test(event)) return 'done';
  return event;
}

/** The initial child key of each compound state of the config, by state id. */
function initialChildren(config, rootId) {
  const initial = new Map();
  const walk = (node, id) => {
    if (!node || typeof node !== 'object') return;
    if (typeof node.initial === 'string') initial.set(id, node.initial);
    for (const [key, child] of Object.entries(node.states || {})) walk(child, `${id}.${key}`);
  };
  walk(config, rootId);
  return initial;
}

function isWithin(id, ancestor) {
  return id === ancestor || id.startsWith(`${ancestor}.`);
}

/**
 * Mermaid source of the focused view: each active leaf, every state with a transition that
 * enters it and every state it may go to next (its ancestors' transitions included, as XState
 * takes them), one edge per pair of states with the event names on it.
 */
export function focusedSource(described, activePaths) {
  const { nodes, edges } = described.graph;
  const rootId = nodes[0].id;
  const types = new Map(nodes.map((n) => [n.id, n.type]));
  const initial = initialChildren(described.config, rootId);
  const path = (id) => (id === rootId ? '(any state)' : id.slice(rootId.length + 1));

  /** Whether entering `target` enters `leaf`: it is the leaf, or its initial (or parallel) descent reaches it. */
  const enters = (target, leaf) => {
    if (target === leaf) return true;
    if (target === rootId || !isWithin(leaf, target)) return false;
    let current = target;
    while (current !== leaf) {
      const next = leaf.slice(current.length + 1).split('.')[0];
      if (types.get(current) !== 'parallel' && initial.get(current) !== next) return false;
      current = `${current}.${next}`;
    }
    return true;
  };

  const leaves = activePaths.map((p) => `${rootId}.${p}`);
  const drawn = []; // { from, to, label, side: 'in' | 'out' }
  for (const leaf of leaves) {
    const ancestors = nodes.map((n) => n.id).filter((id) => id !== leaf && isWithin(leaf, id));
    // Deepest first: an unguarded transition of a deeper state shadows the same event further up.
    const chain = [leaf, ...ancestors.sort((a, b) => b.length - a.length)];
    const shadowed = new Set();
    for (const source of chain) {
      const own = edges.filter((e) => e.source === source);
      for (const edge of own) {
        if (shadowed.has(edge.event)) continue;
        // The guard on a line of its own: Mermaid sizes a label by its lines, and a long line it
        // wrapped itself would grow past the room it made for it, over the next edge's label.
        const label = edge.guard ? `${eventLabel(edge.event)}\n[${edge.guard}]` : eventLabel(edge.event);
        drawn.push({ from: leaf, to: enters(edge.target, leaf) ? leaf : edge.target, label, side: 'out' });
      }
      for (const edge of own) if (!edge.guard) shadowed.add(edge.event);
    }
    for (const edge of edges) {
      if (!enters(edge.target, leaf) || isWithin(leaf, edge.source)) continue;
      drawn.push({ from: edge.source, to: leaf, label: eventLabel(edge.event), side: 'in' });
    }
  }

  // The busiest states have many neighbours: group them by top-level state so it stays readable.
  const topLevel = (id) => `${rootId}.${id.slice(rootId.length + 1).split('.')[0]}`;
  const grouped = new Map();
  for (const side of ['in', 'out']) {
    const key = side === 'in' ? 'from' : 'to';
    const others = new Set(drawn.filter((d) => d.side === side && !leaves.includes(d[key])).map((d) => d[key]));
    if (others.size <= groupAbove) continue;
    const members = new Map();
    for (const id of others) {
      if (id === rootId || topLevel(id) === id) continue;
      if (!members.has(topLevel(id))) members.set(topLevel(id), new Set());
      members.get(topLevel(id)).add(id);
    }
    for (const d of drawn) {
      const group = d.side === side && members.get(topLevel(d[key]));
      if (!group || group.size < 2 || !group.has(d[key])) continue;
      // One node per side: what leads here and where it may go stay apart, left and right.
      const id = `${topLevel(d[key])}.*${side}`;
      grouped.set(id, { top: topLevel(d[key]), size: group.size });
      d[key] = id;
    }
  }

  // A state both before and after the active one is drawn twice, on the left where it came from and
  // on the right where it may go: a pair of edges both ways between two states would fold onto each
  // other, labels over labels.
  const names = new Map(); // `<side> <id>` → Mermaid name
  const drawnIds = new Map(); // Mermaid name → state id
  const nameOf = (id, side) => {
    if (leaves.includes(id)) return mermaidId(id); // the same names as the full chart: `class … active`
    const key = `${side} ${id}`;
    if (!names.has(key)) names.set(key, `f${names.size}_${mermaidId(id)}`);
    return names.get(key);
  };
  const pairs = new Map();
  for (const d of drawn) {
    const from = nameOf(d.from, d.side);
    const to = nameOf(d.to, d.side);
    drawnIds.set(from, d.from).set(to, d.to);
    const key = `${from} ${to}`;
    if (!pairs.has(key)) pairs.set(key, { from, to, labels: [] });
    const labels = pairs.get(key).labels;
    if (!labels.includes(d.label)) labels.push(d.label);
  }
  for (const leaf of leaves) drawnIds.set(mermaidId(leaf), leaf);

  // A flowchart rather than a state diagram: Mermaid spaces its labelled edges apart (and takes
  // the spacing asked for), so the labels of the busiest states do not run into each other.
  // `wrappingWidth`: wide enough that Mermaid never wraps a line itself (see the guards above);
  // `nodeSpacing`: room for a label of several lines between the edges that fan out of one state.
  const lines = [
    '%%{init: {"flowchart": {"nodeSpacing": 80, "rankSpacing": 120, "wrappingWidth": 400}}}%%',
    'flowchart LR',
  ];
  for (const [name, id] of drawnIds) {
    const group = grouped.get(id);
    const text = group ? `${path(group.top)} (${group.size} states)` : path(id);
    lines.push(`  ${name}("${safe(text)}")`);
  }
  for (const pair of pairs.values()) {
    const shown = pair.labels.slice(0, labelsPerEdge);
    const more = pair.labels.length - shown.length;
    // One event a line: labels of neighbouring edges stay narrow and do not run into each other.
    const text = [
      ...shown.flatMap((label) => label.split('\n').map(safe)),
      ...(more > 0 ? [`+${more} more`] : []),
    ].join('<br/>');
    lines.push(`  ${pair.from} -->|"${text}"| ${pair.to}`);
  }
  return { text: `${lines.join('\n')}\n`, edges: pairs.size };
}

/** Mermaid source of the whole chart as the API describes it. */
export function fullSource(described) {
  return { text: described.mermaid, edges: described.graph.edges.length };
}

export const isBusy = (described) => described.graph.edges.length > busyEdges;

/** The drawn chart's own width, px, from its viewBox. */
function naturalWidth(svg) {
  const box = svg.viewBox && svg.viewBox.baseVal;
  return box && box.width > 0 ? box.width : svg.getBoundingClientRect().width;
}

/**
 * Sizes the chart in `container`: `zoom` null fits it to the box's width (never wider than drawn),
 * a number scales it from its natural size. Returns the scale now shown.
 */
export function applyZoom(container, zoom) {
  const svg = container.querySelector('svg');
  if (!svg) return 1;
  const natural = naturalWidth(svg);
  svg.removeAttribute('height');
  svg.style.height = 'auto';
  if (zoom === null) {
    svg.style.width = '100%';
    svg.style.maxWidth = `${natural}px`;
  } else {
    svg.style.width = `${Math.round(natural * zoom)}px`;
    svg.style.maxWidth = 'none';
  }
  const scale = svg.getBoundingClientRect().width / natural;
  container.setAttribute('data-zoom', zoom === null ? 'fit' : String(Math.round(zoom * 100) / 100));
  container.setAttribute('data-scale', String(Math.round(scale * 1000) / 1000));
  return scale;
}

/** The zoom one step in (`direction` 1) or out (-1) from what is shown now. */
export function stepZoom(container, direction) {
  const svg = container.querySelector('svg');
  if (!svg) return null;
  const shown = svg.getBoundingClientRect().width / naturalWidth(svg);
  return Math.min(8, Math.max(0.1, direction > 0 ? shown * zoomStep : shown / zoomStep));
}

/** Scrolls the box (not the page) so the first active state is in view. */
export function revealActive(container) {
  const first = container.querySelector('svg .active');
  if (!first) return;
  const box = container.getBoundingClientRect();
  const target = first.getBoundingClientRect();
  container.scrollLeft += target.left + target.width / 2 - (box.left + box.width / 2);
  container.scrollTop += target.top + target.height / 2 - (box.top + box.height / 2);
}

let drawn = 0;

/** Mermaid's SVG of `text` (Mermaid is the classic script the page loads before the modules). */
export async function renderSvg(text) {
  const { svg } = await window.mermaid.render(`diagram-${++drawn}`, text);
  return svg;
}
