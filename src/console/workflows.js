// The workflows page: every workflow of this person's tenant, newest first, running and finished,
// searched by id and filtered by definition, status and state, a page at a time (`next page` follows
// the API's cursor). A state filter lists that queue (running workflows, oldest waiting first).
// The filters live in the address (`#/workflows?definition=support&status=done`), so a page can be
// shared, reloaded and gone back to.
import { api } from './api.js';
import { duration, el, heading, statePaths, table, time } from './dom.js';
import { summaryColumns, summaryValue } from './queues.js';
import { isCurrent } from './session.js';

const filters = ['id', 'definition', 'status', 'state'];
/** What the address may carry besides the filters: the page size (25 unless told) and the cursor. */
const pageSize = (query) => (/^\d{1,3}$/.test(query.get('limit') || '') ? query.get('limit') : '25');
const statusLabels = { active: 'Running', done: 'Finished' };

/** The hash of the workflows page with these filters (empty ones left out), page size and cursor. */
export function workflowsHref(values, cursor) {
  const query = new URLSearchParams();
  for (const name of filters) if (values[name]) query.set(name, values[name]);
  if (values.limit && values.limit !== '25') query.set('limit', values.limit);
  if (cursor) query.set('cursor', cursor);
  const text = query.toString();
  return text ? `#/workflows?${text}` : '#/workflows';
}

function choice(name, label, options, selected) {
  return el(
    'label',
    {},
    `${label} `,
    el(
      'select',
      { name, id: `filter-${name}` },
      options.map(([value, text]) => el('option', { value, selected: value === selected }, text)),
    ),
  );
}

function filterForm(values, definitions) {
  const states = [...new Set(definitions.flatMap((d) => d.queues.map((q) => q.state)))];
  const form = el(
    'form',
    { id: 'workflow-filters', class: 'filters', role: 'search' },
    el(
      'label',
      {},
      'Id ',
      el('input', { name: 'id', id: 'filter-id', value: values.id || '', placeholder: 's001-…', spellcheck: 'false' }),
    ),
    choice(
      'definition',
      'Definition',
      [['', 'Any'], ...definitions.map((d) => [d.id, d.title || d.id])],
      values.definition,
    ),
    choice('status', 'Status', [['', 'Any'], ...Object.entries(statusLabels)], values.status || ''),
    el(
      'label',
      {},
      'State ',
      el('input', {
        name: 'state',
        id: 'filter-state',
        list: 'filter-states',
        value: values.state || '',
        placeholder: 'any',
        spellcheck: 'false',
      }),
    ),
    el(
      'datalist',
      { id: 'filter-states' },
      states.map((state) => el('option', { value: state })),
    ),
    el('button', { type: 'submit', id: 'filter-apply' }, 'Search'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const chosen = Object.fromEntries(filters.map((name) => [name, String(data.get(name) || '').trim()]));
    chosen.limit = values.limit;
    location.hash = workflowsHref(chosen, null);
  });
  return form;
}

/** A row of the list (or of a queue, with `state`): its cells under the page's headings. */
function row(item, queue, columns) {
  const link = el(
    'a',
    { href: `#/workflows/${encodeURIComponent(item.workflowId)}`, 'data-workflow-id': item.workflowId },
    item.workflowId,
  );
  const status = queue ? 'active' : item.status;
  return {
    attributes: { 'data-status': status },
    cells: [
      link,
      queue ? queue.definition : item.definition,
      { attributes: { class: `status-${status}` }, content: statusLabels[status] || status },
      statePaths(queue ? [item.statePath] : item.statePaths),
      time(queue ? item.since : item.createdAt),
      queue ? duration(item.timeInStateMs) : time(item.updatedAt),
      ...columns.map((name) => ({ attributes: { 'data-field': name }, content: summaryValue(item.summary, name) })),
    ],
  };
}

export async function renderWorkflows(view, mine, query) {
  const values = Object.fromEntries(filters.map((name) => [name, query.get(name) || '']));
  values.limit = pageSize(query);
  const cursor = query.get('cursor');
  const asked = new URLSearchParams({ limit: values.limit });
  for (const name of filters) if (values[name]) asked.set(name, values[name]);
  if (cursor) asked.set('cursor', cursor);
  const [{ definitions }, page] = await Promise.all([api('/v1/definitions'), api(`/v1/workflows?${asked}`)]);
  // The person may have moved on while the list loaded: never draw over their page.
  if (!isCurrent(mine)) return;
  const queue = values.state ? page : null;
  const columns = summaryColumns(page.items);
  view.replaceChildren(
    el('h1', {}, 'Workflows'),
    filterForm(
      values,
      definitions.filter((d) => d.latest),
    ),
    el(
      'p',
      // The address this list was drawn for: what a reader (or a test) waits on after a change of filters.
      { class: 'muted', id: 'list-order', 'data-hash': workflowsHref(values, cursor) },
      queue
        ? `The ${queue.definition} queue in ${queue.state}: running workflows, longest waiting first.`
        : 'Newest first, running and finished.',
    ),
    page.items.length === 0
      ? el('p', { class: 'muted', id: 'no-workflows' }, 'No workflow matches.')
      : table(
          { class: 'cards-on-phone', id: 'workflow-list' },
          [
            'Workflow',
            'Definition',
            'Status',
            'State',
            queue ? 'In state since' : 'Created',
            queue ? 'Waiting' : 'Updated',
            ...columns.map(heading),
          ],
          page.items.map((item) => row(item, queue, columns)),
        ),
    el(
      'div',
      { class: 'pager' },
      cursor ? el('a', { href: workflowsHref(values, null), id: 'first-page' }, 'First page') : null,
      page.next ? el('a', { href: workflowsHref(values, page.next), id: 'next-page' }, 'Next page') : null,
    ),
  );
}
