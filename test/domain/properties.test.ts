import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CURRENCY_CODES, currency } from '../../src/domain/currencies.ts';
import { priceReceiving, priceSending, variableFee, type FeeSchedule } from '../../src/domain/pricing.ts';
import { convertMinor, rateFromTable, SANDBOX_UNITS_PER_USD, sendingForReceiving } from '../../src/domain/rates.ts';
import {
  canMove,
  INCOMING_TRANSITIONS,
  isTerminal,
  OUTGOING_TRANSITIONS,
  TERMINAL_STATUSES,
} from '../../src/domain/transactions.ts';
import { net, refund, returnSettled, settle, fundInFlight } from '../../src/ledger/flows.ts';
import { isBalanced } from '../../src/ledger/journal.ts';
import type { TransactionStatus } from '../../src/domain/transactions.ts';

const code = fc.constantFrom(...CURRENCY_CODES);
const pair = fc
  .tuple(code, code)
  .filter(([a, b]) => a !== b)
  .map(([a, b]) => rateFromTable(SANDBOX_UNITS_PER_USD, a, b)!);
const schedule: fc.Arbitrary<FeeSchedule> = fc.record({
  fixedMinor: fc.bigInt({ min: 0n, max: 50_000n }),
  variableBps: fc.bigInt({ min: 0n, max: 500n }),
});
const amount = fc.bigInt({ min: 1n, max: 100_000_000_000n });

describe('money math (properties)', () => {
  it('conversion is monotonic, never rounds up, and sendingForReceiving is its least inverse', () => {
    fc.assert(
      fc.property(pair, amount, amount, (rate, a, b) => {
        const [lo, hi] = a < b ? [a, b] : [b, a];
        assert.ok(convertMinor(lo, rate) <= convertMinor(hi, rate), 'convertMinor(lo, rate) <= convertMinor(hi, rate)');
        const target = convertMinor(hi, rate);
        if (target === 0n) return;
        const need = sendingForReceiving(target, rate);
        assert.ok(convertMinor(need, rate) >= target, 'enough');
        assert.ok(need === 0n || convertMinor(need - 1n, rate) < target, 'and no more than needed');
      }),
    );
  });

  it('a sender-locked price delivers floor((sent − fees) × rate) and fees are fixed + variable', () => {
    fc.assert(
      fc.property(pair, schedule, amount, (rate, fees, sent) => {
        const price = priceSending(sent, rate, fees);
        if (!price) {
          assert.ok(
            sent <= fees.fixedMinor + variableFee(sent, fees) ||
              convertMinor(sent - fees.fixedMinor - variableFee(sent, fees), rate) === 0n,
            'no price only when the fees eat the amount, or what is left converts to nothing',
          );
          return;
        }
        assert.equal(price.totalSendingMinor, sent);
        assert.equal(price.feesMinor, fees.fixedMinor + price.variableFeeMinor);
        assert.ok(price.feesMinor >= 0n && price.feesMinor < sent, 'price.feesMinor >= 0n && price.feesMinor < sent');
        assert.equal(price.totalReceivingMinor, convertMinor(sent - price.feesMinor, rate));
      }),
    );
  });

  it('a receiver-locked price delivers exactly the amount for the smallest total that covers it', () => {
    fc.assert(
      fc.property(pair, schedule, fc.bigInt({ min: 1n, max: 1_000_000_000n }), (rate, fees, wanted) => {
        const price = priceReceiving(wanted, rate, fees)!;
        assert.equal(price.totalReceivingMinor, wanted);
        const total = price.totalSendingMinor;
        assert.ok(
          convertMinor(total - price.feesMinor, rate) >= wanted,
          'convertMinor(total - price.feesMinor, rate) >= wanted',
        );
        const less = total - 1n;
        const lessFees = fees.fixedMinor + variableFee(less, fees);
        assert.ok(less <= lessFees || convertMinor(less - lessFees, rate) < wanted, 'one unit less would not cover it');
      }),
    );
  });

  it(
    'every posting flow balances per currency, and fund → refund or fund → settle → return nets the payer to ' + 'zero',
    () => {
      const scope = { platformId: 'Platform:p', environment: 'sandbox' as const };
      fc.assert(
        fc.property(
          code,
          code,
          fc.bigInt({ min: 2n, max: 10n ** 12n }),
          fc.bigInt({ min: 0n, max: 10n ** 6n }),
          fc.bigInt({ min: 1n, max: 10n ** 12n }),
          (from, to, sent, feesRaw, receivedRaw) => {
            const fees = feesRaw % sent;
            const received = from === to ? sent - fees : receivedRaw;
            const m = { scope, sentCurrency: from, receivedCurrency: to, sent, received, fees };
            const funded = fundInFlight(scope, 'INTERNAL', 'InternalAccount:payer', from, sent);
            for (const postings of [
              funded,
              settle(m),
              refund(m, 'INTERNAL', 'InternalAccount:payer'),
              returnSettled(m, 'INTERNAL', 'InternalAccount:payer'),
            ]) {
              assert.ok(isBalanced(postings), 'isBalanced(postings)');
            }
            const payer = (lines: ReturnType<typeof net>) =>
              lines.filter((p) => p.accountId === 'InternalAccount:payer').reduce((s, p) => s + p.amount, 0n);
            assert.equal(payer(net([...funded, ...refund(m, 'INTERNAL', 'InternalAccount:payer')])), 0n);
            assert.equal(
              payer(net([...funded, ...settle(m), ...returnSettled(m, 'INTERNAL', 'InternalAccount:payer')])),
              0n,
            );
            assert.equal(payer(net([...funded, ...settle(m)])), -sent);
          },
        ),
      );
    },
  );

  it('every supported currency has a sandbox rate against every other', () => {
    for (const a of CURRENCY_CODES)
      for (const b of CURRENCY_CODES) assert.ok(rateFromTable(SANDBOX_UNITS_PER_USD, a, b), `${a}→${b}`);
    assert.equal(currency('RWF').decimals, 0);
  });
});

describe('lifecycles (properties)', () => {
  const statuses = Object.keys(OUTGOING_TRANSITIONS) as TransactionStatus[];
  for (const [name, table, flow] of [
    ['outgoing', OUTGOING_TRANSITIONS, 'QUOTE'],
    ['incoming', INCOMING_TRANSITIONS, 'INCOMING_UMA'],
  ] as const) {
    it(`${name}: a terminal status never changes, and any walk of allowed moves ends in one within three steps`, () => {
      for (const s of TERMINAL_STATUSES) assert.deepEqual(table[s], [], `${s} is terminal`);
      fc.assert(
        fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 10 }), (choices) => {
          let status: TransactionStatus = 'PENDING';
          let steps = 0;
          for (const c of choices) {
            const next: readonly TransactionStatus[] = table[status];
            if (next.length === 0) break;
            const to: TransactionStatus = next[c % next.length]!;
            assert.ok(canMove(flow, status, to), 'canMove(flow, status, to)');
            status = to;
            steps++;
          }
          if (choices.length >= 3) assert.ok(isTerminal(status), `ended in ${status}`);
          assert.ok(steps <= 2, 'steps <= 2');
        }),
      );
      fc.assert(
        fc.property(fc.constantFrom(...statuses), fc.constantFrom(...statuses), (from, to) => {
          assert.equal(canMove(flow, from, to), table[from].includes(to));
        }),
      );
    });
  }

  it('the only way out of a terminal status is the sandbox return of a completed outgoing payment', () => {
    for (const from of TERMINAL_STATUSES) {
      for (const to of statuses) {
        assert.equal(canMove('QUOTE', from, to, true), from === 'COMPLETED' && to === 'FAILED');
        assert.equal(canMove('INCOMING_UMA', from, to, true), false);
      }
    }
  });
});
