export type TransactionType = 'OUTGOING' | 'INCOMING';
export type TransactionStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'REJECTED' | 'EXPIRED';
/** Which path a transaction takes: it decides the outcome table and the ledger postings. */
export type TransactionFlow = 'TRANSFER_OUT' | 'TRANSFER_IN' | 'QUOTE' | 'INCOMING_UMA';
/** Where the money of an outgoing transaction came from, and so where a refund returns it. */
export type Funding = 'INTERNAL' | 'EXTERNAL';

type Lifecycle = Readonly<Record<TransactionStatus, readonly TransactionStatus[]>>;

/**
 * The outgoing lifecycle as the specification's table draws it; transfers (in and out) and quotes follow
 * it. Every update names the state it leaves (`UPDATE … WHERE status = from`), so a terminal state can
 * never change by accident.
 */
export const OUTGOING_TRANSITIONS: Lifecycle = {
  PENDING: ['PROCESSING', 'EXPIRED'],
  PROCESSING: ['COMPLETED', 'FAILED'],
  COMPLETED: [],
  FAILED: [],
  REJECTED: [],
  EXPIRED: [],
};

/**
 * An incoming UMA payment: PENDING while the platform decides (approval webhook, then /approve or
 * /reject); approved → PROCESSING → COMPLETED (credited); rejected by the platform → REJECTED (the
 * reference's "receiving institution rejected" status: nothing was credited, the sender keeps the money);
 * no usable decision (timeout, webhook error, missing payee data) → FAILED with its failureReason.
 * PROCESSING → FAILED is an operator failing a deposit to an external account (the money goes back).
 */
export const INCOMING_TRANSITIONS: Lifecycle = {
  PENDING: ['PROCESSING', 'REJECTED', 'FAILED'],
  PROCESSING: ['COMPLETED', 'FAILED'],
  COMPLETED: [],
  FAILED: [],
  REJECTED: [],
  EXPIRED: [],
};

export const TERMINAL_STATUSES: readonly TransactionStatus[] = ['COMPLETED', 'FAILED', 'REJECTED', 'EXPIRED'];

export function lifecycleOf(flow: TransactionFlow): Lifecycle {
  return flow === 'INCOMING_UMA' ? INCOMING_TRANSITIONS : OUTGOING_TRANSITIONS;
}

/**
 * The one documented exception to "terminal never changes": in the sandbox, quote suffix 005 completes
 * and is then returned by the receiving bank (COMPLETED → FAILED, refunded).
 */
export function canMove(
  flow: TransactionFlow,
  from: TransactionStatus,
  to: TransactionStatus,
  sandboxReturn = false,
): boolean {
  if (sandboxReturn) return flow !== 'INCOMING_UMA' && from === 'COMPLETED' && to === 'FAILED';
  return lifecycleOf(flow)[from].includes(to);
}

export function isTerminal(status: TransactionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export interface EventSubject {
  type: TransactionType;
  flow: TransactionFlow;
}

/**
 * The webhook event a status change records, or undefined when it records none. Incoming UMA payments
 * report only what the public API's INCOMING_PAYMENT events name (PENDING, COMPLETED, FAILED): their
 * PROCESSING step is not an event (the sandbox passes through it inside the approval's own database
 * transaction), and REJECTED reports as INCOMING_PAYMENT.FAILED whose data says REJECTED. Every other
 * flow reports each status under its own name.
 */
export function eventTypeOf(subject: EventSubject, status: TransactionStatus): string | undefined {
  const prefix = subject.type === 'OUTGOING' ? 'OUTGOING_PAYMENT' : 'INCOMING_PAYMENT';
  if (subject.type === 'OUTGOING') return `${prefix}.${status}`;
  if (status === 'PROCESSING') return undefined;
  return `${prefix}.${status === 'REJECTED' && subject.flow === 'INCOMING_UMA' ? 'FAILED' : status}`;
}

/** The refund event of a failed, funded payment; incoming UMA payments have no REFUND_* events. */
export function refundEventTypeOf(subject: EventSubject, status: 'COMPLETED' | 'FAILED'): string | undefined {
  if (subject.flow === 'INCOMING_UMA') return undefined;
  return `${subject.type === 'OUTGOING' ? 'OUTGOING_PAYMENT' : 'INCOMING_PAYMENT'}.REFUND_${status}`;
}

export type RefundStatus = 'PENDING' | 'COMPLETED' | 'FAILED';
export type RefundReason = 'TRANSACTION_FAILED' | 'USER_CANCELLATION' | 'TIMEOUT';

export interface Refund {
  reference: string;
  initiatedAt: string;
  status: RefundStatus;
  settledAt?: string;
  reason: RefundReason;
}
