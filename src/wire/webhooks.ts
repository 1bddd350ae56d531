import { Type } from '@sinclair/typebox';
import { PageQuery, StringEnum, Timestamp } from './common.ts';
import { component } from './component.ts';
import { EXAMPLE } from './examples.ts';

export const DeliveryState = StringEnum(['PENDING', 'DELIVERED', 'FAILED', 'NO_ENDPOINT', 'NOT_IN_ENVELOPE'] as const, {
  description:
    'PENDING: not yet acknowledged (retries may be due). DELIVERED: a 2xx or 409 came back. FAILED: not ' +
    'retried, or out of retries. NO_ENDPOINT: no endpoint was configured when it was due. NOT_IN_ENVELOPE: ' +
    'the envelope in effect when it was due has no notification for its type (LEGACY: refund events)',
});

export const WebhookAttempt = Type.Object({
  run: Type.Integer({ minimum: 1, description: '1 for the first delivery, one more per redelivery' }),
  attempt: Type.Integer({ minimum: 1, description: '1-based within the run' }),
  url: Type.String(),
  startedAt: Timestamp,
  responseStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'Null when no HTTP answer came back' }),
  latencyMs: Type.Integer({ minimum: 0 }),
  error: Type.Union([Type.String(), Type.Null()]),
  responseBody: Type.Union([Type.String(), Type.Null()], { description: 'The first 1 KB of the answer' }),
  requestHeaders: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
    description: 'The headers sent, signatures included; null for attempts recorded before they were kept',
  }),
  requestBody: Type.Union([Type.String(), Type.Null()], {
    description: 'The exact body sent; null for attempts recorded before it was kept',
  }),
});

export const WebhookEvent = component(
  'WebhookEvent',
  Type.Object({
    id: Type.String({ description: 'Webhook:<uuid>; the id every delivery of this event carries' }),
    type: Type.String({ description: 'OBJECT.EVENT, or TEST' }),
    objectId: Type.String(),
    data: Type.Unknown({ description: 'The resource as it was when the event happened' }),
    deliveryState: DeliveryState,
    createdAt: Timestamp,
    deliveryUpdatedAt: Type.Optional(Timestamp),
    attempts: Type.Optional(Type.Array(WebhookAttempt)),
  }),
  {
    id: 'Webhook:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e2b',
    type: 'OUTGOING_PAYMENT.COMPLETED',
    objectId: EXAMPLE.transactionId,
    data: { id: EXAMPLE.transactionId, status: 'COMPLETED' },
    deliveryState: 'DELIVERED',
    createdAt: EXAMPLE.updatedAt,
    deliveryUpdatedAt: EXAMPLE.updatedAt,
    attempts: [
      {
        run: 1,
        attempt: 1,
        url: 'https://platform.example/webhooks',
        startedAt: EXAMPLE.updatedAt,
        responseStatus: 200,
        latencyMs: 84,
        error: null,
        responseBody: 'ok',
        requestHeaders: {
          'content-type': 'application/json',
          'webhook-id': 'Webhook:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e2b',
        },
        requestBody: '{"id":"Webhook:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e2b","type":"OUTGOING_PAYMENT"}',
      },
    ],
  },
);

export const WebhookEventListQuery = Type.Object({
  ...PageQuery,
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  objectId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  deliveryState: Type.Optional(DeliveryState),
});

export const TestWebhookRequest = component(
  'WebhookTestRequest',
  Type.Object(
    { url: Type.Optional(Type.String({ minLength: 1, description: 'Send here instead of the configured endpoint' })) },
    { additionalProperties: false },
  ),
  { url: 'https://platform.example/webhooks' },
);

export const TestWebhookResponse = component(
  'WebhookTestResult',
  Type.Object({
    url: Type.String(),
    response_status: Type.Integer(),
    response_body: Type.String({ description: 'The first 1 KB of the answer' }),
  }),
  { url: 'https://platform.example/webhooks', response_status: 200, response_body: 'ok' },
);
