import type { Scope } from '../context.ts';
import type { Funding } from '../domain/transactions.ts';
import { systemAccountId } from './accounts.ts';
import type { Posting } from './journal.ts';

/**
 * The postings of every money movement, as pure functions. Conventions: positive credits an account,
 * negative debits it. System accounts per currency: SETTLEMENT (money that left for or came from a rail),
 * IN_FLIGHT (taken from the payer, not yet settled), FX_LIQUIDITY (the two legs of a conversion),
 * FEE_REVENUE (fees earned).
 */
export interface Movement {
  scope: Scope;
  sentCurrency: string;
  receivedCurrency: string;
  sent: bigint;
  received: bigint;
  fees: bigint;
}

const sys = (
  scope: Scope,
  kind: 'SETTLEMENT' | 'IN_FLIGHT' | 'FX_LIQUIDITY' | 'FEE_REVENUE',
  currency: string,
  amount: bigint,
): Posting => ({
  accountId: systemAccountId(scope, kind, currency),
  currency,
  amount,
});

/** Merges lines on the same account and drops zeros, so every entry lists each account once. */
export function net(postings: readonly Posting[]): Posting[] {
  const byAccount = new Map<string, Posting>();
  for (const p of postings) {
    const key = `${p.accountId}/${p.currency}`;
    const prev = byAccount.get(key);
    byAccount.set(key, prev ? { ...prev, amount: prev.amount + p.amount } : { ...p });
  }
  return [...byAccount.values()].filter((p) => p.amount !== 0n);
}

/** The payer's money goes in flight: debited from an internal account, or received from outside. */
export function fundInFlight(
  scope: Scope,
  funding: Funding,
  internalAccountId: string | null,
  currency: string,
  amount: bigint,
): Posting[] {
  const from =
    funding === 'INTERNAL'
      ? { accountId: internalAccountId!, currency, amount: -amount }
      : sys(scope, 'SETTLEMENT', currency, -amount);
  return [from, sys(scope, 'IN_FLIGHT', currency, amount)];
}

/**
 * The payout reaches its destination. The fee is its own posting; a conversion is two linked movements
 * through the FX liquidity accounts of both currencies; the received amount leaves through settlement.
 */
export function settle(m: Movement): Posting[] {
  const sentLessFees = m.sent - m.fees;
  if (sentLessFees <= 0n) throw new Error('settle: fees exceed the amount sent');
  const lines: Posting[] = [
    sys(m.scope, 'IN_FLIGHT', m.sentCurrency, -m.sent),
    sys(m.scope, 'FEE_REVENUE', m.sentCurrency, m.fees),
  ];
  if (m.sentCurrency === m.receivedCurrency) {
    if (m.received !== sentLessFees)
      throw new Error('settle: a same-currency payment must deliver what is sent less fees');
    lines.push(sys(m.scope, 'SETTLEMENT', m.sentCurrency, sentLessFees));
  } else {
    lines.push(
      sys(m.scope, 'FX_LIQUIDITY', m.sentCurrency, sentLessFees),
      sys(m.scope, 'FX_LIQUIDITY', m.receivedCurrency, -m.received),
      sys(m.scope, 'SETTLEMENT', m.receivedCurrency, m.received),
    );
  }
  return lines.filter((p) => p.amount !== 0n);
}

/** The whole amount sent goes back where it came from. */
export function refund(m: Movement, funding: Funding, internalAccountId: string | null): Posting[] {
  const to =
    funding === 'INTERNAL'
      ? { accountId: internalAccountId!, currency: m.sentCurrency, amount: m.sent }
      : sys(m.scope, 'SETTLEMENT', m.sentCurrency, m.sent);
  return [sys(m.scope, 'IN_FLIGHT', m.sentCurrency, -m.sent), to];
}

/** A settled payment returned by the receiving bank: the settlement is undone and the payer refunded in full. */
export function returnSettled(m: Movement, funding: Funding, internalAccountId: string | null): Posting[] {
  const undo = settle(m).map((p) => ({ ...p, amount: -p.amount }));
  return net([...undo, ...refund(m, funding, internalAccountId)]);
}

/** A pull from an external account credits an internal account once the rail settles it. */
export function pullIn(scope: Scope, internalAccountId: string, currency: string, amount: bigint): Posting[] {
  return [sys(scope, 'SETTLEMENT', currency, -amount), { accountId: internalAccountId, currency, amount }];
}
