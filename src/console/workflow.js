// A workflow's page: its state, the events this person may send now, its evidence, its timers,
// jobs and incidents, its live statechart and its audit timeline. Followed live while it runs.
import { api, definitionHref, describedDefinition } from './api.js';
import {
  applyZoom,
  focusedSource,
  fullSource,
  isBusy,
  mermaidId,
  renderSvg,
  revealActive,
  stepZoom,
} from './diagram.js';
import { el, show, statePaths, table, time } from './dom.js';
import { eventButtons, presentationOf } from './events.js';
import { operationsCard } from './operations.js';
import { isCurrent, onLeave } from './session.js';
import { follow } from './stream.js';

/**
 * Draws the workflow's chart in `container`: the whole chart, or (`options.focused`) only the
 * active states and their neighbours; fitted to the box unless `options.zoom` scales it.
 */
async function drawDiagram(container, workflow, options) {
  const described = await describedDefinition(workflow.definition);
  const active = workflow.state;
  const source = options.focused ? focusedSource(described, active) : fullSource(described);
  const root = described.graph.nodes[0].id;
  const labels = active.map((path) => mermaidId(`${root}.${path}`));
  const text = `${source.text}  classDef active fill:#fde68a,stroke:#b45309,stroke-width:3px\n${labels
    .map((label) => `  class ${label} active\n`)
    .join('')}`;
  container.innerHTML = await renderSvg(text);
  container.setAttribute('data-active', active.join(' '));
  container.setAttribute('data-view', options.focused ? 'focused' : 'full');
  container.setAttribute('data-edges', String(source.edges));
  applyZoom(container, options.zoom);
  revealActive(container);
}

/** The diagram card: the chart's box and its controls (focused view, zoom in and out, fit). */
function diagramCard(diagram, options, redraw) {
  const focus = el('input', { type: 'checkbox', id: 'diagram-focus' });
  focus.addEventListener('change', () => {
    options.focused = focus.checked;
    void redraw();
  });
  const zoom = (direction) => () => {
    options.zoom = direction === 0 ? null : stepZoom(diagram, direction);
    applyZoom(diagram, options.zoom);
    revealActive(diagram);
  };
  const card = el(
    'section',
    { class: 'card diagram-card' },
    el(
      'div',
      { class: 'diagram-tools' },
      el('h2', {}, 'Statechart'),
      el('label', { title: 'Only the active state, where it came from and where it may go next' }, focus, ' Focused'),
      el('button', { type: 'button', id: 'zoom-out', title: 'Zoom out', onclick: zoom(-1) }, '−'),
      el('button', { type: 'button', id: 'zoom-fit', title: 'Fit to width', onclick: zoom(0) }, 'Fit'),
      el('button', { type: 'button', id: 'zoom-in', title: 'Zoom in', onclick: zoom(1) }, '+'),
    ),
    diagram,
  );
  return { card, sync: () => (focus.checked = options.focused === true) };
}

function evidenceCard(workflow) {
  // A supporting fact (a model's rationale) is what the model said, not evidence: shown apart.
  const rows = presentationOf(workflow).facts.flatMap((fact) => [
    el('dt', { class: fact.supporting ? 'supporting' : undefined }, fact.label),
    el('dd', { class: fact.supporting ? 'supporting' : undefined, 'data-supporting': fact.supporting }, fact.value),
  ]);
  return el(
    'section',
    { class: 'card', id: 'evidence' },
    el('h2', {}, 'Evidence'),
    rows.length ? el('dl', {}, rows) : el('p', { class: 'muted' }, 'No evidence yet.'),
  );
}

/** A timer's audit entry reads `timer <delay>`; any other event its type. */
const whatHappened = (type) => (type.startsWith('xstate.after.') ? `timer ${type.split('.')[2]}` : type);

function auditCard(entries, workflow) {
  // What an accepted event brought in is shown for the latest one of its type (earlier ones were superseded).
  const latest = new Map();
  entries.forEach((entry, i) => {
    if (entry.outcome === 'accepted') latest.set(entry.eventType, i);
  });
  const artifacts = presentationOf(workflow).artifacts;
  return el(
    'section',
    { class: 'card' },
    el('h2', {}, 'Audit timeline'),
    table(
      { id: 'audit', class: 'cards-on-phone' },
      ['When', 'Who', 'What', 'Outcome', 'Guard', 'Artifacts', 'From → to'],
      entries.map((entry, i) => ({
        attributes: { 'data-event': entry.eventType },
        cells: [
          time(entry.at),
          `${entry.actor.id}${entry.actor.roles.length ? ` (${entry.actor.roles.join(', ')})` : ''}`,
          [
            whatHappened(entry.eventType),
            // The stated reason the entry keeps (older entries have none).
            entry.reason ? el('div', { class: 'muted reason' }, entry.reason) : null,
          ],
          {
            attributes: {
              // A late or repeated result (a stale job or timer) is routine, not a fault: muted, not red.
              class:
                entry.outcome === 'accepted'
                  ? ''
                  : entry.outcome === 'STALE_JOB' || entry.outcome === 'STALE_TIMER'
                    ? 'stale'
                    : 'refused',
              'data-outcome': entry.outcome,
            },
            content: entry.outcome,
          },
          entry.guard.outcome === 'none'
            ? ''
            : `${entry.guard.outcome}: ${entry.guard.guards.join(', ')}${entry.guard.failedChecks.length ? ` (${entry.guard.failedChecks.join(', ')})` : ''}`,
          {
            attributes: { class: 'artifact' },
            content:
              latest.get(entry.eventType) === i
                ? artifacts[entry.eventType] || ''
                : // A superseded entry still names what it cited: its artifacts can be fetched by reference.
                  (entry.artifactRefs || []).map((ref) => el('div', { class: 'muted' }, ref.split('#')[0])),
          },
          {
            attributes: { class: 'transition' },
            content: [entry.from.length ? statePaths(entry.from) : '—', ' → ', statePaths(entry.to)],
          },
        ],
      })),
    ),
  );
}

export async function renderWorkflow(view, mine, id) {
  const path = `/v1/workflows/${encodeURIComponent(id)}`;
  const state = el('p', { id: 'state' });
  const diagram = el('div', { id: 'diagram' });
  // What the person chose stays while the page follows the workflow: null until the chart is known.
  const diagramOptions = { focused: null, zoom: null };
  const events = el('section', { class: 'card events', id: 'events' });
  const side = el('div', {});
  const operations = el('div', {});
  const audit = el('div', {});
  let shown = -1;
  let drawing = Promise.resolve();
  let latest = null;
  let stop = null;
  const redraw = () => {
    if (!latest) return drawing;
    const workflow = latest;
    drawing = drawing
      .then(async () => {
        if (diagramOptions.focused === null) {
          diagramOptions.focused = isBusy(await describedDefinition(workflow.definition));
          controls.sync();
        }
        await drawDiagram(diagram, workflow, diagramOptions);
      })
      .catch((error) => show(`The diagram cannot be drawn: ${error.message}`));
    return drawing;
  };
  const controls = diagramCard(diagram, diagramOptions, redraw);
  view.replaceChildren(
    el('h1', {}, `Workflow ${id}`),
    state,
    el('div', { class: 'grid' }, events, side),
    operations,
    controls.card,
    audit,
  );

  const refresh = async () => {
    const [workflow, trail, report] = await Promise.all([
      api(path),
      api(`${path}/audit?limit=500`),
      api(`${path}/jobs`),
    ]);
    if (workflow.version < shown) return workflow;
    shown = workflow.version;
    const [definitionId, definitionVersion] = workflow.definition.split('@');
    state.replaceChildren(
      el('a', { href: definitionHref(definitionId, definitionVersion) }, workflow.definition),
      ` · version ${workflow.version} · `,
      workflow.status === 'active' ? '' : 'finished: ',
      ...statePaths(workflow.state),
    );
    state.setAttribute('data-version', String(workflow.version));
    events.replaceChildren(el('h2', {}, 'What you may do now'), eventButtons(workflow, refresh));
    side.replaceChildren(evidenceCard(workflow));
    operations.replaceChildren(operationsCard(workflow, trail, report, Date.now()));
    audit.replaceChildren(auditCard(trail.entries, workflow));
    latest = workflow;
    // Finished, nothing more will come: the live stream ends.
    if (workflow.status !== 'active' && stop) stop();
    await redraw();
    return workflow;
  };

  const first = await refresh();
  if (first.status === 'active' && isCurrent(mine)) {
    const again = () => refresh().catch((error) => show(error.message));
    stop = follow(id, first.version, (version) => (version > shown ? void again() : undefined), again);
    onLeave(stop);
  }
}
