/**
 * `warden deploy check [--json]`: before a deploy, which of the workflows running now the
 * definitions about to run (this project's code) would strand or decide differently. Read-only: it
 * streams the live store (every tenant, every version; Redis, single node or cluster) and never
 * writes. Exit 0 when none, 1 naming each one, 2 for a usage error.
 */
import type { Config } from '../config.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import type { AuditEntry, WorkflowRecord } from '../engine/decision.ts';
import { checkLiveWorkflow, type Finding } from '../definitions/deploy-check.ts';
import { withLiveStore } from './live-store.ts';

type Print = (line: string) => void;

export interface DeployCheckOptions {
  json: boolean;
  /** Where progress goes (a terminal's stderr), or nowhere. */
  progress?: (text: string) => void;
}

/** What the check reads of a store: its live workflows and their audit trails, streamed. */
export interface LiveStore {
  liveRecords(): AsyncIterable<WorkflowRecord>;
  auditTrail(workflowId: string): AsyncIterable<AuditEntry>;
}

export interface DeployReport {
  /** Live workflows read. */
  checked: number;
  /** Workflows the deploy would strand (they could not go on). */
  stranded: number;
  /** Workflows it would let go on, deciding differently. */
  differing: number;
}

/** Workflows checked at once: their audit reads go to Redis together (one round trip, not one each). */
const WINDOW = 64;

/**
 * Checks every live workflow of `store` against `registry`, handing each finding to `onFinding` as
 * it is found, in the order the store gives the workflows (nothing is kept beyond a window of
 * `WINDOW` workflows: memory stays bounded however many workflows there are).
 */
export async function deployCheck(
  store: LiveStore,
  registry: WorkflowRegistry,
  onFinding: (finding: Finding) => void,
  progress?: (checked: number) => void,
): Promise<DeployReport> {
  const report: DeployReport = { checked: 0, stranded: 0, differing: 0 };
  const flush = async (window: WorkflowRecord[]) => {
    const results = await Promise.all(
      window.map((record) => checkLiveWorkflow(record, store.auditTrail(record.workflowId), registry)),
    );
    for (const findings of results) {
      report.checked++;
      if (findings.some((f) => f.stranded)) report.stranded++;
      else if (findings.length > 0) report.differing++;
      for (const finding of findings) onFinding(finding);
      if (report.checked % 1000 === 0) progress?.(report.checked);
    }
  };
  let window: WorkflowRecord[] = [];
  for await (const record of store.liveRecords()) {
    window.push(record);
    if (window.length === WINDOW) {
      await flush(window);
      window = [];
    }
  }
  await flush(window);
  return report;
}

/** The last line of the text report: `deploy check: 1 live workflow; 0 would be stranded, 0 decided differently`. */
export function deployCheckSummary(report: Pick<DeployReport, 'checked' | 'stranded' | 'differing'>): string {
  const checked = `${report.checked} live workflow${report.checked === 1 ? '' : 's'}`;
  return `deploy check: ${checked}; ${report.stranded} would be stranded, ${report.differing} decided differently`;
}

export async function deployCheckCommand(
  config: Config,
  registry: WorkflowRegistry,
  options: DeployCheckOptions,
  print: Print,
  printError: Print,
): Promise<number> {
  const missing = () => {
    printError('warden deploy check: set REDIS_URL to the live store (the workflows running now are there)');
  };
  return withLiveStore(config, 'deploy-check', missing, async (store) => {
    // --json is one document: its findings are kept; the text is printed as it is found.
    const findings: Finding[] = [];
    const report = await deployCheck(
      store,
      registry,
      (f) => {
        if (options.json) findings.push(f);
        else
          print(
            `${f.stranded ? 'STRANDED' : 'DIFFERS'} ${f.workflowId} (${f.definition}, tenant ${f.tenantId}) ${f.kind}: ${f.message}`,
          );
      },
      (n) => options.progress?.(`checked ${n} live workflows…`),
    );
    options.progress?.('');
    if (options.json) print(JSON.stringify({ ...report, findings }, null, 2));
    else {
      print(deployCheckSummary(report));
    }
    return report.stranded + report.differing > 0 ? 1 : 0;
  });
}
