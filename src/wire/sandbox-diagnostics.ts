// The sandbox request log and fault rules: what GET /sandbox/requests answers and what /sandbox/faults takes.
import { Type } from '@sinclair/typebox';
import { FAULT_METHODS, FAULT_STATUSES } from '../domain/sandbox-faults.ts';
import { DataList, PageQuery, Paginated, RequestObject, StringEnum, Timestamp } from './common.ts';
import { component } from './component.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const FaultId = Type.String({ description: 'Fault:<uuid>' });
const Method = StringEnum(FAULT_METHODS);

const BODY =
  'Kept only when the server runs with SANDBOX_REQUEST_LOG_BODIES=true; every property whose name says ' +
  'secret, password or key is [redacted], and a body past 16 KiB is cut (kept as a string)';

const ContractMismatch = Type.Object({
  kind: StringEnum(['response', 'webhook'] as const),
  operation: Type.String({ description: 'GET /customers/{customerId}, or webhook OUTGOING_PAYMENT.COMPLETED' }),
  status: Type.Union([Type.Integer(), Type.Null()]),
  path: Type.String({ description: 'Where in the body, as a JSON pointer (/data/0/status); empty for the body' }),
  rule: Type.String({ description: 'The JSON Schema keyword broken (enum, required, type…), or status, content' }),
  schemaPath: Type.String({ description: 'Where the rule is in the OpenAPI document' }),
  message: Type.String(),
  eventId: Type.Optional(Type.String({ description: "A webhook's event id (Webhook:<uuid>)" })),
});

export const SandboxRequest = component(
  'SandboxRequest',
  Type.Object({
    id: Type.String({ description: 'LogEntry:<uuid>' }),
    time: Type.String({
      format: 'date-time',
      description: 'When the request arrived, in real time (not the sandbox clock)',
    }),
    method: Type.String(),
    path: Type.String({ description: 'Under the API base, without the query string' }),
    status: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The HTTP status answered; null when a fault rule dropped the connection',
    }),
    latencyMs: Type.Integer({ minimum: 0, description: 'From arrival to the last byte of the answer' }),
    requestId: Type.String({ description: 'The X-Request-Id the answer carried' }),
    idempotencyKey: Nullable(Type.String()),
    errorCode: Nullable(Type.String({ description: 'The code of the error body, for an answer of 400 or more' })),
    faultId: Nullable(Type.String({ description: 'The fault rule applied to the request, if any' })),
    requestBody: Type.Optional(Type.Unknown({ description: BODY })),
    responseBody: Type.Optional(Type.Unknown({ description: BODY })),
    query: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'Kept with the bodies: the query string as sent, without its ?; null when there was none',
      }),
    ),
    contractMismatches: Type.Optional(
      Type.Array(ContractMismatch, {
        description:
          'Only with SANDBOX_CONTRACT_CHECK=true, and only when the answer (or, for a WEBHOOK entry, the webhook ' +
          'sent) does not match the OpenAPI document: what differs, where in the body, and the schema rule',
      }),
    ),
  }),
  {
    id: 'LogEntry:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a20',
    time: '2025-10-13T10:30:00.000Z',
    method: 'POST',
    path: '/transfer-out',
    status: 503,
    latencyMs: 212,
    requestId: '0b7e4f5c-3d2a-4c1b-9e8f-7a6d5c4b3a29',
    idempotencyKey: 'payout-7f3a',
    errorCode: 'SERVICE_UNAVAILABLE',
    faultId: 'Fault:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a21',
  },
);

export const SandboxRequestPage = Paginated(SandboxRequest);

export const SandboxRequestListQuery = Type.Object({
  ...PageQuery,
  method: Type.Optional(Method),
  path: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'A path prefix: /customers' })),
  status: Type.Optional(
    Type.String({ pattern: '^([1-5][0-9]{2}|[1-5]xx)$', description: 'An exact status (404) or a class (4xx)' }),
  ),
  errorCode: Type.Optional(Type.String({ maxLength: 100 })),
  idempotencyKey: Type.Optional(Type.String({ maxLength: 255 })),
  requestId: Type.Optional(Type.String({ maxLength: 255 })),
  faultId: Type.Optional(Type.String({ maxLength: 200 })),
  since: Type.Optional(
    Type.String({ format: 'date-time', description: 'Requests that arrived at or after this time' }),
  ),
  until: Type.Optional(
    Type.String({ format: 'date-time', description: 'Requests that arrived at or before this time' }),
  ),
  contractMismatch: Type.Optional(
    Type.Boolean({ description: 'true: only entries contract check mode found a mismatch in; false: only the others' }),
  ),
});

const FaultAnswer = Type.Object(
  {
    status: Type.Integer({ enum: FAULT_STATUSES, description: 'An error status the API answers' }),
    code: Type.Optional(
      Type.String({
        maxLength: 100,
        description: "An error code the API lists for that status; the status's generic code when left out",
      }),
    ),
  },
  { additionalProperties: false },
);

export const SandboxFaultCreate = component(
  'SandboxFaultCreateRequest',
  RequestObject(
    {
      route: Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'A path under the API base; * is one path segment, ** any number: /customers/*',
      }),
      method: Type.Optional(Method),
      probability: Type.Optional(
        Type.Number({ minimum: 0, maximum: 1, default: 1, description: 'How often it fires, 0 to 1' }),
      ),
      latencyMs: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 30_000, description: 'Added before the answer (or the drop)' }),
      ),
      answer: Type.Optional(FaultAnswer),
      drop: Type.Optional(Type.Boolean({ description: 'Close the connection without an answer' })),
      times: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Fires this often, then stops' }),
      ),
    },
    { description: 'One of answer, drop: true, or latencyMs above 0' },
  ),
  { route: '/transfer-out', method: 'POST', answer: { status: 503, code: 'SERVICE_UNAVAILABLE' }, times: 1 },
);

export const SandboxFault = component(
  'SandboxFault',
  Type.Object({
    id: FaultId,
    route: Type.String(),
    method: Type.Union([Method, Type.Null()]),
    probability: Type.Number({ minimum: 0, maximum: 1 }),
    latencyMs: Type.Integer({ minimum: 0 }),
    action: StringEnum(['answer', 'drop', 'delay'] as const, {
      description: 'What it does once its latency has passed: answer an error, drop the connection, or nothing',
    }),
    answer: Type.Union([Type.Object({ status: Type.Integer(), code: Type.String() }), Type.Null()]),
    remaining: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'How many more times it fires; null: no limit',
    }),
    createdAt: Timestamp,
  }),
  {
    id: 'Fault:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a21',
    route: '/transfer-out',
    method: 'POST',
    probability: 1,
    latencyMs: 0,
    action: 'answer',
    answer: { status: 503, code: 'SERVICE_UNAVAILABLE' },
    remaining: 1,
    createdAt: '2025-10-13T10:30:00.000Z',
  },
);

export const SandboxFaultList = DataList(SandboxFault);

export const SandboxFaultsCleared = component(
  'SandboxFaultsCleared',
  Type.Object({ deleted: Type.Integer({ minimum: 0, description: 'Rules removed' }) }),
  { deleted: 2 },
);

export const SandboxPosting = component(
  'SandboxPosting',
  Type.Object({
    entryId: Type.String({ description: 'The journal entry: every posting of one entry sums to zero per currency' }),
    kind: Type.String({ description: 'What moved the money: TRANSFER_OUT, REFUND, SANDBOX_FUNDING, …' }),
    createdAt: Timestamp,
    line: Type.Integer({ minimum: 0 }),
    accountId: Type.String(),
    accountKind: Type.Union([Type.String(), Type.Null()], {
      description: 'CUSTOMER, PLATFORM, SETTLEMENT, IN_FLIGHT, FX_LIQUIDITY, FEE_REVENUE',
    }),
    currency: Type.String(),
    amount: Type.Integer({ description: 'Smallest unit; positive credits the account, negative debits it' }),
  }),
  {
    entryId: 'JournalEntry:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e30',
    kind: 'TRANSFER_OUT',
    createdAt: '2025-10-13T10:30:00.000Z',
    line: 0,
    accountId: 'InternalAccount:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e24',
    accountKind: 'CUSTOMER',
    currency: 'USD',
    amount: -2500,
  },
);

export const SandboxPostingList = DataList(SandboxPosting);
