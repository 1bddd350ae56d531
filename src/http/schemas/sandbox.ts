import { Type } from '@sinclair/typebox';
import { Timestamp } from './common.ts';

export const SandboxClock = Type.Object({
  now: Timestamp,
  offsetMs: Type.Integer({ minimum: 0, description: 'How far this sandbox clock runs ahead of real time' }),
});

export const SandboxClockAdvance = Type.Object({
  milliseconds: Type.Optional(Type.Integer({ minimum: 1 })),
  seconds: Type.Optional(Type.Integer({ minimum: 1 })),
});
