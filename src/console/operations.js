// A workflow's operations card: its timers (the view's `timers`), the jobs it waits on as the store
// keeps them (`GET /v1/workflows/{id}/jobs`: status, lease, attempts, next retry) and its incidents
// (a person's review the view shows, the jobs given up or stuck, and the refused events of its trail).
import { duration, el, statePath, table, time } from './dom.js';

/** Shown at most, newest first, of each kind of incident. */
const incidentsShown = 10;

/** `xstate.after.workflowDeadline.support.manualReview`: the delay's name and the state that armed it. */
function timerName(id) {
  const after = /^xstate\.after\.([^.]+)\.[^.]+\.(.+)$/.exec(id);
  return after ? [after[1], ' in ', statePath(after[2])] : id;
}

function timersPart(workflow) {
  const timers = workflow.timers || [];
  return el(
    'div',
    { id: 'timers' },
    el('h3', {}, `Timers (${timers.length})`),
    timers.length === 0
      ? el(
          'p',
          { class: 'muted' },
          workflow.status === 'active' ? 'No timer armed.' : 'None: the workflow has finished.',
        )
      : table(
          { class: 'cards-on-phone' },
          ['Timer', 'Due', 'In'],
          timers.map((t) => ({
            attributes: { 'data-timer': t.id },
            cells: [timerName(t.id), time(t.dueAt), t.inMs > 0 ? duration(t.inMs) : 'due now'],
          })),
        ),
  );
}

/** A job's status in words, with what goes with it (its lease, its next attempt). */
function statusOf(job, now) {
  switch (job.status) {
    case 'running':
      return `running: ${job.lease.owner} holds it, lease ends in ${duration(Date.parse(job.lease.expiresAt) - now)}`;
    case 'leaseExpired':
      return `stuck: the lease of ${job.lease.owner} ran out ${duration(now - Date.parse(job.lease.expiresAt))} ago`;
    case 'waitingToRetry':
      return job.nextAttemptAt
        ? `waiting to retry: next attempt ${time(job.nextAttemptAt)} (in ${duration(Date.parse(job.nextAttemptAt) - now)})`
        : 'waiting to retry';
    case 'deadLettered':
      return 'given up (dead letter)';
    default:
      return job.runsOn === 'external' ? 'queued for an external worker' : 'queued';
  }
}

/** `2 of 3`, or the deliveries alone when the definition does not say its attempts. */
function attemptsOf(job) {
  const attempts = job.attempt === null ? null : `${job.attempt} of ${job.maxAttempts}`;
  const deliveries =
    job.deliveries > 0 ? `${job.deliveries} ${job.deliveries === 1 ? 'delivery' : 'deliveries'}` : null;
  return [attempts, deliveries].filter(Boolean).join(' · ') || '—';
}

function jobsPart(report, now) {
  const jobs = report.jobs;
  return el(
    'div',
    { id: 'jobs' },
    el('h3', {}, `Jobs (${jobs.length})`),
    jobs.length === 0
      ? el('p', { class: 'muted' }, 'None: the workflow waits on no job.')
      : table(
          { class: 'cards-on-phone' },
          ['Job', 'Asked for by', 'Status', 'Attempts', 'Since', 'Last error'],
          jobs.map((job) => ({
            attributes: { 'data-job': job.jobId, 'data-status': job.status },
            cells: [
              { attributes: { class: 'id' }, content: [job.type, el('br'), el('span', { class: 'muted' }, job.jobId)] },
              job.requestedBy ? job.requestedBy.eventType : '—',
              { attributes: { class: 'job-status' }, content: statusOf(job, now) },
              { attributes: { class: 'attempts' }, content: attemptsOf(job) },
              job.createdAt ? time(job.createdAt) : '—',
              job.lastError || '—',
            ],
          })),
        ),
  );
}

/** What the workflow's own view says a person must look at: a manual review or an escalation. */
function handedToPerson(workflow) {
  return ['manualReview', 'escalation']
    .filter((key) => workflow[key] && typeof workflow[key] === 'object')
    .map((key) => {
      const r = workflow[key];
      const detail = [r.reason, r.step ? `at ${r.step}` : null, r.owner ? `owner ${r.owner}` : null, r.detail]
        .filter(Boolean)
        .join(', ');
      return {
        at: r.openedAt || r.at || null,
        kind: key === 'manualReview' ? 'manual review' : 'escalation',
        what: r.overdue ? 'open, overdue' : r.deadline ? `open, due ${time(r.deadline)}` : 'open',
        detail,
      };
    });
}

/** The kinds of the API's incidents, in words. */
const incidentKinds = { deadLetter: 'dead letter', leaseExpired: 'stuck job' };

/**
 * The incidents: a person's review the view shows, the jobs given up or stuck (the API's
 * `incidents`), and the events refused (the audit trail's own outcomes).
 */
export function incidentsOf(workflow, report, entries) {
  const jobs = report.incidents.map((i) => ({
    at: i.at,
    kind: incidentKinds[i.kind] || i.kind,
    what: i.jobId ? `job ${i.jobId}` : i.type || '',
    detail: i.reason,
  }));
  // A late or repeated result (a stale job or timer) is routine, not an incident.
  const refusals = entries
    .filter((e) => e.outcome !== 'accepted' && e.outcome !== 'STALE_JOB' && e.outcome !== 'STALE_TIMER')
    .slice(-incidentsShown)
    .reverse()
    .map((e) => ({
      at: e.at,
      kind: 'refused',
      what: `${e.eventType}: ${e.outcome}`,
      detail: [e.actor.id, ...e.guard.failedChecks].join(' · '),
    }));
  return [...handedToPerson(workflow), ...jobs, ...refusals];
}

function incidentsPart(workflow, report, trail) {
  const incidents = incidentsOf(workflow, report, trail.entries);
  // Beyond its cap the store counts refusals without recording them: say so when some were only counted.
  const counted = trail.refusalsCounted || 0;
  const recorded = trail.entries.filter((e) => e.outcome !== 'accepted').length;
  return el(
    'div',
    { id: 'incidents' },
    el('h3', {}, `Incidents (${incidents.length})`),
    incidents.length === 0
      ? el('p', { class: 'muted' }, 'None: no manual review, job given up or stuck, or refusal.')
      : table(
          { class: 'cards-on-phone' },
          ['When', 'Kind', 'What', 'Detail'],
          incidents.map((i) => ({
            attributes: { 'data-incident': i.kind },
            cells: [i.at === null ? '—' : time(i.at), i.kind, i.what, i.detail],
          })),
        ),
    counted > recorded
      ? el('p', { class: 'muted' }, `${counted} refusals in all; the trail keeps the first ${recorded}.`)
      : null,
  );
}

/** The card: timers, the jobs it waits on (`GET /v1/workflows/{id}/jobs`), incidents. */
export function operationsCard(workflow, trail, report, now) {
  return el(
    'section',
    { class: 'card', id: 'operations', 'aria-labelledby': 'operations-title' },
    el('h2', { id: 'operations-title' }, 'Timers, jobs and incidents'),
    timersPart(workflow),
    jobsPart(report, now),
    incidentsPart(workflow, report, trail),
  );
}
