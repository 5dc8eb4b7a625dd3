// Small DOM and formatting helpers the console's pages share.

const messageBox = () => document.getElementById('message');

/** An element with `attributes` (`onclick` a listener; false, null and undefined left out) and children. */
export function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'onclick') node.addEventListener('click', value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Shows a message above the page: an error unless `kind` is 'ok'. */
export function show(text, kind) {
  const box = messageBox();
  box.textContent = text;
  box.className = kind === 'ok' ? 'ok' : '';
  box.hidden = false;
}

export function clearMessage() {
  const box = messageBox();
  box.hidden = true;
  box.textContent = '';
}

export function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h ${m % 60} min` : `${Math.floor(h / 24)} d ${h % 24} h`;
}

export function time(value) {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().replace('T', ' ').slice(0, 19);
}

/** `customerId` reads as "Customer id". */
export function heading(name) {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A state path (`beforeAction.gatheringEvidence.policy`) that a narrow column may wrap only after
 * a dot, never inside a state's name: each name is kept whole, with a break opportunity after it.
 */
export function statePath(path) {
  const names = path.split('.');
  return el(
    'span',
    { class: 'path' },
    names.map((name, i) => [el('span', { class: 'path-name' }, i < names.length - 1 ? `${name}.` : name), el('wbr')]),
  );
}

/** Several state paths, comma separated, each wrapping only at its dots. */
export function statePaths(paths) {
  return paths.flatMap((path, i) => (i > 0 ? [', ', statePath(path)] : [statePath(path)]));
}

/**
 * A table whose cells carry their column's heading (`data-label`): at phone width the stylesheet
 * lays each row out as a card of labelled lines instead of columns running off the screen.
 */
export function table(attributes, headings, rows) {
  return el(
    'table',
    attributes,
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headings.map((h) => el('th', {}, h)),
      ),
    ),
    el(
      'tbody',
      {},
      rows.map(({ attributes: rowAttributes, cells }) =>
        el(
          'tr',
          rowAttributes || {},
          cells.map((cell, i) => {
            const { attributes: cellAttributes, content } =
              cell && typeof cell === 'object' && !(cell instanceof Node) && !Array.isArray(cell)
                ? cell
                : { attributes: {}, content: cell };
            return el('td', { 'data-label': headings[i], ...cellAttributes }, content);
          }),
        ),
      ),
    ),
  );
}
