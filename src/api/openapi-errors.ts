/**
 * Error responses in the OpenAPI document: one shared response per status in
 * `components.responses`, and per operation a reference to it that names the codes the operation
 * answers with. The statuses are those of `statusOf`.
 */
import { refusalCodes } from '../engine/decision.ts';
import { ref } from './openapi-components.ts';
import { statusOf } from './errors.ts';

export const bodyCodes = ['MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'INVALID_INPUT'];
/** What the engine may refuse a caller's event with (`STALE_TIMER` belongs to the timer channel). */
export const eventRefusals = refusalCodes.filter((code) => code !== 'STALE_TIMER');

/** What every `/v1` route may answer besides its own codes: authentication (503 when the token keys cannot be fetched), the rate limit, a fault. */
export const apiCodes = ['UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL', 'UNAVAILABLE'];
/** What a route that needs no token may answer besides its own codes. */
export const publicCodes = ['INTERNAL'];

/** The shared error response of each status, by component name. */
const statusNames: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableContent',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

function statusName(status: number): string {
  const name = statusNames[status];
  if (name === undefined) throw new Error(`status ${status} has no shared error response`);
  return name;
}

const codeList = (codes: readonly string[]) => codes.map((code) => `\`${code}\``).join(', ');

/**
 * `components.responses`: one error response per status, its `code` narrowed to the codes of that
 * status. An operation refers to it and names, in its own description, the codes it answers with.
 */
export function errorResponseComponents(): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  for (const [code, status] of Object.entries(statusOf)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        statusName(status),
        {
          description: `${status}: ${codeList(codes)} (each operation names those it answers with)`,
          headers: {
            'X-Request-Id': ref('headers', 'X-Request-Id'),
            ...(codes.includes('RATE_LIMITED') ? { 'Retry-After': ref('headers', 'Retry-After') } : {}),
          },
          content: {
            'application/json': {
              schema: {
                allOf: [ref('schemas', 'Error'), { properties: { error: { properties: { code: { enum: codes } } } } }],
              },
            },
          },
        },
      ]),
  );
}

/**
 * An operation's error responses: per status, a reference to the shared response of that status,
 * described by the codes this operation answers with. `always` are added to `codes`: those of every
 * `/v1` route unless told otherwise.
 */
export function errorResponses(
  codes: readonly string[],
  always: readonly string[] = apiCodes,
): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  for (const code of new Set([...always, ...codes])) {
    const status = statusOf[code];
    if (status === undefined) throw new Error(`error code ${code} has no status`);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        { ...ref('responses', statusName(status)), description: codeList(list) },
      ]),
  );
}
