// The Warden operator console: queues, a workflow's live statechart, its audit timeline, the
// events this person may send now, and each definition with what changed since its previous version. Plain browser JavaScript, no build step, no network beyond
// this origin. Every call carries the Bearer token the operator signed in with; the API decides.
'use strict';

(function () {
  const tokenKey = 'warden.token';
  const view = document.getElementById('view');
  const messageBox = document.getElementById('message');
  const dialog = document.getElementById('confirm');
  let stopStream = null;
  /** Bumped on every navigation: a page that finished loading after the user left must not start a stream. */
  let generation = 0;
  /** The described definitions (config, graph, Mermaid source), by `<id>@<version>`. */
  const diagrams = new Map();
  /** Mermaid sources, fitting and zoom of the statechart (diagram.js). */
  const chart = window.WardenDiagram;
  let diagramSeq = 0;

  mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'neutral' });

  // ---------- small helpers ----------

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'onclick') node.addEventListener('click', value);
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function show(text, kind) {
    messageBox.textContent = text;
    messageBox.className = kind === 'ok' ? 'ok' : '';
    messageBox.hidden = false;
  }

  function clearMessage() {
    messageBox.hidden = true;
    messageBox.textContent = '';
  }

  function duration(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return `${s} s`;
    const m = Math.floor(s / 60);
    if (m < 60) return `${m} min`;
    const h = Math.floor(m / 60);
    return h < 48 ? `${h} h ${m % 60} min` : `${Math.floor(h / 24)} d ${h % 24} h`;
  }

  function time(value) {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().replace('T', ' ').slice(0, 19);
  }

  function claimsOf(token) {
    try {
      const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
      return JSON.parse(atob(part));
    } catch {
      return null;
    }
  }

  /** The token's claims beyond the standard ones a definition reads (an approval limit), as ` · name value`. */
  function otherClaims(claims) {
    const standard = ['sub', 'tenant', 'roles', 'kind', 'iss', 'aud', 'exp', 'nbf', 'iat', 'jti'];
    return Object.entries(claims)
      .filter(([name, value]) => !standard.includes(name) && value !== null && typeof value !== 'object')
      .map(([name, value]) => ` · ${name} ${value}`)
      .join('');
  }

  class ApiProblem extends Error {
    constructor(status, body) {
      const error = (body && body.error) || {};
      const checks = error.details && error.details.failedChecks;
      const suffix = Array.isArray(checks) && checks.length > 0 ? ` (failed checks: ${checks.join(', ')})` : '';
      super(`${error.code || `HTTP ${status}`}: ${error.message || 'the request failed'}${suffix}`);
      this.status = status;
      this.code = error.code;
    }
  }

  async function api(path, options) {
    const token = sessionStorage.getItem(tokenKey);
    const headers = Object.assign({ Accept: 'application/json' }, (options && options.headers) || {});
    if (token) headers.Authorization = `Bearer ${token}`;
    let body;
    if (options && options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    let response;
    try {
      response = await fetch(path, { method: (options && options.method) || 'GET', headers, body });
    } catch (error) {
      throw new Error(`The server cannot be reached (${error.message}).`, { cause: error });
    }
    const text = await response.text();
    let parsed;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!response.ok) {
      if (response.status === 401) sessionStorage.removeItem(tokenKey);
      throw new ApiProblem(response.status, parsed);
    }
    return parsed;
  }

  // ---------- routing ----------

  function route() {
    generation++;
    if (stopStream) stopStream();
    stopStream = null;
    const hash = location.hash || '#/queues';
    const token = sessionStorage.getItem(tokenKey);
    document.getElementById('nav').hidden = !token;
    if (!token) return renderSignIn();
    const claims = claimsOf(token) || {};
    document.getElementById('who').textContent =
      `${claims.sub || '?'} · ${claims.tenant || '?'} · ${(claims.roles || []).join(', ')}` + otherClaims(claims);
    const match = /^#\/workflows\/([^/]+)$/.exec(hash);
    const definition = /^#\/definitions\/([^/]+)\/([^/]+)$/.exec(hash);
    const mine = generation;
    const page = match
      ? renderWorkflow(decodeURIComponent(match[1]))
      : definition
        ? renderDefinition(decodeURIComponent(definition[1]), decodeURIComponent(definition[2]))
        : hash === '#/definitions'
          ? renderDefinitions()
          : renderQueues();
    page.catch((error) => {
      if (mine !== generation) return; // a page the person already left
      if (error instanceof ApiProblem && error.status === 401) {
        renderSignIn();
      }
      show(error.message);
    });
  }

  window.addEventListener('hashchange', () => {
    clearMessage();
    route();
  });
  window.addEventListener('error', (event) => show(`Something went wrong: ${event.message}`));
  window.addEventListener('unhandledrejection', (event) => show(`Something went wrong: ${event.reason}`));
  document.getElementById('sign-out').addEventListener('click', () => {
    sessionStorage.removeItem(tokenKey);
    location.hash = '#/queues';
    route();
  });

  // ---------- sign in ----------

  function renderSignIn() {
    const input = el('textarea', { id: 'token', placeholder: 'eyJhbGciOi…', spellcheck: 'false' });
    const submit = async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!claimsOf(token)) return show('That is not a token: paste the JWT you were given.');
      sessionStorage.setItem(tokenKey, token);
      try {
        await api('/v1/definitions');
        clearMessage();
        if (location.hash === '#/queues' || !location.hash) route();
        else location.hash = '#/queues';
      } catch (error) {
        sessionStorage.removeItem(tokenKey);
        show(error.message);
      }
    };
    view.replaceChildren(
      el(
        'form',
        { class: 'card', id: 'sign-in-form' },
        el('h1', {}, 'Sign in'),
        el('p', { class: 'muted' }, 'Paste your Bearer token (mint one with npx warden token).'),
        input,
        el('p', {}, el('button', { type: 'submit', id: 'sign-in' }, 'Sign in')),
      ),
    );
    view.querySelector('form').addEventListener('submit', submit);
  }

  // ---------- queues ----------

  async function renderQueues() {
    // The queues come from the registered definitions: each names the states people work from.
    const mine = generation;
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
    if (mine !== generation) return;
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
            : el(
                'table',
                {},
                el(
                  'thead',
                  {},
                  el(
                    'tr',
                    {},
                    el('th', {}, 'Workflow'),
                    columns.map((name) => el('th', {}, heading(name))),
                    el('th', {}, 'Since'),
                    el('th', {}, 'Waiting'),
                  ),
                ),
                el(
                  'tbody',
                  {},
                  items.map((item) =>
                    el(
                      'tr',
                      {},
                      el(
                        'td',
                        {},
                        el(
                          'a',
                          {
                            href: `#/workflows/${encodeURIComponent(item.workflowId)}`,
                            'data-workflow-id': item.workflowId,
                          },
                          item.workflowId,
                        ),
                      ),
                      columns.map((name) => el('td', { 'data-field': name }, summaryValue(item.summary, name))),
                      el('td', {}, time(item.since)),
                      el('td', { class: 'waiting' }, duration(item.timeInStateMs)),
                    ),
                  ),
                ),
              ),
        );
      }),
    );
  }

  /**
   * The columns of a queue: the fields its definition summarises each workflow with, in its order.
   * A currency is shown with its amount, and a field no item has a value for is left out.
   */
  function summaryColumns(items) {
    const names = [];
    for (const item of items) {
      for (const [name, value] of Object.entries(item.summary || {})) {
        if (value !== null && value !== undefined && !names.includes(name)) names.push(name);
      }
    }
    return names.filter((name) => !(name === 'currency' && names.includes('amount')));
  }

  /** `customerId` reads as "Customer id". */
  function heading(name) {
    const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  function summaryValue(summary, name) {
    const value = summary ? summary[name] : null;
    if (value === null || value === undefined) return '—';
    if (name === 'amount' && typeof value === 'number') {
      return summary.currency ? `${value.toFixed(2)} ${summary.currency}` : String(value);
    }
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }

  // ---------- the workflow page ----------

  function activeStates(workflow) {
    return workflow.state;
  }

  async function describedDefinition(definition) {
    if (!diagrams.has(definition)) {
      const [id, version] = definition.split('@');
      diagrams.set(definition, await api(`/v1/definitions/${encodeURIComponent(id)}/${encodeURIComponent(version)}`));
    }
    return diagrams.get(definition);
  }

  /**
   * Draws the workflow's chart in `container`: the whole chart, or (`options.focused`) only the
   * active states and their neighbours; fitted to the box unless `options.zoom` scales it.
   */
  async function drawDiagram(container, workflow, options) {
    const described = await describedDefinition(workflow.definition);
    const active = activeStates(workflow);
    const source = options.focused ? chart.focusedSource(described, active) : chart.fullSource(described);
    const root = described.graph.nodes[0].id;
    const labels = active.map((path) => chart.mermaidId(`${root}.${path}`));
    const text = `${source.text}  classDef active fill:#fde68a,stroke:#b45309,stroke-width:3px\n${labels
      .map((label) => `  class ${label} active\n`)
      .join('')}`;
    const { svg } = await mermaid.render(`diagram-${++diagramSeq}`, text);
    container.innerHTML = svg;
    container.setAttribute('data-active', active.join(' '));
    container.setAttribute('data-view', options.focused ? 'focused' : 'full');
    container.setAttribute('data-edges', String(source.edges));
    chart.applyZoom(container, options.zoom);
    chart.revealActive(container);
  }

  /** The diagram card: the chart's box and its controls (focused view, zoom in and out, fit). */
  function diagramCard(diagram, options, redraw) {
    const focus = el('input', { type: 'checkbox', id: 'diagram-focus' });
    focus.addEventListener('change', () => {
      options.focused = focus.checked;
      redraw();
    });
    const zoom = (direction) => () => {
      options.zoom = direction === 0 ? null : chart.stepZoom(diagram, direction);
      chart.applyZoom(diagram, options.zoom);
      chart.revealActive(diagram);
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

  /** The definition's own presentation of the workflow (facts, pre-filled fields, confirmations, artifacts). */
  function presentationOf(workflow) {
    return workflow.presentation || { facts: [], prefill: {}, confirm: {}, artifacts: {} };
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

  /** What an accepted event brought in, for the latest one of its type (earlier ones were superseded). */
  function artifactOf(workflow, type) {
    return presentationOf(workflow).artifacts[type] || '';
  }

  function auditCard(entries, workflow) {
    const latest = new Map();
    entries.forEach((entry, i) => {
      if (entry.outcome === 'accepted') latest.set(entry.eventType, i);
    });
    return el(
      'section',
      { class: 'card' },
      el('h2', {}, 'Audit timeline'),
      el(
        'table',
        { id: 'audit' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['When', 'Who', 'What', 'Outcome', 'Guard', 'Artifacts', 'From → to'].map((h) => el('th', {}, h)),
          ),
        ),
        el(
          'tbody',
          {},
          entries.map((entry, i) =>
            el(
              'tr',
              { 'data-event': entry.eventType },
              el('td', {}, time(entry.at)),
              el('td', {}, `${entry.actor.id}${entry.actor.roles.length ? ` (${entry.actor.roles.join(', ')})` : ''}`),
              el(
                'td',
                {},
                entry.eventType.startsWith('xstate.after.')
                  ? `timer ${entry.eventType.split('.')[2]}`
                  : entry.eventType,
                // The stated reason the entry keeps (older entries have none).
                entry.reason ? el('div', { class: 'muted reason' }, entry.reason) : null,
              ),
              el(
                'td',
                {
                  // A late or repeated result (a stale job or timer) is routine, not a fault: muted, not red.
                  class:
                    entry.outcome === 'accepted'
                      ? ''
                      : entry.outcome === 'STALE_JOB' || entry.outcome === 'STALE_TIMER'
                        ? 'stale'
                        : 'refused',
                  'data-outcome': entry.outcome,
                },
                entry.outcome,
              ),
              el(
                'td',
                {},
                entry.guard.outcome === 'none'
                  ? ''
                  : `${entry.guard.outcome}: ${entry.guard.guards.join(', ')}${entry.guard.failedChecks.length ? ` (${entry.guard.failedChecks.join(', ')})` : ''}`,
              ),
              el(
                'td',
                { class: 'artifact' },
                latest.get(entry.eventType) === i
                  ? artifactOf(workflow, entry.eventType)
                  : // A superseded entry still names what it cited: its artifacts can be fetched by reference.
                    (entry.artifactRefs || []).map((ref) => el('div', { class: 'muted' }, ref.split('#')[0])),
              ),
              el('td', {}, `${entry.from.join(', ') || '—'} → ${entry.to.join(', ')}`),
            ),
          ),
        ),
      ),
    );
  }

  /** Values the console fills in itself: what the person decides on, as the definition presents it. */
  function prefilled(workflow, type) {
    return presentationOf(workflow).prefill[type] || {};
  }

  function fieldFor(name, schema, required) {
    const label = `${name}${required ? '' : ' (optional)'}`;
    let input;
    if (Array.isArray(schema.enum)) {
      input = el(
        'select',
        { name },
        schema.enum.map((option) => el('option', { value: option }, option)),
      );
    } else if (schema.type === 'number' || schema.type === 'integer') {
      input = el('input', { name, type: 'number', step: 'any', required });
    } else if (schema.type === 'string') {
      input = (schema.maxLength || 0) > 300 ? el('textarea', { name, required }) : el('input', { name, required });
    } else {
      input = el('textarea', { name, 'data-json': 'true', placeholder: 'JSON', required });
    }
    input.setAttribute('data-field', name);
    return el('label', {}, label, input);
  }

  function readFields(container) {
    const payload = {};
    for (const input of container.querySelectorAll('[data-field]')) {
      const name = input.getAttribute('data-field');
      const raw = input.value.trim();
      if (raw === '') continue;
      if (input.type === 'number') payload[name] = Number(raw);
      else if (input.getAttribute('data-json')) payload[name] = JSON.parse(raw);
      else payload[name] = raw;
    }
    return payload;
  }

  function summaryOf(workflow, type) {
    return presentationOf(workflow).confirm[type] || `Send ${type} to workflow ${workflow.workflowId}.`;
  }

  function confirmEvent(workflow, allowed) {
    const fixed = prefilled(workflow, allowed.type);
    const schema = allowed.schema || {};
    const properties = schema.properties || {};
    const required = schema.required || [];
    document.getElementById('confirm-title').textContent = allowed.type;
    document.getElementById('confirm-summary').textContent = summaryOf(workflow, allowed.type);
    const fields = document.getElementById('confirm-fields');
    // What the console fills in is shown, read-only: nobody decides on a value they cannot see.
    const shownFixed = Object.entries(fixed).map(([name, value]) =>
      el(
        'label',
        {},
        `${name} (filled in)`,
        el('input', {
          value: typeof value === 'string' ? value : JSON.stringify(value),
          readonly: true,
          'data-fixed': name,
        }),
      ),
    );
    fields.replaceChildren(
      ...shownFixed,
      ...Object.entries(properties)
        .filter(([name]) => !(name in fixed))
        .map(([name, property]) => fieldFor(name, property, required.includes(name))),
    );
    return new Promise((resolve) => {
      // Every way out (Confirm, Cancel, Esc) settles this dialog's promise and removes its listeners,
      // so a dismissed dialog can never send on a later Confirm.
      const listeners = new AbortController();
      let payload = null;
      const onOk = (event) => {
        event.preventDefault();
        if (!document.getElementById('confirm-form').reportValidity()) return;
        try {
          payload = Object.assign(readFields(fields), fixed);
        } catch (error) {
          show(`A field is not valid JSON: ${error.message}`);
          return;
        }
        dialog.close();
      };
      const options = { signal: listeners.signal };
      document.getElementById('confirm-ok').addEventListener('click', onOk, options);
      document.getElementById('confirm-cancel').addEventListener('click', () => dialog.close(), options);
      dialog.addEventListener(
        'close',
        () => {
          listeners.abort();
          resolve(payload);
        },
        options,
      );
      dialog.showModal();
    });
  }

  async function send(workflow, allowed, refresh) {
    const payload = await confirmEvent(workflow, allowed);
    if (!payload) return;
    try {
      await api(`/v1/workflows/${encodeURIComponent(workflow.workflowId)}/events`, {
        method: 'POST',
        headers: { 'If-Match': `"${workflow.version}"` },
        body: { type: allowed.type, payload },
      });
      show(`${allowed.type} accepted.`, 'ok');
    } catch (error) {
      show(error.message);
    }
    await refresh();
  }

  async function renderWorkflow(id) {
    const path = `/v1/workflows/${encodeURIComponent(id)}`;
    const state = el('p', { id: 'state' });
    const diagram = el('div', { id: 'diagram' });
    // What the person chose stays while the page follows the workflow: null until the chart is known.
    const diagramOptions = { focused: null, zoom: null };
    const events = el('section', { class: 'card events', id: 'events' });
    const side = el('div', {});
    const audit = el('div', {});
    let shown = -1;
    let drawing = Promise.resolve();
    let latest = null;
    const redraw = () => {
      if (!latest) return;
      const workflow = latest;
      drawing = drawing
        .then(async () => {
          if (diagramOptions.focused === null) {
            diagramOptions.focused = chart.isBusy(await describedDefinition(workflow.definition));
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
      controls.card,
      audit,
    );

    const refresh = async () => {
      const [workflow, trail] = await Promise.all([api(path), api(`${path}/audit?limit=500`)]);
      if (workflow.version < shown) return;
      shown = workflow.version;
      const [definitionId, definitionVersion] = workflow.definition.split('@');
      state.replaceChildren(
        el('a', { href: definitionHref(definitionId, definitionVersion) }, workflow.definition),
        ` · version ${workflow.version} · ${
          workflow.status === 'active' ? workflow.state.join(', ') : `finished: ${workflow.state.join(', ')}`
        }`,
      );
      state.setAttribute('data-version', String(workflow.version));
      const allowed = workflow.status === 'active' ? workflow.allowedEvents : [];
      events.replaceChildren(
        el('h2', {}, 'What you may do now'),
        allowed.length === 0
          ? el('p', { class: 'muted' }, 'Nothing: no event of yours is allowed in this state.')
          : el(
              'div',
              {},
              allowed.map((a) =>
                el(
                  'button',
                  { type: 'button', 'data-event': a.type, onclick: () => void send(workflow, a, refresh) },
                  a.type,
                ),
              ),
            ),
      );
      side.replaceChildren(evidenceCard(workflow));
      audit.replaceChildren(auditCard(trail.entries, workflow));
      latest = workflow;
      await redraw();
      return workflow;
    };

    const mine = generation;
    const first = await refresh();
    if (first.status === 'active' && mine === generation) {
      stopStream = follow(`${path}/stream`, first.version, (version) => {
        if (version > shown) refresh().catch((error) => show(error.message));
      });
    }
  }

  // ---------- definitions ----------

  const definitionHref = (id, version) => `#/definitions/${encodeURIComponent(id)}/${encodeURIComponent(version)}`;

  async function renderDefinitions() {
    const mine = generation;
    const { definitions } = await api('/v1/definitions');
    if (mine !== generation) return;
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
    const { svg } = await mermaid.render(`diagram-${++diagramSeq}`, text);
    container.innerHTML = svg;
    chart.applyZoom(container, null);
  }

  /**
   * A definition: its versions, and what changed since the previous registered one (the counts and
   * states as `warden stately import` prints them, the authority changes apart, the chart with the
   * changes marked); the first version shows its chart.
   */
  async function renderDefinition(id, version) {
    const mine = generation;
    const { definitions } = await api('/v1/definitions');
    const versions = definitions.filter((d) => d.id === id);
    const definition = versions.find((d) => String(d.version) === version);
    if (!definition) throw new Error(`No definition ${id}@${version} is registered.`);
    const earlier = versions.some((d) => d.version < definition.version);
    const base = `/v1/definitions/${encodeURIComponent(id)}/${encodeURIComponent(version)}`;
    const changes = earlier ? await api(`${base}/diff`) : null;
    const described = changes ? null : await describedDefinition(definition.key);
    if (mine !== generation) return;
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

  /** Zoom out, fit and zoom in for a drawn chart. */
  function zoomTools(diagram) {
    const zoom = (direction) => () =>
      chart.applyZoom(diagram, direction === 0 ? null : chart.stepZoom(diagram, direction));
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

  /**
   * Follows the server-sent events of a workflow after version `after` (fetch, so the token goes in
   * a header): one `state` event per version; reconnects with `Last-Event-ID` while the workflow is
   * active, and stops on the `finished` event or the 204 a finished workflow answers.
   */
  function follow(path, after, onVersion) {
    const controller = new AbortController();
    let stopped = false;
    let lastEventId = String(after);
    const run = async () => {
      while (!stopped) {
        try {
          const response = await fetch(path, {
            headers: {
              Authorization: `Bearer ${sessionStorage.getItem(tokenKey)}`,
              Accept: 'text/event-stream',
              'Last-Event-ID': lastEventId,
            },
            signal: controller.signal,
          });
          if (response.status === 204) {
            stopped = true;
            return;
          }
          if ([400, 401, 403, 404].includes(response.status)) {
            stopped = true;
            show(`Live updates stopped: the stream answered ${response.status}.`);
            return;
          }
          if (!response.ok || !response.body) throw new Error(`the live stream answered ${response.status}`);
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            let end;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const lines = buffer.slice(0, end).split('\n');
              buffer = buffer.slice(end + 2);
              const field = (name) =>
                lines
                  .find((line) => line.startsWith(`${name}:`))
                  ?.slice(name.length + 1)
                  .trim();
              const data = field('data');
              if (data === undefined) continue;
              lastEventId = field('id') ?? lastEventId;
              onVersion(JSON.parse(data).version);
              if (field('event') === 'finished') {
                stopped = true;
                controller.abort();
                return;
              }
            }
          }
        } catch (error) {
          if (stopped || controller.signal.aborted) return;
          show(`Live updates paused: ${error.message}`);
        }
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    void run();
    return () => {
      stopped = true;
      controller.abort();
    };
  }

  route();
})();
