/**
 * Stream tickets: a browser's `EventSource` cannot send an `Authorization` header, so a caller
 * trades its token for a ticket to one workflow's stream (`POST /v1/workflows/:id/stream-tickets`)
 * and opens `GET /v1/workflows/:id/stream?ticket=…`. A ticket names its workflow and its caller,
 * opens only that stream, and expires after a minute, or with the token it was traded for if that
 * comes first (a reconnect within it reuses it; after it, the page asks for another). A stream it
 * opened ends when it expires, so nothing is read past the ticket's (and the token's) expiry.
 * It is no bearer token: signed with a key derived from the API's secret for
 * this one use, so it is refused everywhere else, and the long-lived token never appears in a URL.
 * With a JWKS and no secret, the key is the process's own: tickets are then good only on the API
 * process that issued them (set `WARDEN_JWT_SECRET` to share them across processes).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { actsAcrossTenants, workerRole, type Principal } from '../engine/principal.ts';
import { ApiError } from './errors.ts';

export interface StreamTicket {
  ticket: string;
  /** When it stops opening the stream, ms since the epoch. */
  expiresAt: number;
}

export interface StreamTickets {
  issue(principal: Principal, workflowId: string): StreamTicket;
  /**
   * The principal a ticket for `workflowId` names, and when the ticket expires (a stream it opened
   * ends then); 401 for anything else.
   */
  redeem(ticket: string, workflowId: string): { principal: Principal; expiresAt: number };
}

/**
 * What a ticket carries: only what a stream needs, who reads it and whether they read across
 * tenants (a worker service), so a ticket stays short whatever the token held.
 */
const payloadSchema = z.strictObject({
  wf: z.string(),
  sub: z.string(),
  tenant: z.string(),
  kind: z.enum(['user', 'service']),
  across: z.boolean(),
  exp: z.number(),
});
/** A signature: HMAC-SHA256 in base64url, nothing else (a decoder would skip stray characters). */
const signaturePattern = /^[A-Za-z0-9_-]{43}$/;

const refused = (message: string) => new ApiError('UNAUTHORIZED', message, {}, { 'WWW-Authenticate': 'Bearer' });

export function createStreamTickets(
  secret: string | undefined,
  options: {
    ttlMs?: number;
    clock?: () => number;
    /** When the token `principal` came with expires (ms since the epoch): a ticket never outlives it. */
    tokenExpiry?: (principal: Principal) => number | undefined;
  } = {},
): StreamTickets {
  const key = createHmac('sha256', secret || randomBytes(32))
    .update('warden stream ticket v1')
    .digest();
  const ttlMs = options.ttlMs ?? 60_000;
  const clock = options.clock ?? Date.now;
  const sign = (body: string) => createHmac('sha256', key).update(body).digest();
  return {
    issue(principal, workflowId) {
      const expiresAt = Math.min(clock() + ttlMs, options.tokenExpiry?.(principal) ?? Infinity);
      const payload = {
        wf: workflowId,
        sub: principal.id,
        tenant: principal.tenantId,
        kind: principal.kind,
        across: actsAcrossTenants(principal),
        exp: expiresAt,
      };
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return { ticket: `${body}.${sign(body).toString('base64url')}`, expiresAt };
    },
    redeem(ticket, workflowId) {
      const [body = '', signature = '', ...rest] = ticket.split('.');
      const given = Buffer.from(signature, 'base64url');
      const expected = sign(body);
      const wellFormed = rest.length === 0 && signaturePattern.test(signature) && given.length === expected.length;
      if (!wellFormed || !timingSafeEqual(given, expected)) {
        throw refused('the stream ticket is invalid');
      }
      const payload = payloadSchema.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
      if (!payload.success) throw refused('the stream ticket is invalid');
      const { wf, sub, tenant, kind, across, exp } = payload.data;
      if (clock() >= exp) throw refused('the stream ticket has expired: ask for another');
      if (wf !== workflowId) throw refused("the stream ticket is for another workflow's stream");
      // A stream reads: roles beyond reading across tenants, and claims, are not carried.
      const principal: Principal = { id: sub, tenantId: tenant, roles: across ? [workerRole] : [], kind, claims: {} };
      return { principal, expiresAt: exp };
    },
  };
}
