// Amounts as bank files write them (a decimal in the currency's major unit: "125.50") read back into integer
// minor units. Exact: no floating point between the text and the bigint.
import { CURRENCIES } from '../../domain/currencies.ts';

/**
 * Decimal places of a currency's minor unit: ours where we know the currency, else 2, which is what ISO 4217
 * gives all but a few dozen currencies. A bank may book money in a currency we do not pay out in (a credit
 * nobody asked for): it is still read, and lands on the unmatched list.
 */
export function decimalsOf(currencyCode: string): number {
  return CURRENCIES.get(currencyCode)?.decimals ?? 2;
}

/**
 * "125.50" in EUR → 12550n. Undefined when the text is not a non-negative decimal, or has more decimal places
 * than the currency's minor unit (a bank never books a fraction of a cent; a file that does is not read).
 */
export function minorUnitsOf(text: string, currencyCode: string): bigint | undefined {
  const match = /^(\d{1,18})(?:\.(\d{1,18}))?$/.exec(text);
  if (!match) return undefined;
  const decimals = decimalsOf(currencyCode);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) return undefined;
  return BigInt(match[1] ?? '0') * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}
