/**
 * `npm run reliability:soak [-- --workflows N] [-- --cluster]`: the crash soak. Support requests
 * (1,000 by default) are created over HTTP while worker processes are killed with SIGKILL at random
 * moments and restarted; passes when every workflow is finished or waiting for a person and the
 * refund ledger shows 0 duplicate refunds and 0 lost workflows. `--cluster`: 2 API and 3 worker
 * processes against a 3-master Redis Cluster of its own on loopback ports; otherwise 1 API and 2
 * worker processes on REDIS_URL (default redis://127.0.0.1:6379, a fresh key prefix).
 */
import { runSoak } from './reliability.ts';
import { numberArgument } from './lib.ts';

const cluster = process.argv.includes('--cluster');

const report = await runSoak({
  workflows: numberArgument('--workflows', 1000),
  cluster,
  apis: cluster ? 2 : 1,
  workers: cluster ? 3 : 2,
  killEveryMs: [1000, 4000],
  restartMs: 500,
  stallMs: numberArgument('--stall-ms', 120_000),
  log: (line) => {
    console.error(line);
  },
});
console.log(JSON.stringify(report, null, 2));
process.exit(report.ok ? 0 : 1);
