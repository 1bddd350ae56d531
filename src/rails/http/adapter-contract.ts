// The generic HTTP connector's protocol as an OpenAPI 3.1 document: what an adapter (a platform's bridge to
// its bank) serves, and the one endpoint it calls back on the service. Written out by hand, in our own words,
// so that an adapter's author reads one document; docs/connectors.md tells the same story in prose, and
// examples/http-adapter/server.mjs implements it. The service serves it at GET /connectors/openapi.json.
import { FAILURE_REASONS } from '../../domain/failure-reasons.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: string, example: unknown) => ({ 'application/json': { schema: ref(schema), example } });
const errorAnswer = (description: string, status: number, code: string, message: string) => ({
  description,
  content: json('Error', { status, code, message }),
});
const SIGNED = [
  { $ref: '#/components/parameters/WebhookId' },
  { $ref: '#/components/parameters/WebhookTimestamp' },
  { $ref: '#/components/parameters/WebhookSignature' },
];
const UNAUTHORIZED = errorAnswer(
  'The signature is missing or wrong, or the timestamp is more than 300 s from the receiver clock.',
  401,
  'UNAUTHORIZED',
  'missing, wrong or stale signature',
);
const UNKNOWN_OUTCOME = errorAnswer(
  'The adapter could not say what happened. The service treats this (and 401, 408, 429, a time-out or a ' +
    'broken connection) as an unknown outcome: it keeps the payment PROCESSING and asks again later.',
  503,
  'UNAVAILABLE',
  'the bank did not answer',
);

const PENDING_STATE = { status: 'PENDING', railReference: 'rail_8f14e45f' };
const INSTRUCTION_EXAMPLE = {
  id: 'Transaction:019a0c1e-7b7e-7c3a-9b1e-4f7a2d9c0e11',
  direction: 'PAYOUT',
  amount: 12345,
  currency: 'USD',
  account: {
    id: 'ExternalAccount:019a0c1e-5a11-7000-8000-0000000000aa',
    accountType: 'USD_ACCOUNT',
    accountInfo: { accountNumber: '123456789000', routingNumber: '021000021', beneficiary: { fullName: 'Ada L.' } },
  },
  reference: 'Invoice 2026-117',
  createdAt: '2026-12-02T01:02:03.000Z',
};

const schemas = {
  PayoutInstruction: {
    type: 'object',
    description: 'One payment handed to the adapter. Its `id` is the idempotency key: the same id twice is one payout.',
    additionalProperties: false,
    required: ['id', 'direction', 'amount', 'currency', 'account', 'createdAt'],
    properties: {
      id: { type: 'string', description: "The service's transaction id.", examples: [INSTRUCTION_EXAMPLE.id] },
      direction: {
        type: 'string',
        enum: ['PAYOUT', 'PULL'],
        description: 'PAYOUT sends money to the account; PULL collects money from it.',
      },
      amount: { type: 'integer', minimum: 1, description: 'In minor units of `currency` (cents for USD).' },
      currency: { type: 'string', description: 'ISO 4217 code.', examples: ['USD'] },
      account: ref('ExternalAccount'),
      reference: { type: 'string', description: "The payment's reference or remittance text, when it has one." },
      createdAt: { type: 'string', format: 'date-time', description: 'When the service created the payment.' },
    },
  },
  ExternalAccount: {
    type: 'object',
    description: 'The account money goes to (PAYOUT) or comes from (PULL), as the payouts API describes it.',
    additionalProperties: false,
    required: ['id', 'accountType', 'accountInfo'],
    properties: {
      id: { type: 'string', description: "The service's external account id." },
      accountType: { type: 'string', description: 'The API account type, e.g. USD_ACCOUNT or EUR_ACCOUNT.' },
      accountInfo: ref('AccountInfo'),
    },
  },
  AccountInfo: {
    type: 'object',
    description:
      "The account's details exactly as the payouts API holds them; which fields appear depends on " +
      '`accountType` (accountNumber and routingNumber, iban, clabe, a phone number…, and the beneficiary). ' +
      'The one open object in this document: it follows the API, not this protocol.',
    additionalProperties: true,
  },
  PayoutState: {
    type: 'object',
    description: "The payout's state at the rail: the answer to a submission, a status read and a cancel.",
    additionalProperties: false,
    required: ['status'],
    properties: {
      status: {
        type: 'string',
        enum: ['PENDING', 'COMPLETED', 'FAILED'],
        description:
          'PENDING: taken, not settled yet (an event follows). COMPLETED: settled. FAILED: it will not ' +
          'settle; the service fails the payment and refunds it. Money that came back after COMPLETED reads FAILED.',
      },
      railReference: { type: 'string', description: "The rail's own reference; events may name the payout by it." },
      failureReason: {
        type: 'string',
        description:
          'For FAILED. A public failure reason (INSUFFICIENT_BALANCE, INVALID_BANK_ACCOUNT…) is shown to the ' +
          'platform as is; any other value becomes COUNTERPARTY_POST_TX_FAILED.',
      },
    },
  },
  RailEvent: {
    type: 'object',
    description:
      'What happened to a payout at the rail, sent by the adapter. It names the payout by `id`, `railReference`, ' +
      'or both.',
    additionalProperties: false,
    required: ['status', 'occurredAt'],
    anyOf: [{ required: ['id'] }, { required: ['railReference'] }],
    properties: {
      id: { type: 'string', description: "The service's transaction id, as in the instruction." },
      railReference: { type: 'string', description: 'The reference the adapter answered the instruction with.' },
      status: {
        type: 'string',
        enum: ['PENDING', 'COMPLETED', 'FAILED', 'RETURNED'],
        description:
          'RETURNED: the money came back after COMPLETED; the service fails the payment (PAYOUT_RETURNED ' +
          'unless `failureReason` says otherwise) and refunds it.',
      },
      failureReason: {
        type: 'string',
        enum: [...FAILURE_REASONS],
        description: 'For FAILED and RETURNED: a public failure reason.',
      },
      occurredAt: { type: 'string', format: 'date-time', description: 'When it happened at the rail.' },
    },
  },
  EventReceipt: {
    type: 'object',
    description: 'The service took the event. Only a 2xx answer ends the adapter retrying it.',
    additionalProperties: false,
    required: ['received', 'applied'],
    properties: {
      received: { type: 'boolean', const: true },
      applied: {
        type: 'boolean',
        description:
          'false for a duplicate, a replayed webhook-id, a late or out-of-order event, or an unknown payment ' +
          '(recorded, changes nothing).',
      },
      transactionId: { type: 'string', description: 'The payment the event was matched to.' },
    },
  },
  Error: {
    type: 'object',
    description: 'The error body, both ways.',
    additionalProperties: false,
    required: ['status', 'code', 'message'],
    properties: {
      status: { type: 'integer', description: 'The HTTP status again.' },
      code: { type: 'string', description: 'UNAUTHORIZED, INVALID_INPUT, NOT_FOUND, CONFLICT…' },
      message: { type: 'string', description: 'For a person reading logs.' },
      failureReason: {
        type: 'string',
        description: 'On a 4xx refusal of an instruction: why, as a public failure reason when one fits.',
      },
    },
  },
};

const header = (name: string, description: string, pattern: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', pattern },
});

const parameters = {
  WebhookId: header(
    'webhook-id',
    'A unique message id (msg_<uuid>). A retry of the same message keeps it; a receiver answers an id it has ' +
      'seen as a replay.',
    '^.+$',
  ),
  WebhookTimestamp: header(
    'webhook-timestamp',
    'Unix time in whole seconds. More than 300 s from the receiver clock is refused (401).',
    '^[0-9]+$',
  ),
  WebhookSignature: header(
    'webhook-signature',
    'v1,<base64 HMAC-SHA256> over "<webhook-id>.<webhook-timestamp>.<raw body>" (the empty body for a GET or ' +
      'a cancel), keyed by the base64-decoded part of the connector secret after whsec_. Several ' +
      'space-separated signatures may appear (a secret being rotated); any valid one suffices.',
    '^v1,',
  ),
  IdempotencyKey: header('idempotency-key', 'The transaction id again: the same as the body `id`.', '^.+$'),
  PayoutId: {
    name: 'id',
    in: 'path',
    required: true,
    description: "The service's transaction id, URL-encoded (Transaction%3A019…).",
    schema: { type: 'string' },
  },
  ConnectorName: {
    name: 'name',
    in: 'path',
    required: true,
    description: "The connector's name in CONNECTORS_FILE.",
    schema: { type: 'string' },
  },
};

const paths = {
  '/payouts': {
    post: {
      operationId: 'submitPayout',
      summary: 'Hand over one payment',
      description:
        'Sent by the service when a payment starts processing, and again (same id, same idempotency key) ' +
        'whenever it does not know the outcome. The adapter must never move money twice for one id: a ' +
        "repeated id answers the first payout's current state.",
      parameters: [...SIGNED, { $ref: '#/components/parameters/IdempotencyKey' }],
      requestBody: { required: true, content: json('PayoutInstruction', INSTRUCTION_EXAMPLE) },
      responses: {
        '200': { description: 'Taken (or taken before): its state.', content: json('PayoutState', PENDING_STATE) },
        '201': { description: 'Same as 200.', content: json('PayoutState', PENDING_STATE) },
        '202': { description: 'Same as 200.', content: json('PayoutState', PENDING_STATE) },
        '400': errorAnswer(
          'Refused before anything left (any 4xx but 401, 408, 409 and 429): the service fails the payment and ' +
            'refunds it, with `failureReason` when it is a public one, else COUNTERPARTY_POST_TX_FAILED.',
          400,
          'INVALID_INPUT',
          'amount is not a positive integer',
        ),
        '401': UNAUTHORIZED,
        '409': errorAnswer(
          'The idempotency-key differs from the body id. The service treats it as an unknown outcome.',
          409,
          'CONFLICT',
          'idempotency-key differs from the body id',
        ),
        '5XX': UNKNOWN_OUTCOME,
      },
    },
  },
  '/payouts/{id}': {
    get: {
      operationId: 'getPayout',
      summary: "Read a payout's state",
      description:
        'Asked by the service for a payment whose outcome it is waiting for. 404 means the adapter never ' +
        'received it: the service submits it again, safely, since submission is idempotent.',
      parameters: [{ $ref: '#/components/parameters/PayoutId' }, ...SIGNED],
      responses: {
        '200': {
          description: 'Its current state.',
          content: json('PayoutState', { status: 'COMPLETED', railReference: 'rail_8f14e45f' }),
        },
        '401': UNAUTHORIZED,
        '404': errorAnswer('Never received.', 404, 'NOT_FOUND', 'no payout with this id'),
      },
    },
  },
  '/payouts/{id}/cancel': {
    post: {
      operationId: 'cancelPayout',
      summary: 'Cancel a payout not yet settled',
      description:
        'Sent when the platform cancels a payment the connector holds (POST /transactions/{id}/cancel on the ' +
        'service), unless the connector is configured with "cancel": false. Optional for an adapter: one that ' +
        'cannot cancel answers 409 or 404. The request has no body; its signature covers the empty body. Only ' +
        "FAILED cancels the payment on the service (it is failed and refunded as the user's cancellation); " +
        'a 4xx changes nothing; a 5xx, 401, 408, 429 or no answer is an unknown outcome: the payment stays ' +
        'PROCESSING and its state is read again later (GET /payouts/{id}).',
      parameters: [{ $ref: '#/components/parameters/PayoutId' }, ...SIGNED],
      responses: {
        '200': {
          description:
            'Its state after: FAILED when cancelled. COMPLETED (it settled first) completes the payment on the ' +
            'service; PENDING means it was not cancelled.',
          content: json('PayoutState', { status: 'FAILED', railReference: 'rail_8f14e45f' }),
        },
        '401': UNAUTHORIZED,
        '404': errorAnswer(
          'Never received, or this adapter cannot cancel.',
          404,
          'NOT_FOUND',
          'no payout with this id',
        ),
        '409': errorAnswer(
          'Too late to cancel (the money left, or it settled): nothing changes.',
          409,
          'CONFLICT',
          'the payout is COMPLETED',
        ),
        '5XX': UNKNOWN_OUTCOME,
      },
    },
  },
  '/connectors/{name}/events': {
    servers: [
      {
        url: '{serviceUrl}',
        description: 'Served by the payouts service, not the adapter.',
        variables: { serviceUrl: { default: 'http://127.0.0.1:8080' } },
      },
    ],
    post: {
      operationId: 'postRailEvent',
      summary: 'Tell the service what happened at the rail (adapter → service)',
      description:
        'Signed with the same connector secret. The adapter retries until a 2xx answer (or a 400, 401 or 404 ' +
        'that a retry cannot fix), keeping the webhook-id across retries.',
      parameters: [{ $ref: '#/components/parameters/ConnectorName' }, ...SIGNED],
      requestBody: {
        required: true,
        content: json('RailEvent', {
          id: INSTRUCTION_EXAMPLE.id,
          railReference: 'rail_8f14e45f',
          status: 'COMPLETED',
          occurredAt: '2026-12-02T01:02:04.000Z',
        }),
      },
      responses: {
        '200': {
          description: 'Recorded; `applied` says whether it changed the payment.',
          content: json('EventReceipt', { received: true, applied: true, transactionId: INSTRUCTION_EXAMPLE.id }),
        },
        '202': {
          description: 'Recorded, but it names no payment the service knows; shown to operators.',
          content: json('EventReceipt', { received: true, applied: false }),
        },
        '400': errorAnswer('The body is not a RailEvent.', 400, 'INVALID_INPUT', 'status is missing'),
        '401': UNAUTHORIZED,
        '404': errorAnswer('No connector by this name.', 404, 'NOT_FOUND', 'no such connector'),
      },
    },
  },
};

export const ADAPTER_CONTRACT = {
  openapi: '3.1.0',
  info: {
    title: 'Payouts service: HTTP rail adapter protocol',
    version: '1',
    description:
      'A platform connects its bank by running an adapter that serves /payouts. The service calls it; the ' +
      'adapter calls back POST /connectors/{name}/events. Every request, both ways, is signed (Standard ' +
      'Webhooks, HMAC-SHA256 with the whsec_ connector secret). See docs/connectors.md.',
  },
  servers: [
    {
      url: '{adapterUrl}',
      description: "The adapter: the connector's `url` in CONNECTORS_FILE.",
      variables: { adapterUrl: { default: 'http://127.0.0.1:9100' } },
    },
  ],
  paths,
  components: { schemas, parameters },
};
