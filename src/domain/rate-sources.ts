import { CURRENCY_CODES } from './currencies.ts';
import { decimalToScaled, rateFromTable, SANDBOX_UNITS_PER_USD, type Rate } from './rates.ts';
import type { FeeSchedule } from './pricing.ts';

/**
 * Where an environment's rates and fees come from. The sandbox has a fixed, documented table; production
 * has only what the operator supplies (RATES_FILE) — the service never invents a production rate.
 */
export interface RateSource {
  rate(from: string, to: string): Rate | undefined;
  fees(from: string, to: string): FeeSchedule | undefined;
  limits(currency: string): { minMinor: bigint; maxMinor: bigint };
}

/** Largest amount one payment may move, in the smallest unit of its currency. */
export const MAX_PAYMENT_MINOR = 100_000_000_000n;

/**
 * Sandbox fees: a fixed part worth about ten US cents in each sending currency, plus 0.3 % on
 * cross-currency payments. Same-currency payments pay the fixed part only.
 */
export const SANDBOX_FIXED_FEE_MINOR: Readonly<Record<string, number>> = {
  USD: 10,
  EUR: 10,
  GBP: 10,
  CAD: 15,
  MXN: 200,
  BRL: 50,
  INR: 800,
  NGN: 15_000,
  ZAR: 200,
  KES: 1_300,
  TZS: 26_000,
  ZMW: 300,
  RWF: 130,
  BTC: 150,
};
export const SANDBOX_VARIABLE_BPS = 30n;

export const sandboxRates: RateSource = {
  rate: (from, to) => rateFromTable(SANDBOX_UNITS_PER_USD, from, to),
  fees: (from, to) => {
    const fixed = SANDBOX_FIXED_FEE_MINOR[from];
    if (fixed === undefined) return undefined;
    return { fixedMinor: BigInt(fixed), variableBps: from === to ? 0n : SANDBOX_VARIABLE_BPS };
  },
  limits: (code) => ({ minMinor: 2n * BigInt(SANDBOX_FIXED_FEE_MINOR[code] ?? 1), maxMinor: MAX_PAYMENT_MINOR }),
};

/**
 * The operator's file: `{"unitsPerUsd": {"EUR": "0.91", …}, "fees": {"USD": {"fixedMinor": 25, "variableBps": 20},
 * …}}`.
 */
export interface RatesFile {
  unitsPerUsd: Record<string, string>;
  fees: Record<string, { fixedMinor: number; variableBps: number }>;
}

/** Checks an operator rates file; throws with the path of the first bad entry. */
export function parseRatesFile(raw: unknown): RatesFile {
  const bad = (path: string, why: string) => new Error(`rates file: ${path} ${why}`);
  if (!raw || typeof raw !== 'object') throw bad('(root)', 'must be an object');
  const { unitsPerUsd, fees } = raw as Partial<RatesFile>;
  if (!unitsPerUsd || typeof unitsPerUsd !== 'object')
    throw bad('unitsPerUsd', 'must be an object of currency → decimal string');
  if (!fees || typeof fees !== 'object') throw bad('fees', 'must be an object of currency → {fixedMinor, variableBps}');
  for (const [code, value] of Object.entries(unitsPerUsd)) {
    if (!CURRENCY_CODES.includes(code)) throw bad(`unitsPerUsd.${code}`, 'is not a supported currency');
    try {
      decimalToScaled(String(value as unknown));
    } catch {
      throw bad(`unitsPerUsd.${code}`, 'must be a positive decimal string such as "17.25"');
    }
  }
  for (const [code, fee] of Object.entries(fees)) {
    if (!CURRENCY_CODES.includes(code)) throw bad(`fees.${code}`, 'is not a supported currency');
    if (!Number.isSafeInteger(fee?.fixedMinor) || fee.fixedMinor < 0)
      throw bad(`fees.${code}.fixedMinor`, 'must be an integer ≥ 0');
    if (!Number.isSafeInteger(fee?.variableBps) || fee.variableBps < 0 || fee.variableBps >= 10_000)
      throw bad(`fees.${code}.variableBps`, 'must be an integer from 0 to 9999');
  }
  return { unitsPerUsd: unitsPerUsd, fees: fees };
}

export function fileRates(file: RatesFile): RateSource {
  return {
    rate: (from, to) => rateFromTable(file.unitsPerUsd, from, to),
    fees: (from) => {
      const fee = file.fees[from];
      return fee ? { fixedMinor: BigInt(fee.fixedMinor), variableBps: BigInt(fee.variableBps) } : undefined;
    },
    limits: (code) => ({ minMinor: 2n * BigInt(file.fees[code]?.fixedMinor ?? 0) || 1n, maxMinor: MAX_PAYMENT_MINOR }),
  };
}

/** Production without a rates file: every pair is unavailable. */
export const noRates: RateSource = {
  rate: () => undefined,
  fees: () => undefined,
  limits: () => ({ minMinor: 1n, maxMinor: MAX_PAYMENT_MINOR }),
};
