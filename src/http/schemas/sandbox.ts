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
