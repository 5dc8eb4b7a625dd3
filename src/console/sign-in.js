// The sign-in form: the operator pastes their Bearer token; the console keeps it for this tab only.
import { api, claimsOf } from './api.js';
import { clearMessage, el, show } from './dom.js';
import { signIn, signOut } from './session.js';

/** Draws the form; `route()` shows the page asked for once signed in. */
export function renderSignIn(view, route) {
  const input = el('textarea', { id: 'token', placeholder: 'eyJhbGciOi…', spellcheck: 'false' });
  const submit = async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!claimsOf(token)) return show('That is not a token: paste the JWT you were given.');
    signIn(token);
    try {
      await api('/v1/definitions');
      clearMessage();
      if (location.hash === '#/queues' || !location.hash) route();
      else location.hash = '#/queues';
    } catch (error) {
      signOut();
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
      el('p', {}, el('button', { type: 'submit', id: 'sign-in', class: 'kind-primary' }, 'Sign in')),
    ),
  );
  view.querySelector('form').addEventListener('submit', submit);
}
