// Following a workflow live: the browser's own EventSource on `GET /v1/workflows/{id}/stream`. An
// EventSource cannot send the Bearer token, so the console trades it for a ticket to this one
// stream (`POST /v1/workflows/{id}/stream-tickets`, valid a minute at most, and the stream ends
// when it expires) and opens the `streamUrl` it answers. EventSource parses the stream (CRLF,
// multi-line data, comments) and reconnects by itself with `Last-Event-ID` while its ticket holds;
// once a reconnect is refused (the ticket expired) the console asks for a new ticket and reopens
// with `?lastEventId=` where it left off.
import { api, ApiProblem } from './api.js';
import { show } from './dom.js';

/** Pause before reopening with a new ticket, ms; doubled after each failed reopening, up to `maxRetryMs`. */
const retryMs = 1_000;
const maxRetryMs = 30_000;

/**
 * Follows the workflow `id` after version `after`: `onVersion(version)` for each `state` event and
 * the `finished` one, after which it stops; `onGap()` when a connection was lost and is being reopened
 * (the page reads the workflow again: it may have finished meanwhile). Returns a function that stops it.
 */
export function follow(id, after, onVersion, onGap) {
  let stopped = false;
  let source = null;
  let expiresAt = 0;
  let lastEventId = String(after);
  let pause = retryMs;
  let timer = null;

  const close = () => {
    if (source) source.close();
    source = null;
  };
  const stop = () => {
    stopped = true;
    if (timer !== null) clearTimeout(timer);
    close();
  };

  const onMessage = (event) => {
    if (event.lastEventId) lastEventId = event.lastEventId;
    const data = JSON.parse(event.data);
    onVersion(data.version);
    if (event.type === 'finished') stop();
  };

  const open = async () => {
    timer = null;
    if (stopped) return;
    let ticket;
    try {
      ticket = await api(`/v1/workflows/${encodeURIComponent(id)}/stream-tickets`, { method: 'POST' });
    } catch (error) {
      if (stopped) return;
      if (error instanceof ApiProblem && [401, 403, 404].includes(error.status)) {
        stop();
        show(`Live updates stopped: ${error.message}`);
        return;
      }
      show(`Live updates paused: ${error.message}`);
      reopen();
      return;
    }
    if (stopped) return;
    expiresAt = Date.parse(ticket.expiresAt);
    const url = new URL(ticket.streamUrl, location.href);
    url.searchParams.set('lastEventId', lastEventId);
    source = new EventSource(url.pathname + url.search);
    // Connected: the next reopening, if any, waits the shortest pause again.
    source.addEventListener('open', () => (pause = retryMs));
    source.addEventListener('state', onMessage);
    source.addEventListener('finished', onMessage);
    source.addEventListener('error', () => {
      if (stopped || !source) return;
      // CONNECTING: EventSource reconnects by itself, which its ticket allows until it expires.
      // CLOSED: a reconnect was refused (an expired ticket is 401). Either way, past the ticket's
      // expiry the console reopens with a new one, from the last version it has.
      if (source.readyState === EventSource.CONNECTING && Date.now() < expiresAt) return;
      close();
      reopen();
      if (onGap) onGap();
    });
  };

  const reopen = () => {
    if (stopped) return;
    timer = setTimeout(() => void open(), pause);
    pause = Math.min(maxRetryMs, pause * 2);
  };

  void open();
  return stop;
}
