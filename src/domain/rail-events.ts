// What a rail event does to a payment, decided from the payment's status alone: the one table every
// connector's events go through, polled or called back. Anything else (a duplicate, a late or out-of-order
// event) changes nothing and is recorded as such.
import type { TransactionFlow, TransactionStatus } from './transactions.ts';

export type RailEventStatus = 'PENDING' | 'COMPLETED' | 'FAILED' | 'RETURNED';

/** The lifecycle step an event asks for, or NONE. */
export type RailEffect = 'COMPLETE' | 'FAIL' | 'RETURN' | 'NONE';

export function railEffect(flow: TransactionFlow, status: TransactionStatus, event: RailEventStatus): RailEffect {
  if (status === 'PROCESSING') {
    if (event === 'COMPLETED') return 'COMPLETE';
    // Returned before we heard it completed: the money left and came back, which is a failure to us.
    if (event === 'FAILED' || event === 'RETURNED') return 'FAIL';
    return 'NONE';
  }
  // A bank may send a payment back days after it completed. A pull credited to an internal account has
  // nothing in flight to give back: an operator handles that one (it is recorded, not applied).
  if (status === 'COMPLETED' && event === 'RETURNED' && flow !== 'TRANSFER_IN') return 'RETURN';
  return 'NONE';
}
