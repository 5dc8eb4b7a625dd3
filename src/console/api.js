// Calls to the API: every one carries the Bearer token the operator signed in with; the API decides.
import { signOut, token } from './session.js';

export class ApiProblem extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    const checks = error.details && error.details.failedChecks;
    const suffix = Array.isArray(checks) && checks.length > 0 ? ` (failed checks: ${checks.join(', ')})` : '';
    super(`${error.code || `HTTP ${status}`}: ${error.message || 'the request failed'}${suffix}`);
    this.status = status;
    this.code = error.code;
  }
}

export async function api(path, options) {
  const bearer = token();
  const headers = Object.assign({ Accept: 'application/json' }, (options && options.headers) || {});
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
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
    if (response.status === 401) signOut();
    throw new ApiProblem(response.status, parsed);
  }
  return parsed;
}

export function claimsOf(bearer) {
  try {
    const part = bearer.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(part));
  } catch {
    return null;
  }
}

/** The token's claims beyond the standard ones a definition reads (an approval limit), as ` · name value`. */
export function otherClaims(claims) {
  const standard = ['sub', 'tenant', 'roles', 'kind', 'iss', 'aud', 'exp', 'nbf', 'iat', 'jti'];
  return Object.entries(claims)
    .filter(([name, value]) => !standard.includes(name) && value !== null && typeof value !== 'object')
    .map(([name, value]) => ` · ${name} ${value}`)
    .join('');
}

/** The described definitions (config, graph, Mermaid source), by `<id>@<version>`: they never change. */
const described = new Map();

export async function describedDefinition(key) {
  if (!described.has(key)) {
    const [id, version] = key.split('@');
    described.set(key, await api(`/v1/definitions/${encodeURIComponent(id)}/${encodeURIComponent(version)}`));
  }
  return described.get(key);
}

export const definitionHref = (id, version) => `#/definitions/${encodeURIComponent(id)}/${encodeURIComponent(version)}`;
