import type { TransactionStatus } from '../store/schema.ts';

/**
 * The outgoing lifecycle as the specification's table draws it. Every update names the state it leaves
 * (`UPDATE … WHERE status = from`), so a terminal state can never change by accident.
 */
export const TRANSITIONS: Readonly<Record<TransactionStatus, readonly TransactionStatus[]>> = {
  PENDING: ['PROCESSING', 'EXPIRED'],
  PROCESSING: ['COMPLETED', 'FAILED'],
  COMPLETED: [],
  FAILED: [],
  EXPIRED: [],
};

export const TERMINAL_STATUSES: readonly TransactionStatus[] = ['COMPLETED', 'FAILED', 'EXPIRED'];

/**
 * The one documented exception to "terminal never changes": in the sandbox, quote suffix 005 completes
 * and is then returned by the receiving bank (COMPLETED → FAILED, refunded).
 */
export function canMove(from: TransactionStatus, to: TransactionStatus, sandboxReturn = false): boolean {
  if (sandboxReturn) return from === 'COMPLETED' && to === 'FAILED';
  return TRANSITIONS[from].includes(to);
}

export function isTerminal(status: TransactionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
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
