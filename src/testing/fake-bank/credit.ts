// A credit notification, as the bank sends one when money arrives on our account: a camt.054 CRDT BOOK entry
// whose remittance carries the reference the payer was given (a quote's payment instructions).
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../domain/clock.ts';
import { currency as currencyOf } from '../../domain/currencies.ts';
import { Camt054Writer } from './answers.ts';
import { publishReady } from './xml-file.ts';

/** The account credited when none is named: the example debtor account of docs/connectors.md. */
export const DEFAULT_CREDITED_IBAN = 'DE89370400440532013000';

export interface Credit {
  inbox: string;
  reference: string;
  /** Minor units of `currency`. */
  amount: bigint;
  currency: string;
  /** Our account, credited (the connector's debtor IBAN). */
  iban?: string | undefined;
  /** Who paid. */
  payerName?: string | undefined;
  payerIban?: string | undefined;
  now?: number | undefined;
}

/** The decimal text of an amount in minor units: 12345 EUR → "123.45". */
export function decimalOf(amount: bigint, code: string): string {
  const { decimals } = currencyOf(code);
  if (amount < 0n) throw new Error('an amount is not negative');
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, '0');
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** Writes the notification into the inbox (atomically); its file name. */
export async function writeCredit(credit: Credit): Promise<string> {
  const at = credit.now ?? systemClock.nowMs();
  const compact = randomUUID().replaceAll('-', '');
  const msgId = `C${compact}`;
  const name = `${new Date(at).toISOString().replace(/[-:.]/g, '')}-4-camt.054-${msgId}.xml`;
  const camt054 = await Camt054Writer.start(credit.inbox, name, { msgId, createdAt: new Date(at).toISOString() });
  await camt054.account(credit.iban ?? DEFAULT_CREDITED_IBAN);
  await camt054.entry({
    direction: 'CRDT',
    amount: decimalOf(credit.amount, credit.currency),
    currency: credit.currency,
    bookedAt: new Date(at).toISOString(),
    acctSvcrRef: `B${compact}`,
    code: 'RCDT/ESCT',
    refs: { endToEndId: 'NOTPROVIDED' },
    party: { role: 'Dbtr', name: credit.payerName ?? 'Fake Payer', account: credit.payerIban, isIban: true },
    remittance: credit.reference,
  });
  await camt054.end();
  await publishReady(credit.inbox);
  return name;
}
