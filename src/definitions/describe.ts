/**
 * Views of a statechart for people and tools: the config as JSON (functions written as marked
 * expressions), a directed graph of states and transitions, and a Mermaid `stateDiagram-v2`.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

/**
 * A function's source as written, whoever loaded the module: without the spacing a transpiler
 * chooses, and without the import bindings vite's SSR transform (the test runner) rewrites
 * `createInitialContext(input)` into, so generated files do not depend on who generated them.
 */
function expressionOf(fn: (...args: unknown[]) => unknown): string {
  return fn
    .toString()
    .replace(/\(0,\s*__vite_ssr_import_\d+__\.(\w+)\)/g, '$1')
    .replace(/__vite_ssr_import_\d+__\.(\w+)/g, '$1')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(){}[\]=>,;:])\s*/g, '$1');
}

/** The machine config as JSON; functions (the context factory) become `{ "$expr": "<source>" }`. */
export function serialisableConfig(machine: AnyStateMachine): unknown {
  return JSON.parse(
    JSON.stringify(machine.config, (_key, value: unknown) =>
      typeof value === 'function' ? { $expr: expressionOf(value as (...args: unknown[]) => unknown) } : value,
    ),
  ) as unknown;
}

interface Edge {
  source: string;
  target: string;
  event: string;
  guard: string | null;
}

/** A guard's name: `'name'` or `{ type: 'name' }`; null when there is none (or it is inline). */
export function guardName(guard: unknown): string | null {
  if (typeof guard === 'string') return guard;
  if (guard && typeof guard === 'object' && 'type' in guard && typeof guard.type === 'string') return guard.type;
  return null;
}

/** `node` and every state below it, depth first, parents before children. */
export function eachNode(node: AnyStateNode, visit: (node: AnyStateNode) => void): void {
  visit(node);
  for (const child of Object.values(node.states)) eachNode(child, visit);
}

function edgesOf(node: AnyStateNode): Edge[] {
  const edges: Edge[] = [];
  for (const [event, transitions] of node.transitions) {
    for (const t of transitions) {
      for (const target of t.target ?? []) {
        edges.push({ source: node.id, target: target.id, event, guard: guardName(t.guard) });
      }
    }
  }
  for (const t of node.always ?? []) {
    for (const target of t.target ?? []) {
      edges.push({ source: node.id, target: target.id, event: '(always)', guard: guardName(t.guard) });
    }
  }
  return edges;
}

export function definitionGraph(machine: AnyStateMachine) {
  const nodes: { id: string; type: string; description: string | null }[] = [];
  const edges: Edge[] = [];
  eachNode(machine.root, (node) => {
    nodes.push({ id: node.id, type: node.type, description: node.description ?? null });
    edges.push(...edgesOf(node));
  });
  return { nodes, edges };
}

const label = (id: string) => id.replace(/[^A-Za-z0-9_]/g, '_');

/** A Mermaid stateDiagram-v2 with composite and parallel states. */
export function mermaidDiagram(machine: AnyStateMachine): string {
  const lines = ['stateDiagram-v2'];
  const write = (node: AnyStateNode, indent: string) => {
    const children = Object.values(node.states);
    if (node !== machine.root) {
      if (children.length === 0) {
        lines.push(`${indent}state "${node.key}" as ${label(node.id)}`);
        if (node.type === 'final') lines.push(`${indent}${label(node.id)} --> [*]`);
        return;
      }
      lines.push(`${indent}state "${node.key}" as ${label(node.id)} {`);
    }
    const inner = node === machine.root ? '  ' : `${indent}  `;
    // `initial` is typed as always present; atomic and parallel states have none at run time.
    const initial = (node.initial as { target: readonly { id: string }[] } | undefined)?.target[0];
    if (node.type !== 'parallel' && initial) lines.push(`${inner}[*] --> ${label(initial.id)}`);
    children.forEach((child, i) => {
      write(child, inner);
      if (node.type === 'parallel' && i < children.length - 1) lines.push(`${inner}--`);
    });
    if (node !== machine.root) lines.push(`${indent}}`);
  };
  write(machine.root, '');
  eachNode(machine.root, (node) => {
    for (const edge of edgesOf(node)) {
      const text = edge.guard ? `${edge.event} [${edge.guard}]` : edge.event;
      lines.push(`  ${label(edge.source)} --> ${label(edge.target)}: ${text.replace(/[:;]/g, ' ')}`);
    }
  });
  return `${lines.join('\n')}\n`;
}
