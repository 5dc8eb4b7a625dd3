// The definitions: the list, and one definition's versions with what changed since the previous
// registered one (the counts and states as `warden stately import` prints them, the authority
// changes apart, the chart with the changes marked); the first version shows its chart.
import { api, definitionHref, describedDefinition } from './api.js';
import { applyZoom, renderSvg, stepZoom } from './diagram.js';
import { el } from './dom.js';
import { isCurrent } from './session.js';

export async function renderDefinitions(view, mine) {
  const { definitions } = await api('/v1/definitions');
  if (!isCurrent(mine)) return;
  view.replaceChildren(
    el('h1', {}, 'Definitions'),
    el(
      'ul',
      { id: 'definitions' },
      definitions.map((d) =>
        el(
          'li',
          {},
          el('a', { href: definitionHref(d.id, d.version), 'data-definition': d.key }, `${d.title} (${d.key})`),
          d.latest ? ' · latest' : '',
        ),
      ),
    ),
  );
}

/** Draws Mermaid `text` in `container`, fitted to its width. */
async function drawMermaid(container, text) {
  container.innerHTML = await renderSvg(text);
  applyZoom(container, null);
}

/** Zoom out, fit and zoom in for a drawn chart. */
function zoomTools(diagram) {
  const zoom = (direction) => () => applyZoom(diagram, direction === 0 ? null : stepZoom(diagram, direction));
  return el(
    'div',
    { class: 'diagram-tools' },
    el('button', { type: 'button', title: 'Zoom out', 'aria-label': 'Zoom out', onclick: zoom(-1) }, '−'),
    el('button', { type: 'button', title: 'Fit to width', onclick: zoom(0) }, 'Fit'),
    el('button', { type: 'button', title: 'Zoom in', 'aria-label': 'Zoom in', onclick: zoom(1) }, '+'),
  );
}

/** The "Changes from vN" card: the summary's counts and states, the authority changes highlighted, the marked chart. */
function changesCard(changes, diagram) {
  const [counts, ...lines] = changes.summary;
  const marks = { '+': 'added', '-': 'removed', '~': 'moved' };
  const states = lines.map((line) => line.trim()).filter((line) => marks[line[0]]);
  const authority = changes.diff.authority;
  return el(
    'section',
    { class: 'card', id: 'changes', 'aria-labelledby': 'changes-title' },
    el(
      'h2',
      { id: 'changes-title' },
      `Changes from v${changes.from.split('@').pop()} (${changes.from} → ${changes.to})`,
    ),
    el('p', { id: 'changes-summary' }, counts || 'No differences.'),
    states.length > 0
      ? el(
          'ul',
          { id: 'changes-states', 'aria-label': 'States added, removed or moved' },
          states.map((line) => el('li', { class: `mark-${marks[line[0]]}`, 'data-mark': marks[line[0]] }, line)),
        )
      : null,
    authority.length > 0
      ? el(
          'div',
          { id: 'authority-changes', class: 'authority', role: 'region', 'aria-labelledby': 'authority-title' },
          el('h3', { id: 'authority-title' }, `Authority changes (${authority.length})`),
          el(
            'ul',
            {},
            authority.map((a) => el('li', { 'data-code': a.code }, el('strong', {}, a.code), ' ', a.message)),
          ),
        )
      : null,
    zoomTools(diagram),
    el(
      'p',
      { class: 'muted legend' },
      'In the chart: states added green, removed red and dashed, changed orange; transitions marked + added, − removed, ~ changed.',
    ),
    diagram,
  );
}

export async function renderDefinition(view, mine, id, version) {
  const { definitions } = await api('/v1/definitions');
  const versions = definitions.filter((d) => d.id === id);
  const definition = versions.find((d) => String(d.version) === version);
  if (!definition) throw new Error(`No definition ${id}@${version} is registered.`);
  const earlier = versions.some((d) => d.version < definition.version);
  const base = `/v1/definitions/${encodeURIComponent(id)}/${encodeURIComponent(version)}`;
  const changes = earlier ? await api(`${base}/diff`) : null;
  const described = changes ? null : await describedDefinition(definition.key);
  if (!isCurrent(mine)) return;
  const diagram = el('div', {
    class: 'diagram',
    id: changes ? 'diff-diagram' : 'definition-diagram',
    role: 'img',
    'aria-label': changes
      ? `Statechart of ${changes.to} with the changes from ${changes.from} marked`
      : `Statechart of ${definition.key}`,
  });
  view.replaceChildren(
    el('h1', {}, `${definition.title} (${definition.key})`),
    el('p', { class: 'muted' }, definition.description),
    el(
      'p',
      { id: 'versions' },
      'Versions: ',
      versions.flatMap((d, i) => [
        i > 0 ? ', ' : '',
        d === definition ? el('strong', {}, d.key) : el('a', { href: definitionHref(d.id, d.version) }, d.key),
      ]),
    ),
    changes
      ? changesCard(changes, diagram)
      : el(
          'section',
          { class: 'card', 'aria-labelledby': 'chart-title' },
          el('h2', { id: 'chart-title' }, 'Statechart'),
          diagram,
        ),
  );
  await drawMermaid(diagram, changes ? changes.mermaid : described.mermaid);
}
