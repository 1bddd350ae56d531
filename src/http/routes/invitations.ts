import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { Invitation, InvitationClaim, InvitationCodeParam, InvitationCreate } from '../../wire/invitations.ts';
import { errors } from '../../wire/common.ts';

const DOCS = {
  create: {
    summary: "Invite someone to claim a payment link from one of the platform's customers",
    description:
      'Creates an invitation with a code and a url to share; amountToSend, when given, is what the inviter ' +
      'offers to send. It expires at expiresAt. Takes Idempotency-Key.',
  },
  get: {
    summary: 'Read an invitation by its code (any platform of the same environment)',
    description: 'Codes are shared across platforms so the invitee’s platform can show and claim it.',
  },
  claim: {
    summary: 'Claim an invitation for a UMA address',
    description: 'Records inviteeUma on a PENDING invitation; it becomes CLAIMED. Claimed or expired is a 400.',
  },
  cancel: {
    summary: 'Cancel a pending invitation (creating platform only)',
    description: 'A PENDING invitation becomes CANCELLED and can no longer be claimed.',
  },
};

export function invitationRoutes(api: Http, { invitations }: Services): void {
  const tags = ['Invitations'];
  const params = InvitationCodeParam;
  // Creating and cancelling a send-by-link invitation is part of making a payment: TRANSACT, like claiming.
  api.post('/invitations', {
    config: { permission: 'TRANSACT', idempotent: true },
    schema: {
      tags,
      ...DOCS.create,
      body: InvitationCreate,
      response: { 201: Invitation, ...errors(400, 401, 403) },
    },
    handler: async (req, reply) => created(reply, await invitations.create(req.principal, req.body)),
  });
  api.get('/invitations/:invitationCode', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.get,
      params,
      response: { 200: Invitation, ...errors(401, 403, 404) },
    },
    handler: async (req) => invitations.get(req.principal, req.params.invitationCode),
  });
  api.post('/invitations/:invitationCode/claim', {
    config: { permission: 'TRANSACT' },
    schema: {
      tags,
      ...DOCS.claim,
      params,
      body: InvitationClaim,
      response: { 200: Invitation, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => invitations.claim(req.principal, req.params.invitationCode, req.body.inviteeUma),
  });
  api.post('/invitations/:invitationCode/cancel', {
    config: { permission: 'TRANSACT' },
    schema: {
      tags,
      ...DOCS.cancel,
      params,
      response: { 200: Invitation, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => invitations.cancel(req.principal, req.params.invitationCode),
  });
}
