// A workflow's operations card: its timers, the jobs it waits on and its incidents, from what the
// API exposes today — the view's `timers`, and the audit trail (which jobs each accepted step asked
// for and which results came back, dead-letter escalations, failures jobs reported, refusals).
// Jobs' queue state (leased, attempts, next retry) is not exposed by the API yet.
import { duration, el, statePath, table, time } from './dom.js';

/** Shown at most, newest first, of each kind of incident. */
const incidentsShown = 10;

/** A job's result event naming a failure (`RETRYABLE_ERROR`, `ACTION_FAILED`, `ACTION_OUTCOME_UNKNOWN`). */
const failure = /(^|_)(ERROR|FAILED|FAILURE|UNKNOWN)$/;

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

/** The jobs accepted steps asked for whose result (or dead letter) is not in the trail yet. */
export function jobsWaitedOn(entries) {
  const answered = new Set();
  for (const entry of entries) {
    if (entry.causationId) answered.add(entry.causationId);
    if (entry.eventId.endsWith('/dead-letter')) answered.add(entry.eventId.slice(0, -'/dead-letter'.length));
  }
  return entries
    .filter((entry) => entry.outcome === 'accepted')
    .flatMap((entry) => (entry.effects || []).map((jobId) => ({ jobId, entry })))
    .filter(({ jobId }) => !answered.has(jobId));
}

function jobsPart(workflow, entries, now) {
  const jobs = workflow.status === 'active' ? jobsWaitedOn(entries) : [];
  return el(
    'div',
    { id: 'jobs' },
    el('h3', {}, `Jobs in flight (${jobs.length})`),
    jobs.length === 0
      ? el('p', { class: 'muted' }, 'None: no job asked for is without its result.')
      : table(
          { class: 'cards-on-phone' },
          ['Job', 'Asked for by', 'Since', 'Waiting'],
          jobs.map(({ jobId, entry }) => ({
            attributes: { 'data-job': jobId },
            cells: [
              { attributes: { class: 'id' }, content: jobId },
              entry.eventType,
              time(entry.at),
              duration(now - entry.at),
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

export function incidentsOf(workflow, entries) {
  const newest = (list) => list.slice(-incidentsShown).reverse();
  const deadLetters = entries
    .filter((e) => e.eventId.endsWith('/dead-letter'))
    .map((e) => ({
      at: e.at,
      kind: 'dead letter',
      what: `job ${e.eventId.slice(0, -'/dead-letter'.length)} given up`,
      detail: e.reason || '',
    }));
  const failures = entries
    .filter((e) => e.causationId && failure.test(e.eventType))
    .map((e) => ({ at: e.at, kind: 'job failure', what: e.eventType, detail: e.reason || `job ${e.causationId}` }));
  // A late or repeated result (a stale job or timer) is routine, not an incident.
  const refusals = entries
    .filter((e) => e.outcome !== 'accepted' && e.outcome !== 'STALE_JOB' && e.outcome !== 'STALE_TIMER')
    .map((e) => ({
      at: e.at,
      kind: 'refused',
      what: `${e.eventType}: ${e.outcome}`,
      detail: [e.actor.id, ...e.guard.failedChecks].join(' · '),
    }));
  return [...handedToPerson(workflow), ...newest(deadLetters), ...newest(failures), ...newest(refusals)];
}

function incidentsPart(workflow, trail) {
  const incidents = incidentsOf(workflow, trail.entries);
  // Beyond its cap the store counts refusals without recording them: say so when some were only counted.
  const counted = trail.refusalsCounted || 0;
  const recorded = trail.entries.filter((e) => e.outcome !== 'accepted').length;
  return el(
    'div',
    { id: 'incidents' },
    el('h3', {}, `Incidents (${incidents.length})`),
    incidents.length === 0
      ? el('p', { class: 'muted' }, 'None: no manual review, dead letter, job failure or refusal.')
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

/** The card: timers, jobs in flight, incidents. */
export function operationsCard(workflow, trail, now) {
  return el(
    'section',
    { class: 'card', id: 'operations', 'aria-labelledby': 'operations-title' },
    el('h2', { id: 'operations-title' }, 'Timers, jobs and incidents'),
    timersPart(workflow),
    jobsPart(workflow, trail.entries, now),
    incidentsPart(workflow, trail),
  );
}
