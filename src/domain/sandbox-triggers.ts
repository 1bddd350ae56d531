/**
 * The webhook events a sandbox trigger (`POST /sandbox/trigger`, `payouts trigger`) can produce: every event
 * type the service records in the sandbox, under the fine-grained name the CURRENT envelope and the
 * X-Webhook-Event-Type header use. One list for the API's schema, the service and the command line.
 *
 * Left out, because nothing in the sandbox records them: CUSTOMER.KYC_* (sandbox individuals are approved
 * when created, so their verification changes nothing; production records KYC_PENDING), the never-decided
 * VERIFICATION.IN_PROGRESS / READY_FOR_VERIFICATION, INCOMING_PAYMENT.REFUND_* (a failed incoming payment
 * took nothing) and INTERNAL_ACCOUNT.BALANCE_UPDATED (the envelope knows it; no producer records it yet).
 */
export const TRIGGER_EVENTS = [
  'OUTGOING_PAYMENT.PENDING',
  'OUTGOING_PAYMENT.PROCESSING',
  'OUTGOING_PAYMENT.COMPLETED',
  'OUTGOING_PAYMENT.FAILED',
  'OUTGOING_PAYMENT.REFUND_COMPLETED',
  'OUTGOING_PAYMENT.REFUND_FAILED',
  'OUTGOING_PAYMENT.EXPIRED',
  'INCOMING_PAYMENT.PENDING',
  'INCOMING_PAYMENT.COMPLETED',
  'INCOMING_PAYMENT.FAILED',
  'VERIFICATION.RESOLVE_ERRORS',
  'VERIFICATION.APPROVED',
  'VERIFICATION.PENDING_MANUAL_REVIEW',
  'VERIFICATION.REJECTED',
  'CUSTOMER.KYB_PENDING',
  'CUSTOMER.KYB_REJECTED',
  'CUSTOMER.KYB_APPROVED',
  'INVITATION.CLAIMED',
  'TEST',
] as const;

export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

export function isTriggerEvent(value: string): value is TriggerEvent {
  return (TRIGGER_EVENTS as readonly string[]).includes(value);
}
