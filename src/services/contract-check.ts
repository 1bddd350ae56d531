// Contract check mode (SANDBOX_CONTRACT_CHECK=true): every answer of a documented operation and every webhook
// sent is checked against the service's own OpenAPI document, the one GET /openapi.json serves. A mismatch
// changes nothing of what was sent: it is counted (payouts_contract_mismatches_total), kept among the last
// few for whoever asks (the test harness names them), and written to the sandbox request log.
//
// Each validator is compiled once, the first time its operation and status (or webhook shape) is met, from
// the document itself (one Ajv instance holds it, and each validator is a $ref into it), so what is checked
// is what is served, components and all.
import type { Logger } from 'pino';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Counter } from 'prom-client';
import type { Scope } from '../context.ts';
import type { ContractMismatch, SandboxRequestLog } from './sandbox-requests.ts';

export type { ContractMismatch };

/** At most this many mismatches are kept per answer: one wrong list item repeats itself on every item. */
const MAX_PER_ANSWER = 5;
/** The most recent mismatches kept in memory for `recent()`. */
const MAX_RECENT = 1000;
/** Statuses the server may answer on any route without declaring them (server.ts, EVERY_ROUTE_STATUSES). */
const UNDECLARED_OK = new Set([413, 414, 415, 429, 500, 503]);
const DOCUMENT_ID = 'served-openapi';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A JSON pointer segment. */
const escape = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/** What an envelope of each event object carries, by the component of the resource in it. */
const RESOURCE_OF: Record<string, string> = {
  OUTGOING_PAYMENT: 'Transaction',
  INCOMING_PAYMENT: 'Transaction',
  CUSTOMER: 'Customer',
  VERIFICATION: 'Verification',
  INVITATION: 'Invitation',
  INTERNAL_ACCOUNT: 'InternalAccount',
};

export interface ContractCheck {
  /** Whether the mode is on; when off every other call does nothing. */
  readonly enabled: boolean;
  /** The served document; given by the HTTP layer once its routes are registered. */
  useDocument(document: () => unknown): void;
  /**
   * Checks an answer of `method` on the route pattern `url` (Fastify's: `/customers/:customerId`, under the
   * API base). `body` is the parsed JSON, undefined when none was sent or it was not JSON.
   */
  checkResponse(method: string, url: string, status: number, contentType: string, body: unknown): ContractMismatch[];
  /** Checks a webhook as sent; records its mismatches in the workspace's request log. */
  checkWebhook(scope: Scope, eventType: string, body: unknown, status: number | null): ContractMismatch[];
  /** The most recent mismatches, oldest first. */
  recent(): ContractMismatch[];
  /** How many mismatches were found since the process started. */
  count(): number;
}

interface Deps {
  enabled: boolean;
  log: Logger;
  counter: Counter<'kind' | 'operation'>;
  requestLog: SandboxRequestLog;
  document: (() => unknown) | undefined;
  ajv: Ajv | undefined;
  paths: Node;
  validators: Map<string, ValidateFunction | null>;
  /** Where each schema object of the document is (`#/components/schemas/Customer`), by identity. */
  pointers: WeakMap<object, string>;
  recent: ContractMismatch[];
  total: number;
}

function makeAjv(document: Node): Ajv {
  // Strict output, as clients read it: no coercion, no defaults filled in. Every error, so a report is whole.
  // verbose: each error carries the schema object it broke, found again in the document by `pointers`.
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, coerceTypes: false, verbose: true });
  addFormats.default(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv;
}

/** Every object of the document by where it is, the first place it is met. */
function pointersOf(document: Node): WeakMap<object, string> {
  const pointers = new WeakMap<object, string>();
  const visit = (value: unknown, at: string, depth: number): void => {
    if (typeof value !== 'object' || value === null || pointers.has(value) || depth > 64) return;
    pointers.set(value, at);
    const entries = Array.isArray(value) ? value.entries() : Object.entries(value);
    for (const [key, child] of entries) visit(child, `${at}/${escape(String(key))}`, depth + 1);
  };
  visit(document, '#', 0);
  return pointers;
}

function documentOf(deps: Deps): Ajv | undefined {
  if (deps.ajv || !deps.document) return deps.ajv;
  const document = deps.document();
  if (!isNode(document)) return undefined;
  deps.paths = isNode(document.paths) ? document.paths : {};
  deps.pointers = pointersOf(document);
  deps.ajv = makeAjv(document);
  return deps.ajv;
}

/** The validator of one pointer into the document, compiled the first time and kept (null: none compiles). */
function validatorAt(deps: Deps, ajv: Ajv, pointer: string): ValidateFunction | null {
  const known = deps.validators.get(pointer);
  if (known !== undefined) return known;
  let validate: ValidateFunction | null = null;
  try {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
  } catch (err) {
    deps.log.warn({ err, pointer }, 'contract check: a schema of the served document does not compile');
  }
  deps.validators.set(pointer, validate);
  return validate;
}

/** `/2025-10-13/customers/:customerId` → `/customers/{customerId}` (openapi.ts strips the base the same way). */
function documentPath(url: string): string {
  const path = url.replace(/^\/\d{4}-\d{2}-\d{2}(?=\/)/, '');
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function fromAjv(
  pointers: WeakMap<object, string>,
  errors: ErrorObject[] | null | undefined,
  base: Omit<ContractMismatch, 'path' | 'rule' | 'schemaPath' | 'message'>,
) {
  return (errors ?? []).slice(0, MAX_PER_ANSWER).map((e) => {
    const detail = e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : '';
    const allowed = 'allowedValues' in e.params ? `: ${JSON.stringify(e.params.allowedValues)}` : '';
    return {
      ...base,
      path: e.instancePath,
      rule: e.keyword,
      schemaPath: schemaPathOf(pointers, e),
      message: `${e.instancePath || 'the body'} ${e.message ?? 'is invalid'}${detail}${allowed}`,
    };
  });
}

/** The rule's place in the document (`#/components/schemas/Customer/required`), or Ajv's relative path. */
function schemaPathOf(pointers: WeakMap<object, string>, e: ErrorObject): string {
  const parent = e.parentSchema;
  const at = parent && typeof parent === 'object' ? pointers.get(parent) : undefined;
  return at === undefined ? e.schemaPath : `${at}/${escape(e.keyword)}`;
}

function keep(deps: Deps, found: ContractMismatch[]): ContractMismatch[] {
  for (const m of found) {
    deps.counter.inc({ kind: m.kind, operation: m.operation });
    deps.total++;
    deps.recent.push(m);
    deps.log.warn({ mismatch: m }, 'contract check: the answer does not match the OpenAPI document');
  }
  if (deps.recent.length > MAX_RECENT) deps.recent.splice(0, deps.recent.length - MAX_RECENT);
  return found;
}

function responseMismatches(
  deps: Deps,
  ajv: Ajv,
  method: string,
  url: string,
  status: number,
  type: string,
  body: unknown,
) {
  const path = documentPath(url);
  const operation = deps.paths[path];
  const declared = isNode(operation) ? operation[method.toLowerCase()] : undefined;
  // Routes the document does not describe (hidden ones, the router's 404) have no contract to keep.
  if (!isNode(declared) || !isNode(declared.responses)) return [];
  const base = { kind: 'response' as const, operation: `${method} ${path}`, status };
  const pointer = `/paths/${escape(path)}/${method.toLowerCase()}/responses/${status}`;
  const response = declared.responses[String(status)];
  if (!isNode(response)) {
    if (UNDECLARED_OK.has(status)) return [];
    const message = `answered ${status}, which the operation does not declare`;
    return [{ ...base, path: '', rule: 'status', schemaPath: `#${pointer}`, message }];
  }
  const content = isNode(response.content) ? response.content : undefined;
  if (!content) {
    // A 204 carries no body on the wire whatever the handler passed (Node's HTTP server drops it).
    if (body === undefined || status === 204 || status === 304) return [];
    return [
      { ...base, path: '', rule: 'content', schemaPath: `#${pointer}`, message: 'a body the document says has none' },
    ];
  }
  const media = Object.keys(content).find((m) => type.startsWith(m));
  if (!media) {
    const message = `answered ${type || 'no content type'}, the document says ${Object.keys(content).join(' or ')}`;
    return [{ ...base, path: '', rule: 'content', schemaPath: `#${pointer}/content`, message }];
  }
  // Only JSON is checked: a file download's bytes have no schema to meet.
  if (!media.includes('json')) return [];
  const validate = validatorAt(deps, ajv, `${pointer}/content/${escape(media)}/schema`);
  if (!validate || validate(body)) return [];
  return fromAjv(deps.pointers, validate.errors, base);
}

function checkResponse(deps: Deps, method: string, url: string, status: number, type: string, body: unknown) {
  const ajv = deps.enabled ? documentOf(deps) : undefined;
  if (!ajv) return [];
  return keep(deps, responseMismatches(deps, ajv, method, url, status, type, body));
}

/** The schema of a webhook body: the envelope's head, and the resource under `data` or its legacy key. */
function webhookSchema(eventType: string, body: unknown): Node {
  const head = {
    id: { type: 'string', pattern: '^Webhook:' },
    type: { type: 'string', minLength: 1 },
    timestamp: { type: 'string', format: 'date-time' },
  };
  const resource = RESOURCE_OF[eventType.split('.')[0] ?? ''];
  const ref = resource ? { $ref: `${DOCUMENT_ID}#/components/schemas/${resource}` } : {};
  const object = (properties: Node, required: string[]) => ({
    type: 'object',
    properties: { ...head, ...properties },
    required: ['id', 'type', 'timestamp', ...required],
  });
  if (!isNode(body) || 'data' in body)
    return object({ data: eventType === 'TEST' ? { type: 'object' } : ref }, ['data']);
  if ('transaction' in body) return object({ transaction: ref }, ['transaction']);
  if ('invitation' in body) return object({ invitation: ref }, ['invitation']);
  // The flat status notices (KYC_STATUS, ACCOUNT_STATUS) and the legacy TEST body: the head only.
  return object({}, []);
}

function checkWebhook(deps: Deps, scope: Scope, eventType: string, body: unknown, status: number | null) {
  const ajv = deps.enabled ? documentOf(deps) : undefined;
  if (!ajv) return [];
  const schema = webhookSchema(eventType, body);
  const key = `webhook ${JSON.stringify(schema)}`;
  let validate = deps.validators.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    deps.validators.set(key, validate);
  }
  const eventId = isNode(body) && typeof body.id === 'string' ? { eventId: body.id } : {};
  if (!validate || validate(body)) return [];
  const base = { kind: 'webhook' as const, operation: `webhook ${eventType}`, status, ...eventId };
  const found = keep(deps, fromAjv(deps.pointers, validate.errors, base));
  if (scope.environment === 'sandbox') recordWebhook(deps, scope, eventType, status, found);
  return found;
}

/** A webhook is no API request; its entry in the log is `WEBHOOK <event type>`, to be found beside the calls. */
function recordWebhook(deps: Deps, scope: Scope, eventType: string, status: number | null, found: ContractMismatch[]) {
  const { id, atMs } = deps.requestLog.arrival();
  deps.requestLog.record({
    id,
    platformId: scope.platformId,
    environment: scope.environment,
    arrivedAtMs: atMs,
    method: 'WEBHOOK',
    path: eventType,
    status,
    latencyMs: 0,
    requestId: id,
    idempotencyKey: null,
    errorCode: null,
    faultId: null,
    requestBody: null,
    responseBody: null,
    query: null,
    contractMismatches: found,
  });
}

/** A check that fails is logged and finds nothing: it must never change an answer or stop a delivery. */
function never(deps: Deps, check: () => ContractMismatch[]): ContractMismatch[] {
  try {
    return check();
  } catch (err) {
    deps.log.warn({ err }, 'contract check: the check itself failed');
    return [];
  }
}

export function makeContractCheck(
  enabled: boolean,
  log: Logger,
  counter: Counter<'kind' | 'operation'>,
  requestLog: SandboxRequestLog,
): ContractCheck {
  const deps: Deps = {
    enabled,
    log,
    counter,
    requestLog,
    document: undefined,
    ajv: undefined,
    paths: {},
    validators: new Map(),
    pointers: new WeakMap(),
    recent: [],
    total: 0,
  };
  return {
    enabled,
    useDocument: (document) => {
      deps.document = document;
      deps.ajv = undefined;
      deps.validators.clear();
    },
    checkResponse: (method, url, status, type, body) =>
      never(deps, () => checkResponse(deps, method, url, status, type, body)),
    checkWebhook: (scope, eventType, body, status) =>
      never(deps, () => checkWebhook(deps, scope, eventType, body, status)),
    recent: () => [...deps.recent],
    count: () => deps.total,
  };
}
