import { Type } from '@sinclair/typebox';
import { RequestObject, Timestamp } from './common.ts';
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
