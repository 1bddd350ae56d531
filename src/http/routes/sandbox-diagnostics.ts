import type { Services } from '../../services/index.ts';
import type { RequestLogFilters } from '../../services/sandbox-requests.ts';
import { created, type Http } from '../http.ts';
import { errors, IdParam } from '../../wire/common.ts';
import {
  SandboxFault,
  SandboxFaultCreate,
  SandboxFaultList,
  SandboxFaultsCleared,
  SandboxPostingList,
  SandboxRequestListQuery,
  SandboxRequestPage,
} from '../../wire/sandbox-diagnostics.ts';
import { ms, pageOf } from './paging.ts';

const DOCS = {
  requests: {
    summary: "The calling workspace's request log, newest first",
    description:
      "Every API request made with this sandbox workspace's credentials: method, path, status, latency, request " +
      'id, idempotency key, error code and the fault rule applied. Filter by method, path prefix, status (404) ' +
      'or class (4xx), errorCode, idempotencyKey, requestId, faultId, since and until. This process writes what ' +
      'it holds first; another server process within 500 ms. The newest SANDBOX_REQUEST_LOG_SIZE entries are kept.',
  },
  create: {
    summary: 'Add a fault rule to the calling workspace',
    description:
      'Requests of this workspace whose path matches route (and method, when given) are delayed by latencyMs, ' +
      'then answered with an error body (answer) or cut off (drop), with the given probability and at most ' +
      'times times. Rules are tried oldest first; the first that fires applies. It applies at once in this ' +
      'process and within a second in every other. The /sandbox/faults and /sandbox/requests routes are never ' +
      'faulted.',
  },
  list: {
    summary: "List the calling workspace's fault rules",
    description: 'In the order they are tried (oldest first), with how many firings each has left.',
  },
  remove: {
    summary: 'Remove one fault rule',
    description: 'Answers the rule as it was. Another process stops applying it within a second.',
  },
  clear: {
    summary: 'Remove every fault rule of the calling workspace',
    description: 'Answers how many were removed. A reset removes them too.',
  },
  postings: {
    summary: "A sandbox payment's ledger postings, oldest first",
    description:
      'Every posting of the journal entries the payment made (debit, refund, settlement, fees), one line per ' +
      'account and currency, with the kind of account. Sandbox only; an unknown id is a 404.',
  },
};

function filtersOf(q: {
  method?: string | undefined;
  path?: string | undefined;
  status?: string | undefined;
  errorCode?: string | undefined;
  idempotencyKey?: string | undefined;
  requestId?: string | undefined;
  faultId?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  contractMismatch?: boolean | undefined;
}): RequestLogFilters {
  const status = q.status;
  return {
    method: q.method,
    pathPrefix: q.path,
    status:
      status === undefined
        ? undefined
        : status.endsWith('xx')
          ? { hundreds: Number(status[0]) }
          : { exact: Number(status) },
    errorCode: q.errorCode,
    idempotencyKey: q.idempotencyKey,
    requestId: q.requestId,
    faultId: q.faultId,
    sinceMs: ms(q.since),
    untilMs: ms(q.until),
    contractMismatch: q.contractMismatch,
  };
}

export function sandboxDiagnosticRoutes(api: Http, services: Services): void {
  const { sandboxRequests, sandboxFaults, transactions, overview } = services;
  const tags = ['Sandbox'];
  api.get('/sandbox/requests', {
    config: { permission: 'VIEW', sandboxOnly: true },
    schema: {
      tags,
      ...DOCS.requests,
      querystring: SandboxRequestListQuery,
      response: { 200: SandboxRequestPage, ...errors(400, 401, 403) },
    },
    handler: async (req) => sandboxRequests.list(req.principal, filtersOf(req.query), pageOf(req.query, 'desc')),
  });
  api.post('/sandbox/faults', {
    config: { permission: 'TRANSACT', sandboxOnly: true, idempotent: true },
    schema: {
      tags,
      ...DOCS.create,
      body: SandboxFaultCreate,
      response: { 201: SandboxFault, ...errors(400, 401, 403, 409) },
    },
    handler: async (req, reply) => created(reply, await sandboxFaults.create(req.principal, req.body)),
  });
  api.get('/sandbox/faults', {
    config: { permission: 'VIEW', sandboxOnly: true },
    schema: { tags, ...DOCS.list, response: { 200: SandboxFaultList, ...errors(401, 403) } },
    handler: async (req) => ({ data: await sandboxFaults.list(req.principal) }),
  });
  api.delete('/sandbox/faults/:faultId', {
    config: { permission: 'TRANSACT', sandboxOnly: true },
    schema: {
      tags,
      ...DOCS.remove,
      params: IdParam('faultId', 'Fault'),
      response: { 200: SandboxFault, ...errors(401, 403, 404) },
    },
    handler: async (req) => sandboxFaults.remove(req.principal, req.params.faultId),
  });
  api.delete('/sandbox/faults', {
    config: { permission: 'TRANSACT', sandboxOnly: true },
    schema: { tags, ...DOCS.clear, response: { 200: SandboxFaultsCleared, ...errors(401, 403) } },
    handler: async (req) => ({ deleted: await sandboxFaults.clear(req.principal) }),
  });
  api.get('/sandbox/transactions/:transactionId/postings', {
    config: { permission: 'VIEW', sandboxOnly: true },
    schema: {
      tags,
      ...DOCS.postings,
      params: IdParam('transactionId', 'Transaction'),
      response: { 200: SandboxPostingList, ...errors(401, 403, 404) },
    },
    handler: async (req) => {
      // The payment first: another workspace's id, or none, answers 404 like every other read.
      const transaction = await transactions.get(req.principal, req.params.transactionId);
      const postings = await overview.postingsOf(req.principal, transaction.id);
      return { data: postings.map((p) => ({ ...p, amount: Number(p.amount) })) };
    },
  });
}
