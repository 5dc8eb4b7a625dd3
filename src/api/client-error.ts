/**
 * What is refused before a request reaches the app — by Node's HTTP parser (headers over its limit,
 * bytes that are not HTTP, a request that does not arrive in time) or by the Node adapter (a path
 * with a backslash, a missing or invalid Host) — answered in the API's error envelope with the status
 * they give it. Their own answers have an empty body: a client reading `error.code` found nothing.
 */
import type { Duplex } from 'node:stream';
import { RequestError } from '@hono/node-server';
import { errorBody, statusOf, type ErrorCode } from './errors.ts';

const reasonPhrases: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};

/** The error code and message of a parser error (`HPE_*`, `ERR_HTTP_REQUEST_TIMEOUT`), as Node sorts them. */
function refusalOf(code: string | undefined, maxHeaderSize: number): { code: ErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE', message: `the request line and headers exceed ${maxHeaderSize} bytes` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'PAYLOAD_TOO_LARGE', message: 'the chunk extensions are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', message: 'the request did not arrive whole in time' };
    default:
      return { code: 'BAD_REQUEST', message: 'the request is not valid HTTP/1.1' };
  }
}

/** The whole HTTP response to a parser error, ending the connection. */
export function clientErrorResponse(code: string | undefined, maxHeaderSize: number): string {
  const refusal = refusalOf(code, maxHeaderSize);
  const status = statusOf[refusal.code];
  const body = JSON.stringify(errorBody(refusal.code, refusal.message));
  return (
    `HTTP/1.1 ${status} ${reasonPhrases[status] ?? ''}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * A `clientError` listener for a Node HTTP server. As Node's default: a response only on a socket
 * that can still take one and has not been sent part of another, and the connection closed.
 */
export function answerClientError(maxHeaderSize: number) {
  return (error: Error & { code?: string }, socket: Duplex & { bytesWritten?: number }): void => {
    if (error.code === 'ECONNRESET' || !socket.writable || (socket.bytesWritten ?? 0) > 0) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(error.code, maxHeaderSize), () => socket.destroy());
  };
}

/**
 * The Node adapter's `errorHandler`: a request it cannot turn into a web `Request` is 400, anything
 * else (the app answers its own errors, so never expected) a 500 without its message.
 */
export function unreadableRequest(error: unknown): Response {
  const refusal =
    error instanceof RequestError
      ? { code: 'BAD_REQUEST' as const, message: `the request cannot be read: ${error.message}` }
      : { code: 'INTERNAL' as const, message: 'internal error' };
  return Response.json(errorBody(refusal.code, refusal.message), { status: statusOf[refusal.code] });
}
