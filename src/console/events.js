// The events a person may send now, as buttons labelled and styled for what they do, each sent
// after a confirmation that shows what will be decided.
import { api } from './api.js';
import { el, show } from './dom.js';

/** Past participles an event is named with, and the verb a button says. */
const verbs = {
  approved: 'approve',
  accepted: 'accept',
  confirmed: 'confirm',
  rejected: 'reject',
  declined: 'decline',
  denied: 'deny',
  cancelled: 'cancel',
  canceled: 'cancel',
  withdrawn: 'withdraw',
  requested: 'request',
  escalated: 'escalate',
  assigned: 'assign',
  completed: 'complete',
  submitted: 'submit',
  resolved: 'resolve',
  retried: 'retry',
  reopened: 'reopen',
  closed: 'close',
};

/** Verbs an event name may start with or carry after a prefix (`REVIEW_ASSIGN`). */
const imperatives = new Set([
  ...Object.values(verbs),
  'abort',
  'compensate',
  'reconcile',
  'replan',
  'stop',
  'pause',
  'resume',
]);

/** How each verb's button is styled: the way forward primary, the ways that end or refuse danger. */
const kinds = {
  approve: 'primary',
  accept: 'primary',
  confirm: 'primary',
  reject: 'danger',
  decline: 'danger',
  deny: 'danger',
  cancel: 'danger',
  abort: 'danger',
  withdraw: 'danger',
};

/**
 * The words of an event's name as a button says them: `APPROVED` "Approve", `REJECTED_BY_REVIEWER`
 * "Reject", `CHANGES_REQUESTED` "Request changes", `CANCEL_REQUESTED` "Cancel", `REVIEW_ASSIGN`
 * "Assign review", `ESCALATE` "Escalate". Used while the API gives no label of the definition's own.
 */
export function humanise(type) {
  let words = type
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.length === 0) return type;
  const by = words.indexOf('by');
  if (by > 0) words = words.slice(0, by); // who sends it is the button's reader
  const last = words[words.length - 1];
  if (words.length > 1 && verbs[last]) {
    // `CANCEL_REQUESTED` asks to cancel; `CHANGES_REQUESTED` requests changes.
    words = imperatives.has(words[0]) && words.length === 2 ? [words[0]] : [verbs[last], ...words.slice(0, -1)];
  } else if (words.length > 1 && !imperatives.has(words[0]) && imperatives.has(words[1])) {
    // A prefix naming what it acts on: `REVIEW_COMPLETE` completes the review, `REVIEW_RETRY_STEP` retries the step.
    words = words.length === 2 ? [words[1], words[0]] : words.slice(1);
  }
  words[0] = verbs[words[0]] || words[0];
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The button's label: the definition's own when the API gives one, else the event's name in words. */
export function eventLabel(allowed) {
  const title = allowed.schema && typeof allowed.schema.title === 'string' ? allowed.schema.title : null;
  return allowed.label || title || humanise(allowed.type);
}

/** 'primary', 'danger' or 'neutral': the definition's own when the API gives one, else by the label's verb. */
export function eventKind(allowed) {
  if (['primary', 'danger', 'neutral'].includes(allowed.kind)) return allowed.kind;
  const verb = eventLabel(allowed).split(' ')[0].toLowerCase();
  return kinds[verb] || 'neutral';
}

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
  const label = eventLabel(allowed);
  // Values the console fills in itself: what the person decides on, as the definition presents it.
  const fixed = presentationOf(workflow).prefill[allowed.type] || {};
  const schema = allowed.schema || {};
  const properties = schema.properties || {};
  const required = schema.required || [];
  document.getElementById('confirm-title').textContent = label;
  document.getElementById('confirm-summary').textContent =
    presentationOf(workflow).confirm[allowed.type] || `${label}: workflow ${workflow.workflowId}.`;
  const ok = document.getElementById('confirm-ok');
  ok.textContent = label;
  ok.className = `kind-${eventKind(allowed)}`;
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
    show(`${eventLabel(allowed)}: accepted.`, 'ok');
  } catch (error) {
    show(error.message);
  }
  await refresh();
}

/** The "What you may do now" card's content: a button for exactly each event the API allows this person. */
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
          class: `kind-${eventKind(a)}`,
          'data-event': a.type,
          'data-kind': eventKind(a),
          onclick: () => void send(workflow, a, refresh),
        },
        eventLabel(a),
      ),
    ),
  );
}
