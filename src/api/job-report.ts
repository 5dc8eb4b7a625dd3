/**
 * What an operator sees of a workflow's jobs and incidents (`GET /v1/workflows/{id}/jobs`) and of
 * a tenant's dead letters (`GET /v1/incidents`), from what the store keeps, never inferred from the
 * audit trail: the jobs the workflow waits on (its definition's `currentJobs`), each with the step
 * that requested it, its delivery, its lease and its attempts; the jobs waiting out a backoff
 * before their next attempt; the jobs given up. The zod schemas here are what the OpenAPI document
 * describes (`openapi-incidents.ts`).
 */
import { z } from 'zod';
import type { WorkflowRecord } from '../engine/decision.ts';
import type { JobAttempts, WorkflowDefinition } from '../engine/definition.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import type { DeadLetter, StoredJob, WorkflowStore } from '../engine/store-port.ts';
import type { ExternalJobs } from '../runtime/external-jobs.ts';

const iso = z.iso.datetime();

export const jobStatuses = ['queued', 'running', 'leaseExpired', 'waitingToRetry', 'deadLettered'] as const;

export const jobSchema = z.object({
  jobId: z.string(),
  type: z.string().describe('The effect type (the action the chart names)'),
  operation: z.string(),
  status: z
    .enum(jobStatuses)
    .describe(
      '`queued`: not taken yet; `running`: a worker holds its lease (`lease`); `leaseExpired`: its lease ran out and no worker took it again yet (stuck: an incident); `waitingToRetry`: its last attempt failed and a backoff timer starts the next at `nextAttemptAt`; `deadLettered`: given up (an incident)',
    ),
  requestedBy: z
    .object({ eventId: z.string(), eventType: z.string(), state: z.array(z.string()), at: iso })
    .nullable()
    .describe('The step that requested it (its audit entry), while the trail holds it'),
  runsOn: z.enum(['warden', 'external']).describe('A worker of Warden, or an external worker over the job API'),
  lease: z
    .object({ owner: z.string(), expiresAt: iso, expired: z.boolean() })
    .nullable()
    .describe('Who holds it and until when: a worker process or an external worker’s principal'),
  deliveries: z
    .number()
    .int()
    .describe('How often a worker of Warden was handed it, or (`runsOn: external`) external workers claimed it'),
  attempt: z.number().int().nullable().describe('Its attempt as the retry policy counts it (1 for the first)'),
  maxAttempts: z.number().int().nullable().describe('The most attempts the retry policy allows'),
  nextAttemptAt: iso.nullable().describe('When the next attempt starts (`waitingToRetry`)'),
  lastError: z
    .string()
    .nullable()
    .describe(
      'Why it was given up (`deadLettered`), or how its last attempt ended (`waitingToRetry`: the failure event of its result and the reason it states)',
    ),
  createdAt: iso.nullable().describe('When the step that requested it was committed'),
});

export const incidentSchema = z.object({
  kind: z
    .enum(['deadLetter', 'leaseExpired'])
    .describe(
      '`deadLetter`: a job or timer given up (after its deliveries, a refused result, or an external worker’s failure with nowhere to go); `leaseExpired`: a job whose lease ran out and that no worker took again yet',
    ),
  workflowId: z.string(),
  jobId: z.string().nullable(),
  type: z.string().nullable().describe('The effect type (a job) or `timer`'),
  reason: z.string(),
  deliveries: z.number().int(),
  at: iso.describe('When it was given up, or when the lease ran out'),
  id: z.string().nullable().describe('The dead letter’s id'),
});

export const workflowJobsSchema = z.object({
  workflowId: z.string(),
  jobs: z.array(jobSchema),
  incidents: z.array(incidentSchema),
});

export const incidentPageSchema = z.object({ incidents: z.array(incidentSchema), next: z.string().nullable() });

export const incidentsQuery = z.strictObject({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

type Job = z.infer<typeof jobSchema>;
type Incident = z.infer<typeof incidentSchema>;

/** Dead letters of one workflow read per report, newest first. */
const deadLettersShown = 20;

const isoOf = (ms: number) => new Date(ms).toISOString();

export function incidentOf(letter: DeadLetter): Incident {
  const message = letter.entry.message;
  return {
    kind: 'deadLetter',
    workflowId: message.kind === 'invalid' ? '' : message.workflowId,
    jobId: message.kind === 'job' ? message.jobId : null,
    type: message.kind === 'job' ? message.type : message.kind,
    reason: letter.reason,
    deliveries: letter.entry.deliveries,
    at: isoOf(letter.at),
    id: letter.id,
  };
}

export interface JobReportDeps {
  store: WorkflowStore;
  jobs?: ExternalJobs | undefined;
  clock: () => number;
}

/** The workflow's jobs and incidents as the store and its definition know them now. */
export async function workflowJobs(
  deps: JobReportDeps,
  definition: WorkflowDefinition,
  record: WorkflowRecord,
): Promise<z.infer<typeof workflowJobsSchema>> {
  const { store, clock } = deps;
  const now = clock();
  const id = record.workflowId;
  const context: unknown =
    record.status === 'active' ? restoreSnapshot(definition.machine, id, record.snapshot).context : null;
  const inFlight =
    record.status === 'active'
      ? Object.entries(definition.currentJobs(context, record.statePaths)).flatMap(([operation, jobId]) =>
          jobId === undefined ? [] : [{ operation, jobId }],
        )
      : [];
  const attempts: Readonly<Record<string, JobAttempts>> =
    record.status === 'active' ? (definition.jobAttempts?.(context, Object.keys(record.timers)) ?? {}) : {};
  const inFlightIds = new Set(inFlight.map((job) => job.jobId));
  const retrying = Object.entries(attempts).flatMap(([operation, a]) =>
    a.retryTimer !== null && !inFlightIds.has(a.jobId) ? [{ operation, jobId: a.jobId, timer: a.retryTimer }] : [],
  );
  const [stored, letters] = await Promise.all([
    store.jobsOf(
      id,
      [...inFlight, ...retrying].map((job) => job.jobId),
    ),
    store.deadLettersOf(id, deadLettersShown),
  ]);
  const storedBy = new Map(stored.map((job) => [job.jobId, job]));
  const givenUp = new Map<string, DeadLetter>();
  for (const letter of letters) {
    const message = letter.entry.message;
    if (message.kind === 'job' && !givenUp.has(message.jobId)) givenUp.set(message.jobId, letter);
  }
  const typeOf = (operation: string) =>
    Object.entries(definition.effects).find(([, effect]) => effect.operation === operation)?.[0] ?? operation;
  const external = (type: string) => deps.jobs?.external(definition.id, type) === true;

  const jobs: Job[] = [];
  for (const { operation, jobId } of inFlight) {
    const type = typeOf(operation);
    const kept = storedBy.get(jobId);
    const outside = external(type);
    const queued = outside && kept?.outbox === 'acknowledged' ? await deps.jobs?.find(jobId) : null;
    // A worker of Warden leases every job it reads, also one it only hands to an external queue:
    // an external job's lease is its claimer's only once an external worker claimed it.
    const claims = queued?.deliveries ?? 0;
    const lease = outside && claims === 0 ? null : (kept?.lease ?? null);
    const letter = givenUp.get(jobId);
    const status: Job['status'] = letter
      ? 'deadLettered'
      : lease && lease.expiresAt >= now
        ? 'running'
        : lease
          ? 'leaseExpired'
          : 'queued';
    jobs.push({
      ...common(jobId, type, operation, kept, attempts[operation]),
      status,
      runsOn: outside ? 'external' : 'warden',
      lease: lease ? { owner: lease.owner, expiresAt: isoOf(lease.expiresAt), expired: lease.expiresAt < now } : null,
      deliveries: outside ? claims : (kept?.deliveries ?? 0),
      nextAttemptAt: null,
      lastError: letter?.reason ?? null,
    });
  }
  for (const { operation, jobId, timer } of retrying) {
    const type = typeOf(operation);
    const kept = storedBy.get(jobId);
    const due = record.timers[timer]?.dueAt;
    const failed = kept ? await answerOf(store, id, kept) : null;
    jobs.push({
      ...common(jobId, type, operation, kept, attempts[operation]),
      status: 'waitingToRetry',
      runsOn: external(type) ? 'external' : 'warden',
      lease: null,
      deliveries: kept?.deliveries ?? 0,
      nextAttemptAt: due === undefined ? null : isoOf(due),
      lastError: givenUp.get(jobId)?.reason ?? failed,
    });
  }
  const stuck: Incident[] = jobs.flatMap((job) =>
    job.status === 'leaseExpired' && job.lease
      ? [
          {
            kind: 'leaseExpired' as const,
            workflowId: id,
            jobId: job.jobId,
            type: job.type,
            reason: `the lease of ${job.lease.owner} ran out and no worker took the job again`,
            deliveries: job.deliveries,
            at: job.lease.expiresAt,
            id: null,
          },
        ]
      : [],
  );
  return { workflowId: id, jobs, incidents: [...stuck, ...letters.map(incidentOf)] };
}

/** Entries read after a job's request to find its result. */
const resultSearch = 20;

/**
 * How the job's last attempt ended, from the audit entry of its result (the failure event, and the
 * reason it states): one bounded page of the trail, from the request on.
 */
async function answerOf(store: WorkflowStore, workflowId: string, job: StoredJob): Promise<string | null> {
  const page = await store.auditPage(workflowId, { cursor: job.auditCursor, limit: resultSearch });
  const answer = page.items.find((entry) => entry.causationId === job.jobId);
  return answer ? `${answer.eventType}${answer.reason ? `: ${answer.reason}` : ''}` : null;
}

function common(
  jobId: string,
  type: string,
  operation: string,
  kept: StoredJob | undefined,
  attempts: JobAttempts | undefined,
) {
  const by = kept?.requestedBy;
  const own = attempts?.jobId === jobId ? attempts : undefined;
  return {
    jobId,
    type,
    operation,
    requestedBy: by ? { eventId: by.eventId, eventType: by.eventType, state: by.to, at: isoOf(by.at) } : null,
    attempt: own?.attempt ?? null,
    maxAttempts: own?.maxAttempts ?? null,
    createdAt: kept ? isoOf(kept.requestedAt) : null,
  };
}
