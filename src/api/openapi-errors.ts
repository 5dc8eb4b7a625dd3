/**
 * Error responses in the OpenAPI document: one shared response per status in
 * `components.responses`, and per operation a reference to it that names the codes the operation
 * answers with. The statuses are those of `statusOf`.
 */
import { refusalCodes } from '../engine/decision.ts';
import { jsonSchema, ref, type JsonSchema } from './openapi-components.ts';
import { errorDetails, errorExamples } from './error-details.ts';
import { errorCodes, statusOf, type ErrorCode } from './errors.ts';

export const bodyCodes: ErrorCode[] = [
  'MALFORMED_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'INVALID_INPUT',
];
/** What the engine may refuse a caller's event with (`STALE_TIMER` belongs to the timer channel). */
export const eventRefusals = refusalCodes.filter((code) => code !== 'STALE_TIMER');

/** What every `/v1` route may answer besides its own codes: authentication (503 when the token keys cannot be fetched), the rate limit, a fault. */
export const apiCodes: ErrorCode[] = ['UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL', 'UNAVAILABLE'];
/** What a route that needs no token may answer besides its own codes. */
export const publicCodes: ErrorCode[] = ['INTERNAL'];

/** `PRECONDITION_FAILED` → `PreconditionFailedError`: the component of one code's error body. */
const errorComponent = (code: ErrorCode) =>
  `${code
    .toLowerCase()
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Error`;

/**
 * One schema per code (`<Code>Error`): `Error` with that `code` and the `details` it carries
 * (`error-details.ts`).
 */
export function errorSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const code of errorCodes) {
    schemas[errorComponent(code)] = {
      title: `${code} (${statusOf[code]})`,
      allOf: [
        ref('schemas', 'Error'),
        {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: {
                code: { type: 'string', const: code },
                message: { type: 'string' },
                details: jsonSchema(errorDetails[code], 'output'),
              },
              required: ['code', 'message', 'details'],
            },
          },
          required: ['error'],
        },
      ],
    };
  }
  return schemas;
}

/** The shared error response of each status, by component name. */
const statusNames: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'RequestTimeout',
  409: 'Conflict',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableContent',
  429: 'TooManyRequests',
  431: 'RequestHeaderFieldsTooLarge',
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
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes) byStatus.set(statusOf[code], [...(byStatus.get(statusOf[code]) ?? []), code]);
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
            ...(codes.includes('METHOD_NOT_ALLOWED') ? { Allow: ref('headers', 'Allow') } : {}),
          },
          content: {
            'application/json': {
              // `anyOf`, though the codes exclude each other: the linter does not look as deep as `error.code`.
              schema:
                codes.length === 1
                  ? ref('schemas', errorComponent(codes[0] as ErrorCode))
                  : { anyOf: codes.map((code) => ref('schemas', errorComponent(code))) },
              // One example per code: what Swagger UI shows, each code's own.
              examples: Object.fromEntries(
                codes.map((code) => [code, { summary: code, value: { error: { code, ...errorExamples[code] } } }]),
              ),
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
  codes: readonly ErrorCode[],
  always: readonly ErrorCode[] = apiCodes,
): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...always, ...codes])) {
    const status = statusOf[code];
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
