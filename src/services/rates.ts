import { AppError } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { currency, CURRENCY_CODES } from '../domain/currencies.ts';
import { priceSending, type Price } from '../domain/pricing.ts';
import { fileRates, noRates, sandboxRates, type RateSource } from '../domain/rate-sources.ts';
import { rateAsNumber, type Rate } from '../domain/rates.ts';
import type { FeeSchedule } from '../domain/pricing.ts';
import { defaultRail } from '../rails/funding-instructions.ts';
import type { Static } from '@sinclair/typebox';
import type { ExchangeRate as ExchangeRateSchema } from '../wire/quotes.ts';
import { type Ctx, type Scope, wallNowMs } from '../context.ts';
import { bindDeps } from './bind.ts';

export type ExchangeRate = Static<typeof ExchangeRateSchema>;

export interface RateQuery {
  sourceCurrency?: string | undefined;
  destinationCurrency?: string[] | undefined;
  sendingAmount: number;
}

export interface PricedPair {
  rate: Rate;
  fees: FeeSchedule;
  limits: { minMinor: bigint; maxMinor: bigint };
}

export interface RateService {
  /** Rate, fees and limits for one pair a quote needs. Raises QUOTE_REQUEST_FAILED naming the pair. */
  pair(scope: Scope, from: string, to: string): PricedPair;
  /**
   * Rate, fees and limits for one pair, or undefined when the environment has none: a value, since callers
   * branch on it (the rates list skips the pair, a receiver lookup shows no estimate).
   */
  findPair(scope: Scope, from: string, to: string): PricedPair | undefined;
  /** GET /exchange-rates: one entry per pair that has a rate, priced for `sendingAmount`. */
  list(scope: Scope, query: RateQuery): { data: ExchangeRate[] };
}

interface RateDeps {
  /** The operator's rates file, loaded once: production's source. */
  production: RateSource;
  /** When both tables were loaded, at start: that is when every rate was last updated. */
  loadedAt: string;
}

function sourceFor(deps: RateDeps, scope: Scope): RateSource {
  return scope.environment === 'sandbox' ? sandboxRates : deps.production;
}

function findPair(deps: RateDeps, scope: Scope, from: string, to: string): PricedPair | undefined {
  const source = sourceFor(deps, scope);
  const rate = from === to ? { from, to, numerator: 1n, denominator: 1n } : source.rate(from, to);
  const fees = source.fees(from, to);
  return rate && fees ? { rate, fees, limits: source.limits(from) } : undefined;
}

function pair(deps: RateDeps, scope: Scope, from: string, to: string): PricedPair {
  const found = findPair(deps, scope, from, to);
  if (!found) {
    throw new AppError(
      'QUOTE_REQUEST_FAILED',
      `No ${scope.environment} exchange rate or fee schedule for ${from} → ` +
        `${to}${scope.environment === 'production' ? ' (the operator supplies them in RATES_FILE)' : ''}`,
      { field: 'currency', from, to },
    );
  }
  return found;
}

function list(deps: RateDeps, scope: Scope, query: RateQuery): { data: ExchangeRate[] } {
  const sources = query.sourceCurrency ? [query.sourceCurrency] : CURRENCY_CODES;
  const destinations = query.destinationCurrency?.length ? query.destinationCurrency : CURRENCY_CODES;
  const data: ExchangeRate[] = [];
  for (const from of sources) {
    for (const to of destinations) {
      if (from === to) continue;
      const priced = findPair(deps, scope, from, to);
      const rail = defaultRail(to);
      if (!priced || !rail) continue;
      const price: Price | undefined = priceSending(BigInt(query.sendingAmount), priced.rate, priced.fees);
      data.push({
        sourceCurrency: currency(from),
        destinationCurrency: currency(to),
        destinationPaymentRail: rail,
        sendingAmount: query.sendingAmount,
        minSendingAmount: Number(priced.limits.minMinor),
        maxSendingAmount: Number(priced.limits.maxMinor),
        receivingAmount: Number(price?.totalReceivingMinor ?? 0n),
        exchangeRate: rateAsNumber(priced.rate),
        fees: { fixed: Number(priced.fees.fixedMinor) },
        updatedAt: deps.loadedAt,
      });
    }
  }
  return { data };
}

export function makeRateService(ctx: Ctx): RateService {
  const deps: RateDeps = {
    production: ctx.config.productionRates ? fileRates(ctx.config.productionRates) : noRates,
    loadedAt: iso(wallNowMs(ctx)),
  };
  return { pair: bindDeps(deps, pair), findPair: bindDeps(deps, findPair), list: bindDeps(deps, list) };
}
