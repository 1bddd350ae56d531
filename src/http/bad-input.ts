// Bad input never becomes a 5xx, and every refusal has the error shape, including the ones Fastify and
// Node's HTTP parser would otherwise write in a shape of their own (a malformed request line, a header
// block too large, a path that is not valid percent-encoding).
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { findUnstorableText } from '../domain/text.ts';
import type { Http } from './http.ts';
import { ErrorBody } from '../wire/common.ts';

/** Longer URLs are refused with 414 before routing; Node's own header limit (16 KiB) sits above it. */
export const MAX_URL_BYTES = 8 * 1024;

type Location = 'body' | 'querystring' | 'params';

/**
 * preValidation, for every route: a body, query string or path parameter holding text that no engine can
 * store (NUL, lone surrogates) is a 400 that names the field. Multipart text fields go through the same
 * rule where the upload is read.
 */
export async function refuseUnstorableText(request: FastifyRequest): Promise<void> {
  refuseBadQueryEncoding(request.url);
  const parts: [Location, unknown][] = [
    ['params', request.params],
    ['querystring', request.query],
    ['body', request.body],
  ];
  for (const [location, value] of parts) {
    const found = findUnstorableText(value);
    if (found) {
      // A bad property name at the top of a query string or path is named by where it was.
      const field = location !== 'body' && found.field === 'body' ? location : found.field;
      throw new AppError('INVALID_INPUT', `${field} ${found.reason}`, { field, rule: 'storableText', location });
    }
  }
}

/**
 * The query string parser keeps a sequence that is not percent-encoded UTF-8 (`%ED%A0%80`, `%FF`) as raw
 * text, so a client would get an answer about a value it did not mean: refused instead, like such a path.
 */
function refuseBadQueryEncoding(url: string): void {
  const at = url.indexOf('?');
  if (at < 0) return;
  try {
    decodeURIComponent(url.slice(at + 1));
  } catch {
    throw new AppError('INVALID_INPUT', 'The query string is not valid percent-encoded UTF-8', {
      field: 'querystring',
      rule: 'url',
      location: 'querystring',
    });
  }
}

/** On the API scope: the text rule before validation, and the statuses it (and rate limits) add to every route. */
export function guardApiInput(api: Http): void {
  api.addHook('preValidation', refuseUnstorableText);
  api.addHook('onRoute', declareCommonErrors);
}

/** onRequest: a URL longer than MAX_URL_BYTES is a 414 in the error shape. */
export async function refuseLongUrl(request: FastifyRequest): Promise<void> {
  if (request.url.length > MAX_URL_BYTES) {
    throw new AppError('URI_TOO_LONG', `The URL is longer than ${MAX_URL_BYTES} bytes`, { limit: MAX_URL_BYTES });
  }
}

/**
 * onRoute, for API routes: every route can answer 400 (any query string may carry text the rule above
 * refuses) and every authenticated route 429 (rate limits), so their OpenAPI entries say so.
 */
export function declareCommonErrors(route: RouteOptions): void {
  if (route.schema?.hide) return;
  const authenticated = !route.config?.public;
  route.schema = {
    ...route.schema,
    response: {
      400: ErrorBody,
      ...(authenticated ? { 429: ErrorBody } : {}),
      ...(route.schema?.response as object | undefined),
    },
  };
}

/**
 * Fastify's `frameworkErrors`: a path that is not valid percent-encoding (FST_ERR_BAD_URL) or a path
 * parameter over the router's length limit (FST_ERR_MAX_PARAM_LENGTH), answered before any route runs.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const body =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? { status: 414, code: 'URI_TOO_LONG', message: 'A path parameter is too long', details: { field: 'path' } }
      : {
          status: 400,
          code: 'INVALID_INPUT',
          message: 'The URL path is not valid percent-encoded UTF-8',
          details: { field: 'path', rule: 'url' },
        };
  void reply.status(body.status).type('application/json').send(JSON.stringify(body));
}

/** Is the part Node could not parse still inside the request line (so the URL is what overflowed)? */
function requestLineOverflowed(raw: unknown): boolean {
  if (!Buffer.isBuffer(raw)) return false;
  const head = raw.subarray(0, 4096).toString('latin1');
  return /^[A-Z]+ \S/.test(head) && !raw.includes('\r\n');
}

function clientErrorBody(err: NodeJS.ErrnoException & { rawPacket?: unknown }) {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request was not received in time' };
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return requestLineOverflowed(err.rawPacket)
      ? { status: 414, code: 'URI_TOO_LONG', message: `The URL is longer than ${MAX_URL_BYTES} bytes` }
      : {
          status: 431,
          code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
          message: 'The request headers are larger than the server accepts',
        };
  }
  return {
    status: 400,
    code: 'INVALID_INPUT',
    message: 'The request is not valid HTTP/1.1',
    details: { field: 'request', rule: 'http' },
  };
}

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the request before Fastify saw it. Answers
 * in the error shape and closes the connection (the stream cannot be trusted any more). Only the parser's
 * code is logged: the raw packet holds the request's headers, credentials included.
 */
export function answerClientError(this: FastifyInstance, err: Error, socket: Socket): void {
  const error = err as NodeJS.ErrnoException & { rawPacket?: unknown };
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const body = clientErrorBody(error);
  this.log.debug({ code: error.code, status: body.status }, 'malformed request refused');
  if (socket.writable) {
    const json = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status] ?? 'Error'}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy();
}
