// The request path's side of the sandbox request log and fault rules. Once authentication has said whose
// request it is, a sandbox workspace's request is stamped, may meet one of its fault rules (a delay, an
// error answer, a dropped connection), and is recorded when it ends. Production requests, requests nobody
// could be identified for (a 401), and the sandbox's own diagnostic routes pass untouched.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../domain/errors.ts';
import { isDiagnosticPath } from '../domain/sandbox-faults.ts';
import { redactSecrets } from '../domain/secrets.ts';
import type { ActiveFault, SandboxFaults } from '../services/sandbox-faults.ts';
import type { SandboxRequestLog } from '../services/sandbox-requests.ts';
import type { Principal } from '../services/tokens.ts';
import { API_VERSION, type Http } from './http.ts';

/** A body longer than this is kept cut, as a JSON string: the log is for reading, not for replaying. */
const MAX_BODY_CHARS = 16_384;
const FAULT_HEADER = 'x-sandbox-fault';

interface Stamp {
  id: string;
  atMs: number;
  path: string;
  faultId: string | null;
  errorCode: string | null;
  responseBody: string | null;
  recorded: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Undefined until a hook asks; null for a request the log does not keep. */
    sandboxStamp?: Stamp | null;
  }
}

/**
 * The path under the API's base, without its query, percent-decoded where it can be. A decoded NUL becomes
 * U+FFFD: PostgreSQL text cannot hold one, and the log must be able to store any path a client sends.
 */
function apiPathOf(url: string): string {
  const path = (url.split('?')[0] ?? '/').slice(API_VERSION.length + 1) || '/';
  try {
    return decodeURIComponent(path).replaceAll('\0', '\uFFFD');
  } catch {
    return path;
  }
}

/** The query string as sent, without its `?`; null when there is none. Cut like a body, past MAX_BODY_CHARS. */
function queryOf(url: string): string | null {
  const at = url.indexOf('?');
  if (at < 0 || at === url.length - 1) return null;
  return url.slice(at + 1, at + 1 + MAX_BODY_CHARS).replaceAll('\0', '');
}

/** A JSON value as kept in the log: every secret redacted, cut past MAX_BODY_CHARS. */
function keptBody(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(redactSecrets(value));
  return text.length <= MAX_BODY_CHARS ? text : JSON.stringify(`${text.slice(0, MAX_BODY_CHARS)}…`);
}

function jsonOf(payload: unknown): unknown {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  try {
    return JSON.parse(payload.toString());
  } catch {
    return undefined;
  }
}

function faultAnswer(reply: FastifyReply, fault: ActiveFault & { answer: NonNullable<ActiveFault['answer']> }) {
  const error = new AppError(fault.answer.code as ErrorCode, `Answered by the sandbox fault rule ${fault.id}`, {
    reason: 'SANDBOX_FAULT',
    faultId: fault.id,
  });
  const body = { status: error.status, code: error.code, message: error.message, details: error.details };
  return reply
    .status(error.status)
    .header(FAULT_HEADER, fault.id)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

/**
 * The request's stamp, made the first time one of the hooks asks; null for a request the log does not keep
 * (no principal, production, or a diagnostic route). A request the authentication hook refused (403) never
 * reached onRequest: it is stamped at its end, its arrival worked out from its latency.
 */
function stampOf(log: SandboxRequestLog, request: FastifyRequest, reply: FastifyReply): Stamp | null {
  if (request.sandboxStamp !== undefined) return request.sandboxStamp;
  const principal = request.principal as Principal | undefined;
  const path = apiPathOf(request.url);
  if (principal?.environment !== 'sandbox' || isDiagnosticPath(path)) {
    request.sandboxStamp = null;
    return null;
  }
  const { id, atMs } = log.arrival();
  const stamp = { id, atMs: atMs - Math.round(reply.elapsedTime), path, faultId: null, errorCode: null };
  request.sandboxStamp = { ...stamp, responseBody: null, recorded: false };
  return request.sandboxStamp;
}

function record(log: SandboxRequestLog, request: FastifyRequest, reply: FastifyReply, status: number | null): void {
  const stamp = stampOf(log, request, reply);
  if (!stamp || stamp.recorded) return;
  stamp.recorded = true;
  const key = request.headers['idempotency-key'];
  const json = (request.headers['content-type'] ?? '').startsWith('application/json');
  log.record({
    id: stamp.id,
    platformId: request.principal.platformId,
    environment: request.principal.environment,
    arrivedAtMs: stamp.atMs,
    method: request.method,
    path: stamp.path,
    status,
    latencyMs: reply.elapsedTime,
    requestId: request.id,
    idempotencyKey: typeof key === 'string' ? key : null,
    errorCode: stamp.errorCode,
    faultId: stamp.faultId,
    requestBody: log.keepsBodies && json ? keptBody(request.body) : null,
    query: log.keepsBodies ? queryOf(request.url) : null,
    responseBody: stamp.responseBody,
    contractMismatches: request.contractMismatches ?? null,
  });
}

/** Applies the first of the workspace's fault rules that fires: a delay, then an error answer or a drop. */
async function applyFault(log: SandboxRequestLog, faults: SandboxFaults, request: FastifyRequest, reply: FastifyReply) {
  const stamp = stampOf(log, request, reply);
  if (!stamp) return;
  const fault = await faults.pick(request.principal, request.method, stamp.path);
  if (!fault) return;
  stamp.faultId = fault.id;
  if (fault.latencyMs > 0) await sleep(fault.latencyMs);
  if (fault.action === 'drop') {
    // No answer at all: the client sees its connection closed, as when a load balancer or a server dies.
    record(log, request, reply, null);
    reply.hijack();
    request.raw.socket.destroy();
    return reply;
  }
  if (fault.answer) {
    stamp.errorCode = fault.answer.code;
    return faultAnswer(reply, { ...fault, answer: fault.answer });
  }
  return undefined;
}

/**
 * Registers the hooks on the authenticated API scope, after the authentication hook. The log is written
 * off the request path (services/sandbox-requests.ts); the last entries are written when the server closes.
 */
export function watchSandboxRequests(api: Http, log: SandboxRequestLog, faults: SandboxFaults): void {
  api.addHook('onRequest', async (request, reply) => applyFault(log, faults, request, reply));

  api.addHook('onSend', async (request, reply, payload) => {
    const stamp = stampOf(log, request, reply);
    if (!stamp) return payload;
    const parsed = reply.statusCode >= 400 || log.keepsBodies ? jsonOf(payload) : undefined;
    if (reply.statusCode >= 400 && parsed && typeof parsed === 'object' && 'code' in parsed) {
      stamp.errorCode = String(parsed.code);
    }
    if (log.keepsBodies) stamp.responseBody = keptBody(parsed);
    return payload;
  });

  api.addHook('onResponse', async (request, reply) => record(log, request, reply, reply.statusCode));

  api.addHook('onClose', async () => log.flush());
}
