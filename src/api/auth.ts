/**
 * Bearer JWT authentication: HS256 with a shared secret, or a JWKS URL. Claims `sub`, `tenant`,
 * `roles`, `kind` become the principal, and the token's other claims its `claims`, which only the
 * definitions read (each validates its own); nothing else in a request carries authority.
 */
import { randomBytes } from 'node:crypto';
import { sign, verify, verifyWithJwks } from 'hono/jwt';
import { z } from 'zod';
import { claimLimits, claimsSchema, type ClaimValue, type Principal } from '../engine/principal.ts';
import { ApiError } from './errors.ts';
import { createStreamTickets, type StreamTickets } from './stream-tickets.ts';
import { deepFreeze } from '../engine/deep-freeze.ts';

/** Text claims must be well-formed UTF-16: a lone surrogate cannot be stored, keyed or logged faithfully. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const claimText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((text) => !loneSurrogate.test(text), 'not well-formed text');

const tokenSchema = z.object({
  /** Tokens must expire. */
  exp: z.number(),
  sub: claimText(200),
  tenant: claimText(200),
  roles: z.array(claimText(100)).max(50).default([]),
  /** `service` tokens (workers) act across tenants. */
  kind: z.enum(['user', 'service']).default('user'),
});

/** Claims the platform reads or a JWT registers (RFC 7519 §4.1): not handed on as the principal's `claims`. */
const standardClaims = new Set(['sub', 'tenant', 'roles', 'kind', 'iss', 'aud', 'exp', 'nbf', 'iat', 'jti']);

/** The token's other claims, as the definitions read them; null when there are too many or too large. */
function otherClaims(payload: Record<string, unknown>): Record<string, ClaimValue> | null {
  const others = Object.fromEntries(Object.entries(payload).filter(([name]) => !standardClaims.has(name)));
  const parsed = claimsSchema.safeParse(others);
  return parsed.success ? deepFreeze(parsed.data) : null;
}

export interface Authenticator {
  authenticate(header: string | undefined): Promise<Principal>;
  /** Tickets to one workflow's stream, for a browser's `EventSource` (see stream-tickets.ts). */
  tickets?: StreamTickets;
}

type Jwk = NonNullable<Parameters<typeof verifyWithJwks>[1]['keys']>[number];

/** The key set at `url`, fetched at most every `ttlMs`; an unreachable JWKS is a 503, not a 401 for everyone. */
function cachedJwks(url: string, ttlMs = 5 * 60_000) {
  let cached: { keys: Jwk[]; at: number } | null = null;
  let inFlight: Promise<Jwk[]> | null = null;
  return async (): Promise<Jwk[]> => {
    if (cached && Date.now() - cached.at < ttlMs) return cached.keys;
    inFlight ??= (async () => {
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
        if (!response.ok) throw new Error(`JWKS answered ${response.status}`);
        const body = (await response.json()) as { keys?: Jwk[] };
        cached = { keys: body.keys ?? [], at: Date.now() };
        return cached.keys;
      } catch (error) {
        if (cached) return cached.keys; // keep the last good keys through a blip
        throw new ApiError('UNAVAILABLE', 'the token keys cannot be fetched', { cause: String(error) });
      } finally {
        inFlight = null;
      }
    })();
    return inFlight;
  };
}

export interface AuthenticatorOptions {
  secret?: string;
  jwksUrl?: string;
  /** When set, tokens must carry this `iss`. */
  issuer?: string;
  /** When set, tokens must carry this `aud`. */
  audience?: string;
  /** What stream tickets are signed with (a key derived from it): default `secret`, else a key of this process. */
  ticketSecret?: string;
}

/** Verified tokens kept, and for how long at most (never past their `exp`). */
const VERIFIED_TOKENS = 10_000;
const VERIFIED_FOR_MS = 60_000;

export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const jwks = options.jwksUrl ? cachedJwks(options.jwksUrl) : null;
  const verification = {
    ...(options.issuer ? { iss: options.issuer } : {}),
    ...(options.audience ? { aud: options.audience } : {}),
  };
  // A caller sends the same token with every request: its signature is checked once a minute, not
  // once a request (a verification costs ~60 µs of CPU, a fair share of an event's). Keyed by the
  // whole token, so any other string, a tampered one included, is verified afresh; an entry never
  // outlives the token's `exp`, and with a JWKS at most a minute passes before a rotation counts.
  const verified = new Map<string, { principal: Principal; until: number; expiresAt: number }>();
  // When the token each principal handed out came with expires: a stream ticket never outlives it.
  const expiries = new WeakMap<Principal, number>();
  const handOut = (entry: { principal: Principal; expiresAt: number }): Principal => {
    const principal = copyOf(entry.principal);
    expiries.set(principal, entry.expiresAt);
    return principal;
  };
  return {
    tickets: createStreamTickets(options.ticketSecret ?? options.secret, {
      tokenExpiry: (principal) => expiries.get(principal),
    }),
    async authenticate(header) {
      const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
      if (!match?.[1])
        throw new ApiError('UNAUTHORIZED', 'a Bearer token is required', {}, { 'WWW-Authenticate': 'Bearer' });
      const token = match[1];
      const now = Date.now();
      const hit = verified.get(token);
      if (hit && now < hit.until) return handOut(hit);
      if (hit) verified.delete(token);
      let payload: unknown;
      const keys = jwks ? await jwks() : null;
      try {
        payload = keys
          ? await verifyWithJwks(token, { keys, allowedAlgorithms: ['RS256', 'ES256'], verification })
          : await verify(token, options.secret ?? '', { alg: 'HS256', ...verification });
      } catch {
        throw new ApiError('UNAUTHORIZED', 'the token is invalid or expired', {}, { 'WWW-Authenticate': 'Bearer' });
      }
      const claims = tokenSchema.safeParse(payload);
      if (!claims.success) throw new ApiError('UNAUTHORIZED', 'the token lacks sub, tenant, roles or exp');
      const others = otherClaims(payload as Record<string, unknown>);
      if (!others) {
        throw new ApiError(
          'UNAUTHORIZED',
          `the token carries too many or too large other claims (at most ${claimLimits.count}, named in up to 100 characters, ${claimLimits.characters} characters as JSON)`,
        );
      }
      const { sub, tenant, roles, kind, exp } = claims.data;
      const principal: Principal = { id: sub, tenantId: tenant, roles, kind, claims: others };
      if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value ?? '');
      const entry = { principal, until: Math.min(exp * 1000, now + VERIFIED_FOR_MS), expiresAt: exp * 1000 };
      verified.set(token, entry);
      return handOut(entry);
    },
  };
}

/** A cached principal is handed out as a copy (its claims frozen): nothing a request does to it reaches the next. */
function copyOf(principal: Principal): Principal {
  return { ...principal, roles: [...principal.roles] };
}

export interface TokenClaims {
  sub: string;
  tenant: string;
  roles: string[];
  kind?: 'user' | 'service';
  /** Further claims a definition reads (an approver's limit, say); not the standard ones. */
  claims?: Readonly<Record<string, ClaimValue>>;
  /** Lifetime in seconds; default 12 hours. */
  ttlSeconds?: number;
}

/** A token signed with `secret` (HS256); throws when `claims.claims` names a standard claim. */
export function mintToken(secret: string, claims: TokenClaims, now = Date.now()): Promise<string> {
  const reserved = Object.keys(claims.claims ?? {}).filter((name) => standardClaims.has(name));
  if (reserved.length > 0) throw new Error(`${reserved.join(', ')}: a standard claim, not one of the other claims`);
  const iat = Math.floor(now / 1000);
  return sign(
    {
      ...claims.claims,
      sub: claims.sub,
      tenant: claims.tenant,
      roles: claims.roles,
      kind: claims.kind ?? 'user',
      iat,
      exp: iat + (claims.ttlSeconds ?? 12 * 3600),
    },
    secret,
    'HS256',
  );
}

export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}
