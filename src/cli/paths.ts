/**
 * `warden paths`: traverses a registered definition and prints what the generated path suite
 * replays — reachability, distinct states, paths, transition coverage, invariant violations.
 * Exits 1 when a state node is unreachable or an invariant is violated.
 */
import { definitions, latestDefinition } from '../../machines/index.ts';
import { generatePaths, type PathReport } from '../paths/generate.ts';

type Print = (line: string) => void;

function table(report: PathReport): string[] {
  const rows: [string, string][] = [
    ['definition', report.definition],
    ['state nodes', `${report.stateNodes} (${report.reachable} reachable, ${report.transient.length} transient)`],
    ['unreachable', report.unreachable.join(', ') || 'none'],
    ['distinct states', `${report.distinctStates} (${report.edges} edges tried)`],
    ['shortest paths', String(report.shortestPaths)],
    ['transition paths', String(report.transitionPaths)],
    ['simple paths', `${report.simplePaths} (over the reduced serialisation)`],
    ['steps in all paths', String(report.steps)],
    ['transitions covered', `${report.transitionsCovered} of ${report.transitionsTotal}`],
    ['invariant violations', String(report.invariantViolations.length)],
    ['time', `${report.millis} ms`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  if (report.transient.length > 0)
    lines.push('', 'transient (passed through by always only):', ...report.transient.map((t) => `  ${t}`));
  if (report.transitionsNotCovered.length > 0) {
    lines.push('', 'transitions no path takes:', ...report.transitionsNotCovered.map((t) => `  ${t}`));
  }
  for (const v of report.invariantViolations.slice(0, 20)) {
    lines.push(
      `violation in ${v.state.join(', ')} on ${v.event.type} (${v.event.variant}): ${v.violations.join('; ')}`,
    );
  }
  return lines;
}

export function paths(
  options: { json: boolean; definition?: string | undefined; simple: boolean },
  print: Print,
): number {
  const key = options.definition ?? 'support';
  const definition = key.includes('@') ? definitions.get(key) : latestDefinition(key);
  if (!definition) {
    print(`unknown definition ${key}; registered: ${[...definitions.keys()].join(', ')}`);
    return 2;
  }
  const { report } = generatePaths(definition, { simple: options.simple });
  if (options.json) print(JSON.stringify(report, null, 2));
  else for (const line of table(report)) print(line);
  return report.unreachable.length > 0 || report.invariantViolations.length > 0 ? 1 : 0;
}
