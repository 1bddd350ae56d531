// The request path's side of contract check mode (services/contract-check.ts): each answer of the API is
// checked as it leaves, its bytes untouched, and what does not match the served document is kept on the
// request for the sandbox request log (http/sandbox-requests.ts writes it with the entry).
import type { ContractCheck, ContractMismatch } from '../services/contract-check.ts';
import type { Http } from './http.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** What contract check mode found wrong with this request's answer; undefined when nothing (or off). */
    contractMismatches?: ContractMismatch[];
  }
}

function jsonOf(payload: unknown): unknown {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  const text = payload.toString();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Registers the check on the authenticated API scope; nothing at all when the mode is off. */
export function watchContract(api: Http, check: ContractCheck): void {
  if (!check.enabled) return;
  api.addHook('onSend', async (request, reply, payload) => {
    // A fault rule's answer is the one the developer asked for, not the service's: it has no contract to keep.
    if (request.sandboxStamp?.faultId) return payload;
    const url = request.routeOptions.url;
    if (url === undefined) return payload;
    const type = String(reply.getHeader('content-type') ?? '');
    const found = check.checkResponse(request.method, url, reply.statusCode, type, jsonOf(payload));
    if (found.length > 0) request.contractMismatches = found;
    return payload;
  });
}
