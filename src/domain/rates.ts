import { currency } from './currencies.ts';

/**
 * Exchange rates as exact fractions. A rate is "receiving major units per sending major unit" (USD→EUR
 * 0.92), as every example of the public API reads it. Amounts are converted in minor units with bigint
 * arithmetic and rounded once, down, so a receiver is never promised more than the rate gives.
 */
export interface Rate {
  from: string;
  to: string;
  /** rate = numerator / denominator, in major units. */
  numerator: bigint;
  denominator: bigint;
}

const SCALE = 10n ** 10n;

/** Parses a positive decimal string such as "17.25" or "0.0000154" into an exact fraction over 10^10. */
export function decimalToScaled(value: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,10}))?$/.exec(value);
  if (!m) throw new Error(`not a decimal: ${value}`);
  const scaled = BigInt(m[1]!) * SCALE + BigInt((m[2] ?? '').padEnd(10, '0'));
  if (scaled <= 0n) throw new Error(`rate must be positive: ${value}`);
  return scaled;
}

/**
 * The sandbox's fixed rate table: units of each currency per one US dollar. Every pair is derived from
 * it (EUR→MXN = 17.25 / 0.92), so the table covers all 14 × 13 pairs and stays consistent. Fixed on
 * purpose: the sandbox's rates are documented and never move.
 */
export const SANDBOX_UNITS_PER_USD: Readonly<Record<string, string>> = {
  USD: '1',
  EUR: '0.92',
  MXN: '17.25',
  INR: '82.5',
  BRL: '5.05',
  NGN: '1550',
  ZAR: '18.4',
  KES: '129.5',
  TZS: '2650',
  ZMW: '26.8',
  RWF: '1310',
  CAD: '1.37',
  GBP: '0.79',
  BTC: '0.0000154',
};

export function rateFromTable(
  unitsPerUsd: Readonly<Record<string, string>>,
  from: string,
  to: string,
): Rate | undefined {
  const a = unitsPerUsd[from];
  const b = unitsPerUsd[to];
  if (a === undefined || b === undefined) return undefined;
  return { from, to, numerator: decimalToScaled(b), denominator: decimalToScaled(a) };
}

/** The rate as a JSON number (what the API shows), to 10 significant digits. */
export function rateAsNumber(rate: Rate): number {
  return Number((Number(rate.numerator) / Number(rate.denominator)).toPrecision(10));
}

/** Converts a sending amount (minor units) into receiving minor units: floor(amount × rate × 10^(dTo − dFrom)). */
export function convertMinor(amountMinor: bigint, rate: Rate): bigint {
  const dFrom = BigInt(currency(rate.from).decimals);
  const dTo = BigInt(currency(rate.to).decimals);
  return (amountMinor * rate.numerator * 10n ** dTo) / (rate.denominator * 10n ** dFrom);
}

/** The smallest sending amount (minor units) whose conversion reaches `receivingMinor`: the inverse of convertMinor. */
export function sendingForReceiving(receivingMinor: bigint, rate: Rate): bigint {
  const dFrom = BigInt(currency(rate.from).decimals);
  const dTo = BigInt(currency(rate.to).decimals);
  const num = receivingMinor * rate.denominator * 10n ** dFrom;
  const den = rate.numerator * 10n ** dTo;
  return (num + den - 1n) / den;
}
