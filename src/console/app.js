// The Warden operator console: queues, a workflow's live statechart, its timers, jobs, incidents
// and audit timeline, the events this person may send now, and each definition with what changed
// since its previous version. Browser modules served as they are (no build step), no network
// beyond this origin. Every call carries the Bearer token the operator signed in with; the API decides.
//
// This module routes: `#/queues`, `#/workflows[?filters]`, `#/workflows/<id>`, `#/incidents`, `#/definitions`,
// `#/definitions/<id>/<version>`.
import { ApiProblem, claimsOf, otherClaims } from './api.js';
import { renderDefinition, renderDefinitions } from './definitions.js';
import { clearMessage, show } from './dom.js';
import { renderIncidents } from './incidents.js';
import { renderQueues } from './queues.js';
import { isCurrent, nextPage, signOut, token } from './session.js';
import { renderSignIn } from './sign-in.js';
import { renderWorkflow } from './workflow.js';
import { renderWorkflows } from './workflows.js';

const view = document.getElementById('view');

window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'neutral' });

function route() {
  const mine = nextPage();
  const hash = location.hash || '#/queues';
  const bearer = token();
  document.getElementById('nav').hidden = !bearer;
  if (!bearer) return renderSignIn(view, route);
  const claims = claimsOf(bearer) || {};
  document.getElementById('who').textContent =
    `${claims.sub || '?'} · ${claims.tenant || '?'} · ${(claims.roles || []).join(', ')}` + otherClaims(claims);
  const workflow = /^#\/workflows\/([^/]+)$/.exec(hash);
  const definition = /^#\/definitions\/([^/]+)\/([^/]+)$/.exec(hash);
  const list = /^#\/workflows(?:\?(.*))?$/.exec(hash);
  const page = workflow
    ? renderWorkflow(view, mine, decodeURIComponent(workflow[1]))
    : definition
      ? renderDefinition(view, mine, decodeURIComponent(definition[1]), decodeURIComponent(definition[2]))
      : hash === '#/definitions'
        ? renderDefinitions(view, mine)
        : hash === '#/incidents'
          ? renderIncidents(view, mine)
          : list
            ? renderWorkflows(view, mine, new URLSearchParams(list[1] || ''))
            : renderQueues(view, mine);
  page.catch((error) => {
    if (!isCurrent(mine)) return; // a page the person already left
    if (error instanceof ApiProblem && error.status === 401) renderSignIn(view, route);
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
  signOut();
  // Drawn once: by the hashchange when the address changes, else here.
  if (location.hash === '#/queues') route();
  else location.hash = '#/queues';
});
// Open a workflow by its id: finished and failed ones are in no queue.
document.getElementById('open-workflow').addEventListener('submit', (event) => {
  event.preventDefault();
  const id = document.getElementById('open-id').value.trim();
  if (id) location.hash = `#/workflows/${encodeURIComponent(id)}`;
});

route();
