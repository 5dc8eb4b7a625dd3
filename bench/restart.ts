/**
 * `npm run reliability:restart [-- --workflows N] [-- --crashes N]`: a Redis of its own with
 * `appendonly yes` and `appendfsync always` is killed with SIGKILL and restarted while support
 * requests (500 by default) are created and approved over HTTP against `warden serve`. Passes when
 * every commit the API acknowledged is in the store afterwards, no workflow was refunded twice, and
 * every workflow finished or waits for a person.
 */
import { runRedisRestart } from './reliability.ts';
import { numberArgument } from './lib.ts';

const report = await runRedisRestart({
  workflows: numberArgument('--workflows', 500),
  durable: !process.argv.includes('--not-durable'),
  crashes: numberArgument('--crashes', 3),
  downMs: 1_000,
  timeoutMs: numberArgument('--timeout-ms', 180_000),
  log: (line) => {
    console.error(line);
  },
});
console.log(JSON.stringify(report, null, 2));
process.exit(report.ok ? 0 : 1);
