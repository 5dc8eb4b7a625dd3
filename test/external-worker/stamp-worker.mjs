// An external worker written against Warden's HTTP API alone: no import from the project, only
// fetch. It claims `stamp:requestStamp` jobs (long poll), heartbeats once, and completes each with
// a STAMPED result carrying the lease token its claim returned. Run:
//   WARDEN_URL=http://127.0.0.1:3000 WARDEN_TOKEN=<service worker token> JOBS=1 node stamp-worker.mjs
// It exits 0 after completing JOBS jobs, 1 on anything unexpected; each step is printed as JSON.
const base = process.env.WARDEN_URL;
const token = process.env.WARDEN_TOKEN;
const wanted = Number(process.env.JOBS ?? '1');

async function call(path, body) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

let done = 0;
const until = Date.now() + 30_000;
while (done < wanted && Date.now() < until) {
  const { jobs } = await call('/v1/jobs/claim', {
    queues: ['stamp:requestStamp'],
    max: 4,
    leaseMs: 10_000,
    waitMs: 2_000,
  });
  for (const job of jobs) {
    const path = `/v1/jobs/${encodeURIComponent(job.jobId)}`;
    const beat = await call(`${path}/heartbeat`, { leaseToken: job.leaseToken, leaseMs: 10_000 });
    const result = {
      type: 'STAMPED',
      payload: { jobId: job.jobId, stamp: `external:${job.params.document}` },
    };
    const completed = await call(`${path}/complete`, { leaseToken: job.leaseToken, result });
    console.log(
      JSON.stringify({ jobId: job.jobId, deliveries: job.deliveries, leaseExpiresAt: beat.leaseExpiresAt, completed }),
    );
    done += 1;
  }
}
process.exit(done >= wanted ? 0 : 1);
