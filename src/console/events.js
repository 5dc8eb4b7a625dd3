// The events a person may send now, as buttons labelled and styled for what they do (the API gives
// each its `label` and `kind`: the definition's own, or the type in words, neutral), each sent after
// a confirmation that shows what will be decided.
import { api } from './api.js';
import { el, show } from './dom.js';

/** The definition's own presentation of the workflow (facts, pre-filled fields, confirmations, artifacts). */
export function presentationOf(workflow) {
  return workflow.presentation || { facts: [], prefill: {}, confirm: {}, artifacts: {} };
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

/** Asks for the event's fields and a confirmation; the payload, or null when the person backs out. */
function confirmEvent(workflow, allowed) {
  const dialog = document.getElementById('confirm');
  const label = allowed.label;
  // Values the console fills in itself: what the person decides on, as the definition presents it.
  const fixed = presentationOf(workflow).prefill[allowed.type] || {};
  const schema = allowed.schema || {};
  const properties = schema.properties || {};
  const required = schema.required || [];
  document.getElementById('confirm-title').textContent = label;
  document.getElementById('confirm-summary').textContent =
    presentationOf(workflow).confirm[allowed.type] ||
    `${allowed.description || `${label}.`} Workflow ${workflow.workflowId}.`;
  const ok = document.getElementById('confirm-ok');
  ok.textContent = label;
  ok.className = `kind-${allowed.kind}`;
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
    ok.addEventListener('click', onOk, options);
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

/** Confirms and sends the event with `If-Match` (a page out of date decides nothing), then `refresh()`. */
async function send(workflow, allowed, refresh) {
  const payload = await confirmEvent(workflow, allowed);
  if (!payload) return;
  try {
    await api(`/v1/workflows/${encodeURIComponent(workflow.workflowId)}/events`, {
      method: 'POST',
      headers: { 'If-Match': `"${workflow.version}"` },
      body: { type: allowed.type, payload },
    });
    show(`${allowed.label}: accepted.`, 'ok');
  } catch (error) {
    show(error.message);
  }
  await refresh();
}

/**
 * The "What you may do now" card's content: a button for exactly each event the API allows this
 * person, in its words, styled by its kind, what it does as its hint.
 */
export function eventButtons(workflow, refresh) {
  const allowed = workflow.status === 'active' ? workflow.allowedEvents : [];
  if (allowed.length === 0) return el('p', { class: 'muted' }, 'Nothing: no event of yours is allowed in this state.');
  return el(
    'div',
    { class: 'event-buttons' },
    allowed.map((a) =>
      el(
        'button',
        {
          type: 'button',
          class: `kind-${a.kind}`,
          'data-event': a.type,
          'data-kind': a.kind,
          title: a.description,
          onclick: () => void send(workflow, a, refresh),
        },
        a.label,
      ),
    ),
  );
}
