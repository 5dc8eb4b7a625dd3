/**
 * Bearer JWT authentication: HS256 with a shared secret, or a JWKS URL. Claims `sub`, `tenant`,
 * `roles`, `approvalLimit` become the principal; nothing else in a request carries authority.
 */
import { randomBytes } from 'node:crypto';
import { sign, verify, verifyWithJwks } from 'hono/jwt';
import { z } from 'zod';
import type { Principal } from '../engine/principal.ts';
import { ApiError } from './errors.ts';

/** Text claims must be well-formed UTF-16: a lone surrogate cannot be stored, keyed or logged faithfully. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const claimText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((text) => !loneSurrogate.test(text), 'not well-formed text');

const claimsSchema = z.object({
  /** Tokens must expire. */
  exp: z.number(),
  sub: claimText(200),
  tenant: claimText(200),
  roles: z.array(claimText(100)).max(50).default([]),
  approvalLimit: z.number().min(0).default(0),
  /** `service` tokens (workers) act across tenants. */
  kind: z.enum(['user', 'service']).default('user'),
});

export interface Authenticator {
  authenticate(header: string | undefined): Promise<Principal>;
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
  const verified = new Map<string, { principal: Principal; until: number }>();
  return {
    async authenticate(header) {
      const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
      if (!match?.[1])
        throw new ApiError('UNAUTHORIZED', 'a Bearer token is required', {}, { 'WWW-Authenticate': 'Bearer' });
      const token = match[1];
      const now = Date.now();
      const hit = verified.get(token);
      if (hit && now < hit.until) return { ...hit.principal, roles: [...hit.principal.roles] };
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
      const claims = claimsSchema.safeParse(payload);
      if (!claims.success) throw new ApiError('UNAUTHORIZED', 'the token lacks sub, tenant, roles or exp');
      const { sub, tenant, roles, approvalLimit, kind, exp } = claims.data;
      const principal: Principal = { id: sub, tenantId: tenant, roles, approvalLimit, kind };
      if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value ?? '');
      verified.set(token, { principal, until: Math.min(exp * 1000, now + VERIFIED_FOR_MS) });
      return { ...principal, roles: [...roles] };
    },
  };
}

export interface TokenClaims {
  sub: string;
  tenant: string;
  roles: string[];
  approvalLimit?: number;
  kind?: 'user' | 'service';
  /** Lifetime in seconds; default 12 hours. */
  ttlSeconds?: number;
}

export function mintToken(secret: string, claims: TokenClaims, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  return sign(
    {
      sub: claims.sub,
      tenant: claims.tenant,
      roles: claims.roles,
      approvalLimit: claims.approvalLimit ?? 0,
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
