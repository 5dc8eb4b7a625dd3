/**
 * `warden paths`: traverses a registered definition and prints what the generated path suite
 * replays — reachability, distinct states, paths, transition coverage, invariant violations.
 * Exits 1 on what fails the generated suite: a state node unreachable, an invariant violated, a
 * liveness finding, or a transition no path takes that is not one of the model's defensive fallbacks.
 */
import type { WorkflowRegistry } from '../definitions/registry.ts';
import type { PathModel } from '../definitions/workflow.ts';
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
    [
      'liveness',
      `${report.liveness.findings.length} findings (${report.liveness.activeStates} active states, ${report.liveness.jobsChecked} jobs in flight checked)`,
    ],
    ['time', `${report.millis} ms`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  if (report.transient.length > 0)
    lines.push('', 'transient (passed through by always only):', ...report.transient.map((t) => `  ${t}`));
  if (report.transitionsNotCovered.length > 0) {
    lines.push('', 'transitions no path takes:');
    for (const label of report.transitionsNotCovered) {
      lines.push(`  ${label}`);
      const why = report.uncovered.find((u) => u.transition === label);
      if (!why) continue;
      lines.push(`    why: ${why.defensive ? '(defensive, kept on purpose) ' : ''}${why.reason}`);
      for (const t of why.tried.slice(0, 5)) {
        lines.push(`    in ${t.state.join(', ')}: ${t.outcome} [${t.variants.join(', ')}]`);
      }
    }
  }
  // One line per distinct violation: the same step from many distinct states reads the same.
  const violations = new Map<string, number>();
  for (const v of report.invariantViolations) {
    const line = `violation in ${v.state.join(', ')} on ${v.event.type} (${v.event.variant}): ${v.violations.join('; ')}`;
    violations.set(line, (violations.get(line) ?? 0) + 1);
  }
  for (const [line, times] of [...violations].slice(0, 20)) {
    lines.push(times > 1 ? `${line} (on ${times} edges)` : line);
  }
  for (const f of report.liveness.findings.slice(0, 20)) {
    lines.push(
      `liveness ${f.kind} in ${f.state.join(', ')}: ${f.detail}`,
      `  path: ${f.path.map((e) => (e.variant === 'valid' ? e.type : `${e.type} (${e.variant})`)).join(' → ') || '(creation)'}`,
    );
  }
  return lines;
}

/** Traverses one definition (`--definition id` or `id@version`), or the latest version of every registered one. */
export function paths(
  registry: WorkflowRegistry,
  options: { json: boolean; definition?: string | undefined; simple: boolean },
  print: Print,
  printError: Print = print,
): number {
  const keys = options.definition ? [options.definition] : registry.bundles.map((b) => b.id);
  const reports = [];
  for (const key of keys) {
    const definition = registry.resolve(key);
    const bundle = definition && registry.bundle(definition.id);
    if (!definition || !bundle) {
      printError(`warden paths: unknown definition ${key}; registered: ${[...registry.versions.keys()].join(', ')}`);
      return 2;
    }
    const model = bundle.paths as PathModel;
    reports.push(generatePaths({ definition, paths: model }, { simple: options.simple }).report);
  }
  if (options.json) print(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2));
  else print(reports.map((report) => table(report).join('\n')).join('\n\n'));
  return reports.some(fails) ? 1 : 0;
}

/** What `definePathSuite` fails on, so `warden paths` and the suite agree. */
function fails(report: PathReport): boolean {
  const untaken = report.uncovered.some((u) => !u.defensive);
  return (
    report.unreachable.length > 0 ||
    report.invariantViolations.length > 0 ||
    report.liveness.findings.length > 0 ||
    untaken
  );
}
