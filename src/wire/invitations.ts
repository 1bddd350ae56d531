import { Type } from '@sinclair/typebox';
import { CurrencyAmount, PositiveAmount, StringEnum, SupportedCurrencyCode, Timestamp } from './common.ts';
import { component } from './component.ts';
import { EXAMPLE, USD } from './examples.ts';

export const InvitationStatus = StringEnum(['PENDING', 'CLAIMED', 'EXPIRED', 'CANCELLED'] as const);

const UmaAddress = Type.String({ minLength: 3, maxLength: 255, description: '$name@domain' });

export const InvitationCreate = component(
  'InvitationCreateRequest',
  Type.Object(
    {
      inviterUma: UmaAddress,
      firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      amountToSend: Type.Optional(PositiveAmount),
      // Currency of amountToSend; without it, the platform's first supported currency.
      currency: Type.Optional(SupportedCurrencyCode),
      expiresAt: Type.Optional(Timestamp),
    },
    { additionalProperties: false },
  ),
  { inviterUma: '$user-4521@payouts.example', firstName: 'Bob', amountToSend: 2500, currency: 'USD' },
);

export const InvitationClaim = component(
  'InvitationClaimRequest',
  Type.Object({ inviteeUma: UmaAddress }, { additionalProperties: false }),
  { inviteeUma: '$bob@other.example' },
);

export const Invitation = component(
  'Invitation',
  Type.Object(
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
  ),
  {
    code: 'Q8ZK4M2P',
    createdAt: EXAMPLE.createdAt,
    url: 'https://payouts.example/invite/Q8ZK4M2P',
    inviterUma: '$user-4521@payouts.example',
    status: 'PENDING',
    expiresAt: '2025-10-20T09:30:00.000Z',
    firstName: 'Bob',
    amountToSend: { amount: 2500, currency: USD },
  },
);

export const InvitationCodeParam = Type.Object({ invitationCode: Type.String({ minLength: 1, maxLength: 64 }) });
