import { Type } from '@sinclair/typebox';
import { TRIGGER_EVENTS } from '../domain/sandbox-triggers.ts';
import { RequestObject, StringEnum, Timestamp } from './common.ts';
import { component } from './component.ts';

export const SandboxClock = component(
  'SandboxClock',
  Type.Object({
    now: Timestamp,
    offsetMs: Type.Integer({ minimum: 0, description: 'How far this sandbox clock runs ahead of real time' }),
  }),
  { now: '2025-10-13T10:30:00.000Z', offsetMs: 3_600_000 },
);

export const SandboxClockAdvance = component(
  'SandboxClockAdvanceRequest',
  RequestObject(
    {
      milliseconds: Type.Optional(Type.Integer({ minimum: 1 })),
      seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    },
    { description: 'Exactly one of milliseconds or seconds' },
  ),
  { seconds: 3600 },
);

const WorkspaceName = Type.String({ minLength: 1, maxLength: 200, description: 'A label for the operator' });

export const SandboxWorkspaceCreate = component(
  'SandboxWorkspaceCreateRequest',
  RequestObject({ name: Type.Optional(WorkspaceName) }, { description: 'Everything is optional' }),
  { name: 'checkout-tests' },
);

export const SandboxWorkspace = component(
  'SandboxWorkspace',
  Type.Object({
    platformId: Type.String(),
    name: Type.String(),
    tokenId: Type.String({ description: "The workspace's sandbox token (all permissions)" }),
    clientSecret: Type.String({ description: 'Its secret, shown only in this answer' }),
  }),
  {
    platformId: 'Platform:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a10',
    name: 'checkout-tests',
    tokenId: 'Token:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a11',
    clientSecret: 'q3v9Xn0b2f6F3hJ8k1L5m7N9p0R2s4T6u8W0y2Z4a6c',
  },
);

export const SandboxReset = component(
  'SandboxReset',
  Type.Object({
    deletedRows: Type.Integer({ minimum: 0, description: 'Rows removed from the workspace' }),
    resetAt: Timestamp,
  }),
  { deletedRows: 42, resetAt: '2025-10-13T10:30:00.000Z' },
);

export const SandboxSnapshotCreate = component(
  'SandboxSnapshotCreateRequest',
  RequestObject({ name: Type.Optional(WorkspaceName) }, { description: 'Everything is optional' }),
  { name: 'two funded customers' },
);

export const SandboxSnapshot = component(
  'SandboxSnapshot',
  Type.Object({
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    rows: Type.Integer({ minimum: 0, description: 'Rows the snapshot holds' }),
    createdAt: Timestamp,
  }),
  {
    id: 'Snapshot:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a12',
    name: 'two funded customers',
    rows: 57,
    createdAt: '2025-10-13T10:30:00.000Z',
  },
);

export const SandboxSnapshotList = component(
  'SandboxSnapshotList',
  Type.Object({ data: Type.Array(SandboxSnapshot) }),
  {
    data: [
      {
        id: 'Snapshot:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a12',
        name: null,
        rows: 57,
        createdAt: '2025-10-13T10:30:00.000Z',
      },
    ],
  },
);

const TriggerEventName = StringEnum(TRIGGER_EVENTS, {
  description: 'A webhook event type, as X-Webhook-Event-Type and the CURRENT envelope name it',
});

export const SandboxTriggerRequest = component(
  'SandboxTriggerRequest',
  RequestObject(
    { event: TriggerEventName },
    { description: 'The webhook event to produce by running the flow that records it' },
  ),
  { event: 'OUTGOING_PAYMENT.FAILED' },
);

const CreatedId = (what: string) => Type.Optional(Type.String({ description: what }));

export const SandboxTriggerObjects = component(
  'SandboxTriggerObjects',
  Type.Object(
    {
      customerId: CreatedId('The customer the flow created (the payer, the payee, the applicant or the inviter)'),
      internalAccountId: CreatedId("That customer's internal account the payment moves money on"),
      externalAccountId: CreatedId('The bank account whose number suffix picked the outcome'),
      quoteId: CreatedId('The quote of an outgoing payment'),
      transactionId: CreatedId('The payment'),
      beneficialOwnerId: CreatedId("The business's beneficial owner"),
      documentIds: Type.Optional(Type.Array(Type.String(), { description: 'The documents uploaded for review' })),
      verificationId: CreatedId('The (last) verification submitted'),
      invitationCode: CreatedId('The invitation'),
      inviteeCustomerId: CreatedId('The customer who claimed it'),
      configId: CreatedId("The platform's sandbox configuration (a TEST event is about it)"),
    },
    { description: 'Every object the trigger created or used, by kind; only the kinds its flow needs' },
  ),
  {
    customerId: 'Customer:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a13',
    internalAccountId: 'InternalAccount:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a14',
    externalAccountId: 'ExternalAccount:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a15',
    quoteId: 'Quote:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a16',
    transactionId: 'Transaction:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a17',
  },
);

export const SandboxTrigger = component(
  'SandboxTrigger',
  Type.Object({
    event: TriggerEventName,
    eventId: Type.String({ description: 'The recorded event (GET /webhook-events/{eventId}); its webhook carries it' }),
    objects: SandboxTriggerObjects,
    clockAdvancedMs: Type.Integer({
      minimum: 0,
      description: 'How far the sandbox clock was moved: only an expiry needs time to pass; 0 otherwise',
    }),
  }),
  {
    event: 'OUTGOING_PAYMENT.FAILED',
    eventId: 'Webhook:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a18',
    objects: {
      customerId: 'Customer:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a13',
      internalAccountId: 'InternalAccount:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a14',
      externalAccountId: 'ExternalAccount:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a15',
      quoteId: 'Quote:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a16',
      transactionId: 'Transaction:019a0c4e-7d2b-7c4e-9a51-3f0e2b6d8a17',
    },
    clockAdvancedMs: 0,
  },
);
