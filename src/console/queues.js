// The queues page: every registered definition's queues, with what a person decides from and how
// long each workflow has waited.
import { api } from './api.js';
import { duration, el, heading, table, time } from './dom.js';
import { isCurrent } from './session.js';

/**
 * The columns of a queue: the fields its definition summarises each workflow with, in its order.
 * A currency is shown with its amount, and a field no item has a value for is left out.
 */
export function summaryColumns(items) {
  const names = [];
  for (const item of items) {
    for (const [name, value] of Object.entries(item.summary || {})) {
      if (value !== null && value !== undefined && !names.includes(name)) names.push(name);
    }
  }
  return names.filter((name) => !(name === 'currency' && names.includes('amount')));
}

export function summaryValue(summary, name) {
  const value = summary ? summary[name] : null;
  if (value === null || value === undefined) return '—';
  if (name === 'amount' && typeof value === 'number') {
    return summary.currency ? `${value.toFixed(2)} ${summary.currency}` : String(value);
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export async function renderQueues(view, mine) {
  // The queues come from the registered definitions: each names the states people work from.
  const { definitions } = await api('/v1/definitions');
  const queues = definitions
    .filter((d) => d.latest)
    .flatMap((d) =>
      d.queues.map((q) => ({
        definition: d.id,
        state: q.state,
        short: q.state.split('.').pop(),
        title: `${d.title}: ${q.title}`,
      })),
    );
  const pages = await Promise.all(
    queues.map((q) =>
      api(
        `/v1/workflows?state=${encodeURIComponent(q.state)}&definition=${encodeURIComponent(q.definition)}&limit=100`,
      ),
    ),
  );
  // The person may have moved on (or signed out) while the queues loaded: never draw over their page.
  if (!isCurrent(mine)) return;
  view.replaceChildren(
    el('h1', {}, 'Queues'),
    ...queues.map((queue, i) => {
      const items = pages[i].items;
      const columns = summaryColumns(items);
      return el(
        'section',
        { 'data-queue': queue.short, 'data-definition': queue.definition },
        el('h2', {}, `${queue.title} (${items.length})`),
        items.length === 0
          ? el('p', { class: 'muted' }, 'Nothing waiting.')
          : table(
              { class: 'cards-on-phone' },
              ['Workflow', ...columns.map(heading), 'Since', 'Waiting'],
              items.map((item) => ({
                cells: [
                  el(
                    'a',
                    { href: `#/workflows/${encodeURIComponent(item.workflowId)}`, 'data-workflow-id': item.workflowId },
                    item.workflowId,
                  ),
                  ...columns.map((name) => ({
                    attributes: { 'data-field': name },
                    content: summaryValue(item.summary, name),
                  })),
                  time(item.since),
                  { attributes: { class: 'waiting' }, content: duration(item.timeInStateMs) },
                ],
              })),
            ),
      );
    }),
  );
}
