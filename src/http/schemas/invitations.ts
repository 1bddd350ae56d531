import { Type } from '@sinclair/typebox';
import { CurrencyAmount, PositiveAmount, StringEnum, SupportedCurrencyCode, Timestamp } from './common.ts';

export const InvitationStatus = StringEnum(['PENDING', 'CLAIMED', 'EXPIRED', 'CANCELLED'] as const);

const UmaAddress = Type.String({ minLength: 3, maxLength: 255, description: '$name@domain' });

export const InvitationCreate = Type.Object(
  {
    inviterUma: UmaAddress,
    firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    amountToSend: Type.Optional(PositiveAmount),
    // Currency of amountToSend; without it, the platform's first supported currency.
    currency: Type.Optional(SupportedCurrencyCode),
    expiresAt: Type.Optional(Timestamp),
  },
  { additionalProperties: false },
);

export const InvitationClaim = Type.Object({ inviteeUma: UmaAddress }, { additionalProperties: false });

export const Invitation = Type.Object(
  {
    code: Type.String(),
    createdAt: Timestamp,
    url: Type.String(),
    inviterUma: Type.String(),
    status: InvitationStatus,
    claimedAt: Type.Optional(Timestamp),
    expiresAt: Type.Optional(Timestamp),
    inviteeUma: Type.Optional(Type.String()),
    firstName: Type.Optional(Type.String()),
    amountToSend: Type.Optional(CurrencyAmount),
  },
  { additionalProperties: false },
);

export const InvitationCodeParam = Type.Object({ invitationCode: Type.String({ minLength: 1, maxLength: 64 }) });
