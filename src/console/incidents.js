// The incidents page: the dead letters of the operator's tenant (`GET /v1/incidents`), newest first,
// each with its workflow, its job and why it was given up; older ones a page at a time.
import { api } from './api.js';
import { el, table, time } from './dom.js';
import { isCurrent } from './session.js';

/** Incidents read per page. */
const pageSize = 50;

function rows(incidents) {
  return incidents.map((i) => ({
    attributes: { 'data-incident-id': i.id || '', 'data-workflow': i.workflowId },
    cells: [
      time(i.at),
      el(
        'a',
        { href: `#/workflows/${encodeURIComponent(i.workflowId)}`, 'data-workflow-id': i.workflowId },
        i.workflowId,
      ),
      { attributes: { class: 'id' }, content: i.jobId || i.type || '—' },
      i.type || '—',
      String(i.deliveries),
      i.reason,
    ],
  }));
}

export async function renderIncidents(view, mine) {
  const first = await api(`/v1/incidents?limit=${pageSize}`);
  if (!isCurrent(mine)) return;
  const shown = [...first.incidents];
  let next = first.next;
  const list = el('div', { id: 'incident-list' });
  const more = el('button', { type: 'button', id: 'older-incidents' }, 'Older');
  const draw = () => {
    list.replaceChildren(
      shown.length === 0
        ? el('p', { class: 'muted' }, 'None: no job of your tenant was given up.')
        : table(
            { class: 'cards-on-phone' },
            ['When', 'Workflow', 'Job', 'Effect', 'Deliveries', 'Why it was given up'],
            rows(shown),
          ),
    );
    more.hidden = next === null;
  };
  more.addEventListener('click', async () => {
    const page = await api(`/v1/incidents?limit=${pageSize}&cursor=${encodeURIComponent(next)}`);
    if (!isCurrent(mine)) return;
    shown.push(...page.incidents);
    next = page.next;
    draw();
  });
  draw();
  view.replaceChildren(
    el('h1', {}, 'Incidents'),
    el(
      'p',
      { class: 'muted' },
      'Jobs of your tenant given up, newest first. Each workflow was handed to a person by its dead-letter event: decide it on its page.',
    ),
    list,
    more,
  );
}
