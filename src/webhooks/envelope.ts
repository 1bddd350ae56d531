/**
 * The JSON a receiver gets for an event. Pure: the same event and send time always give the same body.
 *
 * CURRENT is the newer public shape, `{id, type: "OBJECT.EVENT", timestamp, data}`. LEGACY (the default)
 * is the specification's: a coarse type with the object under a named key, or a flat body for the status
 * notices. Types without a legacy form use the CURRENT shape in both, except the few LEGACY leaves out
 * altogether (see sentIn).
 */
import type { WebhookEnvelope } from '../store/schema.ts';

export interface EnvelopeEvent {
  /** `Webhook:<uuid>`: the receiver's dedupe key, the same on every retry and redelivery. */
  id: string;
  /** OBJECT.EVENT, or TEST. */
  type: string;
  /** The resource snapshot the event was recorded with. */
  data: unknown;
}

type Json = Record<string, unknown>;

function objectOf(data: unknown): Json {
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Json) : {};
}

/** Drops undefined members, so a missing field is absent rather than null. */
function defined(body: Json): Json {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

function legacyBody(event: EnvelopeEvent, data: Json): Json | undefined {
  const [object, change] = event.type.split('.', 2);
  if (event.type === 'TEST') return { test: true };
  if (object === 'OUTGOING_PAYMENT') return { type: 'OUTGOING_PAYMENT', transaction: data };
  if (object === 'INCOMING_PAYMENT') {
    // The fields a receiver is asked for sit beside the transaction, not inside it.
    const { requestedReceiverCustomerInfoFields, ...transaction } = data;
    return defined({ type: 'INCOMING_PAYMENT', transaction, requestedReceiverCustomerInfoFields });
  }
  if (event.type === 'INVITATION.CLAIMED') return { type: 'INVITATION_CLAIMED', invitation: data };
  if (object === 'CUSTOMER' && change && /^(KYC|KYB)_/.test(change)) {
    return defined({
      type: 'KYC_STATUS',
      customerId: data.id,
      kycStatus: data.kycStatus ?? data.kybStatus,
      platformCustomerId: data.platformCustomerId,
    });
  }
  if (event.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED') {
    return defined({
      type: 'ACCOUNT_STATUS',
      accountId: data.id,
      oldBalance: data.oldBalance,
      newBalance: data.newBalance ?? data.balance,
      customerId: data.customerId,
      platformCustomerId: data.platformCustomerId,
    });
  }
  return undefined;
}

/**
 * Whether an event of `eventType` is sent at all in `format`. LEGACY has one notification per status
 * change, and its body names only the coarse type: a refund event (`*.REFUND_*`, recorded beside the
 * FAILED event of the same change) would reach the receiver as a second, identical-looking FAILED
 * notification. The FAILED event's transaction already carries the `refund` object, so LEGACY leaves the
 * refund events out; CURRENT sends them under their own type.
 */
export function sentIn(eventType: string, format: WebhookEnvelope): boolean {
  return format !== 'LEGACY' || !/^[A-Z_]+\.REFUND_/.test(eventType);
}

/** The envelope of `event` sent at `timestamp` (RFC 3339, the sender's scope time). */
export function buildEnvelope(event: EnvelopeEvent, format: WebhookEnvelope, timestamp: string): Json {
  const head = { id: event.id, type: event.type, timestamp };
  if (format === 'LEGACY') {
    const legacy = legacyBody(event, objectOf(event.data));
    if (legacy) return { ...head, ...legacy };
  }
  return { ...head, data: event.type === 'TEST' ? {} : event.data };
}
