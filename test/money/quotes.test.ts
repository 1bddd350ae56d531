import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { jobFor, useServer, type TestPlatform } from '../helpers/harness.ts';
import {
  accountQuote,
  balance,
  eventTypes,
  externalAccount,
  fundedCustomer,
  runDueJobs,
  transferOut,
} from './fixtures.ts';

describe('quotes', () => {
  let p: TestPlatform;
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform();
  });

  async function quoteTo(tail: string, amount = 10_000, extra: Record<string, unknown> = {}) {
    const payer = await fundedCustomer(p, 'USD', 100_000);
    const destination = await externalAccount(p, payer.customerId, 'EUR_ACCOUNT', tail);
    const quote = await p.api.post('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: destination, paymentRail: 'SEPA_INSTANT' },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: amount,
      ...extra,
    });
    assert.equal(quote.status, 201, JSON.stringify(quote.body));
    return { ...payer, destination, quote: quote.body };
  }

  it('locks the rate and fees on the sending side, with its PENDING transaction', async () => {
    const { quote, customerId } = await quoteTo('000', 10_000, {
      description: 'invoice 7',
      purposeOfPayment: 'GOODS_OR_SERVICES',
    });
    assert.match(quote.id, /^Quote:/);
    assert.equal(quote.status, 'PENDING');
    assert.equal(quote.exchangeRate, 0.92);
    // 10 000 cents, fees 10 fixed + 0.3 % (30) = 40, converted: 9 960 × 0.92 = 9 163.2 → 9 163.
    assert.equal(quote.totalSendingAmount, 10_000);
    assert.equal(quote.feesIncluded, 40);
    assert.equal(quote.totalReceivingAmount, 9_163);
    assert.deepEqual(quote.rateDetails, {
      counterpartyMultiplier: 1,
      counterpartyFixedFee: 0,
      gridApiMultiplier: 0.92,
      gridApiFixedFee: 10,
      gridApiVariableFeeRate: 0.003,
      gridApiVariableFeeAmount: 30,
    });
    assert.equal(Date.parse(quote.expiresAt) - Date.parse(quote.createdAt), 5 * 60_000);
    assert.equal(quote.counterpartyInformation.PURPOSE_OF_PAYMENT, 'GOODS_OR_SERVICES');
    const tx = (await p.api.get(`/transactions/${quote.transactionId}`)).body;
    assert.equal(tx.status, 'PENDING');
    assert.equal(tx.quoteId, quote.id);
    assert.equal(tx.description, 'invoice 7');
    assert.equal(await balance(p, customerId), 100_000, 'a quote alone moves no money');
  });

  it('locks the receiving side: the receiver gets exactly the amount', async () => {
    const payer = await fundedCustomer(p, 'USD', 100_000);
    const destination = await externalAccount(p, payer.customerId, 'CLABE', '000');
    const res = await p.api.post('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: destination },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 172_500,
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.totalReceivingAmount, 172_500);
    // net 10 000 cents at 17.25 gives 172 500 centavos; total covers 10 fixed and 0.3 % of itself.
    const total = res.body.totalSendingAmount;
    assert.equal(res.body.feesIncluded, 10 + Math.round((total * 30) / 10_000));
    assert.ok(
      Math.floor(((total - res.body.feesIncluded) * 1725) / 100) >= 172_500,
      'Math.floor(((total - res.body.feesIncluded) * 1725) / 100) >= 172_500',
    );
    assert.ok(
      Math.floor(((total - 1 - (10 + Math.round(((total - 1) * 30) / 10_000))) * 1725) / 100) < 172_500,
      'the smallest total that covers it',
    );
  });

  it('executes: debits at once and completes, with every event and ledger leg', async () => {
    const { quote, customerId } = await quoteTo('000');
    const res = await p.api.post(`/quotes/${quote.id}/execute`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'COMPLETED');
    assert.equal(await balance(p, customerId), 90_000);
    const tx = (await p.api.get(`/transactions/${quote.transactionId}`)).body;
    assert.equal(tx.status, 'COMPLETED');
    assert.ok(tx.settledAt, 'tx.settledAt');
    assert.deepEqual(await eventTypes(server, tx.id), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED',
    ]);
    const entries = await server.app.store.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('reference', '=', tx.id)
      .orderBy('created_at')
      .execute();
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['FUND', 'SETTLE'],
    );
  });

  it('executes at most once: twice → 409, and 50 at the same time → exactly one', async () => {
    const first = await quoteTo('000');
    assert.equal((await p.api.post(`/quotes/${first.quote.id}/execute`)).status, 200);
    const again = await p.api.post(`/quotes/${first.quote.id}/execute`);
    assert.equal(again.status, 409);
    assert.deepEqual([again.body.code, again.body.details.reason], ['CONFLICT', 'QUOTE_NOT_PENDING']);

    const { quote, customerId } = await quoteTo('000');
    const results = await Promise.all(Array.from({ length: 50 }, () => p.api.post(`/quotes/${quote.id}/execute`)));
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    assert.equal(results.filter((r) => r.status === 409).length, 49);
    assert.equal(await balance(p, customerId), 90_000, 'debited once');
  });

  /** The state of the expiry job queued for `quoteId` (undefined when there is none). */
  const expiryJobOf = async (quoteId: string) => (await jobFor(server, 'quote.expire', quoteId))?.status;

  it('an executed quote calls off its expiry job, so nothing runs for it when its lifetime ends', async () => {
    // Under a steady load every quote's job used to fall due five minutes later and find nothing to do: as
    // many dead jobs a second as quotes, from the sixth minute on, taking the pool from the requests.
    const executed = await quoteTo('000');
    assert.equal(await expiryJobOf(executed.quote.id), 'pending', 'a new quote waits for its expiry');
    assert.equal((await p.api.post(`/quotes/${executed.quote.id}/execute`)).status, 200);
    assert.equal(await expiryJobOf(executed.quote.id), 'done', 'called off in the execution itself');

    const payer = await fundedCustomer(p, 'USD', 0);
    const destination = await externalAccount(p, payer.customerId, 'EUR_ACCOUNT', '000');
    const realtime = await p.api.post('/quotes', {
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: payer.customerId },
      destination: { destinationType: 'ACCOUNT', accountId: destination },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 2_000,
    });
    assert.equal((await p.api.post('/sandbox/send', { quoteId: realtime.body.id, currencyCode: 'USD' })).status, 200);
    assert.equal(await expiryJobOf(realtime.body.id), 'done', 'and so does a quote its funds ran');

    const left = await quoteTo('000');
    await p.api.post('/sandbox/clock/advance', { seconds: 301 });
    assert.equal(await expiryJobOf(left.quote.id), 'done', 'the one left alone expired by its job');
    assert.equal((await p.api.get(`/quotes/${left.quote.id}`)).body.status, 'EXPIRED');
    assert.equal((await p.api.get(`/quotes/${executed.quote.id}`)).body.status, 'COMPLETED', 'the executed one stays');
  });

  it('refuses to execute without the money, and the quote stays executable', async () => {
    const payer = await fundedCustomer(p, 'USD', 5_000);
    const destination = await externalAccount(p, payer.customerId, 'EUR_ACCOUNT', '000');
    const quote = (
      await p.api.post('/quotes', {
        source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
        destination: { destinationType: 'ACCOUNT', accountId: destination },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 6_000,
      })
    ).body;
    const res = await p.api.post(`/quotes/${quote.id}/execute`);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'INSUFFICIENT_BALANCE');
    assert.equal((await p.api.get(`/quotes/${quote.id}`)).body.status, 'PENDING');
    await p.api.post(`/sandbox/internal-accounts/${payer.accountId}/fund`, { amount: 1_000 });
    assert.equal((await p.api.post(`/quotes/${quote.id}/execute`)).body.status, 'COMPLETED');
  });

  it('expires after its lifetime on the sandbox clock: EXPIRED, and execute → 409', async () => {
    const { quote, customerId } = await quoteTo('000');
    await p.api.post('/sandbox/clock/advance', { seconds: 290 });
    assert.equal((await p.api.get(`/quotes/${quote.id}`)).body.status, 'PENDING');
    await p.api.post('/sandbox/clock/advance', { seconds: 11 });
    assert.equal((await p.api.get(`/quotes/${quote.id}`)).body.status, 'EXPIRED');
    assert.equal((await p.api.get(`/transactions/${quote.transactionId}`)).body.status, 'EXPIRED');
    const res = await p.api.post(`/quotes/${quote.id}/execute`);
    assert.equal(res.status, 409);
    assert.equal(await balance(p, customerId), 100_000);
    assert.deepEqual(await eventTypes(server, quote.transactionId), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.EXPIRED',
    ]);
  });

  it('refuses an expired quote even before the expiry job has run', async () => {
    const { quote } = await quoteTo('000');
    // Move the clock without running jobs: the quote is past expiresAt but still marked PENDING.
    await server.app.store.db
      .updateTable('platform_configs')
      .set((eb) => ({ clock_offset_ms: eb('clock_offset_ms', '+', 301_000n) }))
      .where('platform_id', '=', p.platformId)
      .where('environment', '=', 'sandbox')
      .execute();
    const res = await p.api.post(`/quotes/${quote.id}/execute`);
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'QUOTE_EXPIRED');
    await p.api.post('/sandbox/clock/advance', { seconds: 1 });
  });

  const failures = [
    ['002', 'QUOTE_EXECUTION_FAILED', 'TRANSACTION_FAILED'],
    ['004', 'COUNTERPARTY_POST_TX_FAILED', 'TRANSACTION_FAILED'],
    ['006', 'COUNTERPARTY_POST_TX_FAILED', 'USER_CANCELLATION'],
  ] as const;
  for (const [tail, reason, refundReason] of failures) {
    it(`a quote to …${tail} fails with ${reason} and refunds the payer`, async () => {
      const { quote, customerId } = await quoteTo(tail);
      const res = await p.api.post(`/quotes/${quote.id}/execute`);
      assert.equal(res.body.status, 'FAILED');
      const tx = (await p.api.get(`/transactions/${quote.transactionId}`)).body;
      assert.equal(tx.failureReason, reason);
      assert.deepEqual([tx.refund.status, tx.refund.reason], ['COMPLETED', refundReason]);
      assert.equal(await balance(p, customerId), 100_000);
      assert.deepEqual(await eventTypes(server, tx.id), [
        'OUTGOING_PAYMENT.PENDING',
        'OUTGOING_PAYMENT.PROCESSING',
        'OUTGOING_PAYMENT.FAILED',
        'OUTGOING_PAYMENT.REFUND_COMPLETED',
      ]);
    });
  }

  it('a quote to …003 completes after about six minutes', async () => {
    const { quote } = await quoteTo('003');
    assert.equal((await p.api.post(`/quotes/${quote.id}/execute`)).body.status, 'PROCESSING');
    await p.api.post('/sandbox/clock/advance', { seconds: 350 });
    assert.equal((await p.api.get(`/transactions/${quote.transactionId}`)).body.status, 'PROCESSING');
    await p.api.post('/sandbox/clock/advance', { seconds: 10 });
    assert.equal((await p.api.get(`/transactions/${quote.transactionId}`)).body.status, 'COMPLETED');
    assert.equal((await p.api.get(`/quotes/${quote.id}`)).body.status, 'COMPLETED');
  });

  it('a quote to …005 completes, then the bank returns it: FAILED and refunded', async () => {
    const { quote, customerId } = await quoteTo('005');
    assert.equal((await p.api.post(`/quotes/${quote.id}/execute`)).body.status, 'COMPLETED');
    assert.equal(await balance(p, customerId), 90_000);
    await p.api.post('/sandbox/clock/advance', { seconds: 30 });
    const tx = (await p.api.get(`/transactions/${quote.transactionId}`)).body;
    assert.equal(tx.status, 'FAILED');
    assert.equal(tx.failureReason, 'PAYOUT_RETURNED');
    assert.equal(tx.refund.status, 'COMPLETED');
    assert.equal(await balance(p, customerId), 100_000);
    assert.deepEqual(await eventTypes(server, tx.id), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED',
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
    ]);
    const kinds = await server.app.store.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('reference', '=', tx.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      kinds.map((k) => k.kind),
      ['FUND', 'SETTLE', 'RETURN'],
    );
  });

  it('a quote to …007 fails and so does its refund: the money waits in flight for an operator', async () => {
    const { quote, customerId } = await quoteTo('007');
    assert.equal((await p.api.post(`/quotes/${quote.id}/execute`)).body.status, 'FAILED');
    const tx = (await p.api.get(`/transactions/${quote.transactionId}`)).body;
    assert.equal(tx.refund.status, 'FAILED');
    assert.equal(await balance(p, customerId), 90_000, 'not refunded');
    assert.deepEqual((await eventTypes(server, tx.id)).slice(-2), [
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_FAILED',
    ]);
  });

  it('creates the destination inline and names nested fields in errors', async () => {
    const payer = await fundedCustomer(p, 'USD', 100_000);
    const details = {
      customerId: payer.customerId,
      currency: 'INR',
      accountInfo: {
        accountType: 'UPI',
        vpa: 'asha.000@okaxis',
        beneficiary: {
          beneficiaryType: 'INDIVIDUAL',
          fullName: 'Asha Rao',
          birthDate: '1991-04-01',
          nationality: 'IN',
        },
      },
    };
    const body = (d: unknown) => ({
      source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
      destination: { destinationType: 'EXTERNAL_ACCOUNT_DETAILS', externalAccountDetails: d },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
      immediatelyExecute: true,
    });
    // A funding-instructions source cannot run at once: refused before anything is resolved or written,
    // so the inline account is not created either.
    const accountsBefore = (await p.api.get('/customers/external-accounts?limit=100')).body.data.length;
    const realtime = await p.api.post('/quotes', {
      ...body(details),
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: payer.customerId },
    });
    assert.deepEqual([realtime.status, realtime.body.details?.field], [400, 'immediatelyExecute']);
    assert.equal((await p.api.get('/customers/external-accounts?limit=100')).body.data.length, accountsBefore);
    const res = await p.api.post('/quotes', body(details));
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'COMPLETED', 'immediatelyExecute returns the executed quote');
    assert.equal(res.body.destination.destinationType, 'EXTERNAL_ACCOUNT_DETAILS');
    assert.match(res.body.destination.accountId, /^ExternalAccount:/);
    assert.equal(res.body.counterpartyInformation.FULL_NAME, 'Asha Rao');
    const bad = await p.api.post(
      '/quotes',
      body({ ...details, accountInfo: { ...details.accountInfo, vpa: 'no-at-sign' } }),
    );
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details.field, 'destination.externalAccountDetails.accountInfo.vpa');
    const previous = (
      await p.api.get(`/customers/external-accounts?customerId=${encodeURIComponent(payer.customerId)}`)
    ).body.totalCount;
    const failingQuote = await p.api.post('/quotes', {
      ...body({ ...details, accountInfo: { ...details.accountInfo, vpa: 'asha.001@okaxis' } }),
      lockedCurrencyAmount: 1,
    });
    assert.equal(failingQuote.status, 400);
    assert.equal(failingQuote.body.code, 'AMOUNT_OUT_OF_RANGE');
    assert.equal(
      (await p.api.get(`/customers/external-accounts?customerId=${encodeURIComponent(payer.customerId)}`)).body
        .totalCount,
      previous,
      'a refused quote leaves no account behind',
    );
  });

  it('pays sandbox UMA test addresses', async () => {
    const payer = await fundedCustomer(p, 'USD', 100_000);
    const pay = (umaAddress: string) =>
      p.api.post('/quotes', {
        source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
        destination: { destinationType: 'UMA_ADDRESS', umaAddress },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
        immediatelyExecute: true,
      });
    const ok = await pay('$success.mxn@sandbox.uma.money');
    assert.equal(ok.body.status, 'COMPLETED');
    assert.equal(ok.body.receivingCurrency.code, 'MXN');
    const tx = (await p.api.get(`/transactions/${ok.body.transactionId}`)).body;
    assert.deepEqual(tx.destination, {
      destinationType: 'UMA_ADDRESS',
      umaAddress: '$success.mxn@sandbox.uma.money',
      currency: 'MXN',
    });
    assert.equal(tx.receiverUmaAddress, '$success.mxn@sandbox.uma.money');
    const blocked = (await pay('$fail.compliance.usd@sandbox.grid.uma.money')).body;
    assert.equal(blocked.status, 'FAILED');
    assert.equal((await p.api.get(`/transactions/${blocked.transactionId}`)).body.failureReason, 'COMPLIANCE_REJECTED');
    assert.equal((await pay('$pending.long.usd@sandbox.uma.money')).body.status, 'PROCESSING');
    assert.equal((await pay('$nobody.usd@sandbox.uma.money')).status, 404);
    const listed = await p.api.get(
      `/quotes?receivingUmaAddress=${encodeURIComponent('$success.mxn@sandbox.uma.money')}`,
    );
    assert.equal(listed.body.totalCount, 1);

    // A lookup, when given, must be this platform's and name the receiver being paid.
    const lookup = await p.api.get(
      `/receiver/uma/$success.eur@sandbox.uma.money?customerId=${encodeURIComponent(payer.customerId)}`,
    );
    assert.equal(lookup.status, 200);
    const withLookup = (umaAddress: string, lookupId: string) =>
      p.api.post('/quotes', {
        source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
        destination: { destinationType: 'UMA_ADDRESS', umaAddress },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
        lookupId,
      });
    assert.equal((await withLookup('$success.eur@sandbox.uma.money', lookup.body.lookupId)).status, 201);
    const other = await withLookup('$success.usd@sandbox.uma.money', lookup.body.lookupId);
    assert.equal(other.status, 400);
    assert.equal(other.body.details.field, 'lookupId');
    assert.equal(
      (await withLookup('$success.eur@sandbox.uma.money', 'Lookup:00000000-0000-7000-8000-000000000000')).status,
      404,
    );
  });

  it('refuses bad quote requests with the field at fault', async () => {
    const payer = await fundedCustomer(p, 'USD', 1_000);
    const destination = await externalAccount(p, payer.customerId, 'EUR_ACCOUNT', '000');
    const base = {
      source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: destination },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1_000,
    };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, source: { sourceType: 'ACCOUNT' } }, 'source.accountId'],
      [{ ...base, destination: { destinationType: 'ACCOUNT' } }, 'destination.accountId'],
      [
        { ...base, destination: { destinationType: 'ACCOUNT', accountId: destination, paymentRail: 'ACH' } },
        'destination.paymentRail',
      ],
      [{ ...base, lockedCurrencySide: 'BOTH' }, 'lockedCurrencySide'],
      [{ ...base, lockedCurrencyAmount: 10 }, 'lockedCurrencyAmount'],
      [{ ...base, lockedCurrencyAmount: -5 }, 'lockedCurrencyAmount'],
      [{ ...base, source: { sourceType: 'REALTIME_FUNDING' } }, 'source.currency'],
      [{ ...base, purposeOfPayment: 'BRIBE' }, 'purposeOfPayment'],
    ];
    for (const [body, field] of cases) {
      const res = await p.api.post('/quotes', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.details.field, field, JSON.stringify(res.body));
    }
    const prod = await p.prod.post('/quotes', base);
    assert.equal(prod.status, 404, 'sandbox accounts do not exist in production');
    // Either account missing: the 404 names the one that is, the source first when both are.
    const noInternal = 'InternalAccount:00000000-0000-7000-8000-000000000000';
    const noExternal = 'ExternalAccount:00000000-0000-7000-8000-000000000000';
    const missing: Array<[string, string, string, string]> = [
      [noInternal, destination, 'Internal', noInternal],
      [payer.accountId, noExternal, 'External', noExternal],
      [noInternal, noExternal, 'Internal', noInternal],
    ];
    for (const [from, to, side, id] of missing) {
      const res = await p.api.post('/quotes', {
        ...base,
        source: { sourceType: 'ACCOUNT', accountId: from },
        destination: { destinationType: 'ACCOUNT', accountId: to },
      });
      assert.equal(res.status, 404, `${from} → ${to}`);
      assert.deepEqual(res.body.details, { id, resource: `${side} account` }, JSON.stringify(res.body));
    }
    assert.equal((await p.api.get('/quotes/Quote:00000000-0000-7000-8000-000000000000')).body.code, 'QUOTE_NOT_FOUND');
  });

  it('funds a REALTIME_FUNDING quote through sandbox send, by id or by reference', async () => {
    const payer = await fundedCustomer(p, 'USD', 0);
    const destination = await externalAccount(p, payer.customerId, 'EUR_ACCOUNT', '000');
    const create = () =>
      p.api.post('/quotes', {
        source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: payer.customerId },
        destination: { destinationType: 'ACCOUNT', accountId: destination },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 2_000,
      });
    const quote = (await create()).body;
    const instruction = quote.paymentInstructions[0].accountOrWalletInfo;
    assert.equal(instruction.accountType, 'USD_ACCOUNT');
    assert.match(instruction.reference, /^PAY-/);
    assert.equal(
      (await p.api.post(`/quotes/${quote.id}/execute`)).status,
      400,
      'realtime quotes are funded, not executed',
    );
    const sent = await p.api.post('/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' });
    assert.equal(sent.status, 200);
    assert.equal(sent.body.id, quote.transactionId);
    assert.equal(sent.body.status, 'COMPLETED');
    assert.equal(
      (await p.api.post('/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' })).status,
      409,
      'funded once',
    );

    const byReference = (await create()).body;
    const ref = byReference.paymentInstructions[0].accountOrWalletInfo.reference;
    const wrong = await p.api.post('/sandbox/send', { reference: ref, currencyCode: 'USD', currencyAmount: 1_999 });
    assert.equal(wrong.status, 200);
    assert.equal(wrong.body.status, 'FAILED');
    assert.equal(wrong.body.failureReason, 'FUNDING_AMOUNT_MISMATCH');
    assert.equal((await p.api.post('/sandbox/send', { reference: 'PAY-NOPE', currencyCode: 'USD' })).status, 404);
    assert.equal((await p.prod.post('/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' })).status, 403);
  });

  it('lists quotes with filters and inclusive dates', async () => {
    const { quote, customerId, accountId, destination } = await quoteTo('000');
    await quoteTo('000');
    const one = await p.api.get(`/quotes?customerId=${encodeURIComponent(customerId)}`);
    assert.deepEqual(
      one.body.data.map((q: any) => q.id),
      [quote.id],
    );
    assert.equal((await p.api.get(`/quotes?sendingAccountId=${encodeURIComponent(accountId)}`)).body.totalCount, 1);
    assert.equal((await p.api.get(`/quotes?receivingAccountId=${encodeURIComponent(destination)}`)).body.totalCount, 1);
    assert.equal(
      (
        await p.api.get(
          `/quotes?customerId=${encodeURIComponent(customerId)}` +
            `&createdAfter=${quote.createdAt}&createdBefore=${quote.createdAt}`,
        )
      ).body.totalCount,
      1,
    );
    assert.equal(
      (await p.api.get(`/quotes?customerId=${encodeURIComponent(customerId)}&status=COMPLETED`)).body.totalCount,
      0,
    );
    const page = await p.api.get('/quotes?limit=1');
    assert.equal(page.body.data.length, 1);
    assert.equal(page.body.hasMore, true);
  });

  it('lists quotes by the status their payment is in, page after page', async () => {
    const executed = await quoteTo('000');
    const { quote: first, accountId, destination, customerId } = await quoteTo('000');
    const second = await accountQuote(p, accountId, destination, 5_000);
    assert.equal((await p.api.post(`/quotes/${executed.quote.id}/execute`)).status, 200);
    const ids = async (query: string) => {
      const found: string[] = [];
      let cursor = '';
      for (;;) {
        const res = await p.api.get(`/quotes?limit=1&${query}${cursor && `&cursor=${encodeURIComponent(cursor)}`}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        found.push(...res.body.data.map((q: { id: string; status: string }) => `${q.id} ${q.status}`));
        if (!res.body.hasMore) return found;
        cursor = res.body.nextCursor;
      }
    };
    const mine = `customerId=${encodeURIComponent(customerId)}`;
    assert.deepEqual(await ids(`${mine}&status=PENDING`), [`${second.id} PENDING`, `${first.id} PENDING`]);
    assert.deepEqual(await ids(`${mine}&status=COMPLETED`), []);
    const theirs = `customerId=${encodeURIComponent(executed.customerId)}`;
    assert.deepEqual(await ids(`${theirs}&status=COMPLETED`), [`${executed.quote.id} COMPLETED`]);
    assert.deepEqual(await ids(`${theirs}&status=PENDING`), []);
    // A payment of no quote in the same status: counted by neither the pages nor their totalCount.
    const payout = await transferOut(p, 1_000);
    await runDueJobs(server);
    assert.equal((await p.api.get(`/transactions/${payout.id}`)).body.status, 'COMPLETED');
    const completed = await p.api.get('/quotes?status=COMPLETED&limit=100');
    assert.ok(
      completed.body.data.some((q: { id: string }) => q.id === executed.quote.id),
      'the executed quote is among the COMPLETED',
    );
    assert.ok(
      completed.body.data.every((q: { status: string }) => q.status === 'COMPLETED'),
      'every quote listed is COMPLETED',
    );
    assert.equal(completed.body.hasMore, false, 'one page holds them all');
    assert.equal(completed.body.totalCount, completed.body.data.length, 'the count is of the quotes listed');
    const pending = await p.api.get('/quotes?status=PENDING&limit=1');
    assert.ok(pending.body.totalCount >= 2, `both PENDING quotes are counted: ${pending.body.totalCount}`);
    assert.equal(pending.body.data.length, 1);
  });

  it('shows exchange rates for every pair, comma-joined or repeated', async () => {
    const joined = await p.api.get('/exchange-rates?sourceCurrency=USD&destinationCurrency=INR,GBP');
    const repeated = await p.api.get(
      '/exchange-rates?sourceCurrency=USD&destinationCurrency=INR&destinationCurrency=GBP',
    );
    assert.equal(joined.status, 200);
    assert.deepEqual(joined.body, repeated.body);
    assert.deepEqual(
      joined.body.data.map((r: any) => [r.destinationCurrency.code, r.exchangeRate, r.destinationPaymentRail]),
      [
        ['INR', 82.5, 'UPI'],
        ['GBP', 0.79, 'FASTER_PAYMENTS'],
      ],
    );
    assert.equal(joined.body.data[0].sendingAmount, 10_000);
    const all = await p.api.get('/exchange-rates');
    // Every pair but those into BTC: Lightning is no rail the contract's destinationPaymentRail can name.
    assert.equal(all.body.data.length, 14 * 13 - 13);
    assert.ok(
      all.body.data.every((r: any) => r.destinationCurrency.code !== 'BTC' && r.destinationPaymentRail !== 'LIGHTNING'),
      'no corridor names a rail outside the contract',
    );
    const none = await p.prod.get('/exchange-rates');
    assert.deepEqual(none.body.data, [], 'production has no rates until the operator supplies them');
  });
});
