import { after, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import {
  client,
  createTestDatabase,
  startServer,
  type TestDatabase,
  type TestPlatform,
  type TestServer,
} from '../helpers/harness.ts';
import { eventTypes, externalAccount, fundedCustomer, runDueJobs } from './fixtures.ts';
import { runCli, runCliOk } from '../helpers/processes.ts';

describe('durability and the production connector', () => {
  let database: TestDatabase;
  after(() => database?.drop());

  it('a restart with delayed outcomes pending loses nothing and finishes each exactly once', async () => {
    database = await createTestDatabase();
    const first = await startServer({ RUN_WORKERS: 'false' }, { database });
    const p = await first.platform();
    const payer = await fundedCustomer(p, 'USD', 100_000);
    const slow = await externalAccount(p, payer.customerId, 'EUR_ACCOUNT', '003');
    const returned = await externalAccount(p, payer.customerId, 'EUR_ACCOUNT', '005');
    const pending = await externalAccount(p, payer.customerId, 'USD_ACCOUNT', '005');
    const quote = async (accountId: string) =>
      (
        await p.api.post('/quotes', {
          source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
          destination: { destinationType: 'ACCOUNT', accountId },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 10_000,
        })
      ).body;
    const sixMinutes = await quote(slow);
    const returnedLater = await quote(returned);
    const neverExecuted = await quote(slow);
    assert.equal((await p.api.post(`/quotes/${sixMinutes.id}/execute`)).body.status, 'PROCESSING');
    assert.equal((await p.api.post(`/quotes/${returnedLater.id}/execute`)).body.status, 'COMPLETED');
    const transfer = (
      await p.api.post('/transfer-out', {
        source: { accountId: payer.accountId },
        destination: { accountId: pending },
        amount: 1_000,
      })
    ).body;
    await runDueJobs(first);
    assert.equal((await p.api.get(`/transactions/${transfer.id}`)).body.status, 'PROCESSING');
    await first.close();

    const second = await startServer({ RUN_WORKERS: 'false' }, { database });
    const api = client(second.baseUrl, p.sandbox);
    await api.post('/sandbox/clock/advance', { seconds: 7 * 60 });
    const status = async (id: string) => (await api.get(`/transactions/${id}`)).body.status;
    assert.equal(await status(sixMinutes.transactionId), 'COMPLETED');
    assert.equal(await status(returnedLater.transactionId), 'FAILED');
    assert.equal(await status(neverExecuted.transactionId), 'EXPIRED');
    assert.equal(await status(transfer.id), 'FAILED');
    assert.deepEqual(await eventTypes(second, sixMinutes.transactionId), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED',
    ]);
    assert.deepEqual(await eventTypes(second, transfer.id), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
    ]);
    // Advancing again finds nothing left to do: every step ran once.
    await api.post('/sandbox/clock/advance', { seconds: 3600 });
    assert.deepEqual(await eventTypes(second, sixMinutes.transactionId), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED',
    ]);
    assert.equal(
      (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(payer.customerId)}&currency=USD`))
        .body.data[0].balance.amount,
      100_000 - 10_000,
    );
    await second.close();
  });

  it('production: transactions wait in PROCESSING until an operator settles or fails them', async () => {
    const server = await startServer({ RUN_WORKERS: 'false' });
    try {
      const p = await server.platform();
      const env = {
        ...process.env,
        DATA_DIR: server.config.dataDir,
        DATABASE_URL: server.config.databaseUrl ?? '',
        SECRET_KEY: server.config.secretKey.toString('hex'),
      };
      const payouts = (...args: string[]) => runCliOk(args, env);
      const customer = (await p.prod.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'prod-1' }))
        .body;
      const usd = (
        await p.prod.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&currency=USD`)
      ).body.data[0];
      const bank = await p.prod.post('/customers/external-accounts', {
        customerId: customer.id,
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: '000123456002',
          routingNumber: '021000021',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Prod User' },
        },
      });
      assert.equal(bank.body.status, 'PENDING', 'production accounts wait for review');
      assert.equal(
        (
          await p.prod.post('/transfer-in', {
            source: { accountId: bank.body.id },
            destination: { accountId: usd.id },
            amount: 10_000,
          })
        ).status,
        400,
      );
      await payouts('accounts', 'activate', bank.body.id);

      const pull = (
        await p.prod.post('/transfer-in', {
          source: { accountId: bank.body.id },
          destination: { accountId: usd.id },
          amount: 10_000,
        })
      ).body;
      await runDueJobs(server);
      assert.equal(
        (await p.prod.get(`/transactions/${pull.id}`)).body.status,
        'PROCESSING',
        'suffixes mean nothing in production',
      );
      const settled = await payouts('transactions', 'settle', pull.id);
      assert.match(settled.stdout, /COMPLETED/);
      assert.equal(await usdBalance(p, customer.id), 10_000);

      const payout = (
        await p.prod.post('/transfer-out', {
          source: { accountId: usd.id },
          destination: { accountId: bank.body.id },
          amount: 4_000,
        })
      ).body;
      await runDueJobs(server);
      assert.equal((await p.prod.get(`/transactions/${payout.id}`)).body.status, 'PROCESSING');
      await cancelHeldPayout(server, p, usd.id, bank.body.id);
      const freeText = await runCli(['transactions', 'fail', payout.id, '--reason', 'the bank said no'], env);
      assert.equal(freeText.code, 2, 'only public failure reasons');
      assert.match(freeText.stderr, /--reason must be one of .*INVALID_BANK_ACCOUNT/);
      await payouts('transactions', 'fail', payout.id, '--reason', 'INVALID_BANK_ACCOUNT');
      const failed = (await p.prod.get(`/transactions/${payout.id}`)).body;
      assert.equal(failed.status, 'FAILED');
      assert.equal(failed.failureReason, 'INVALID_BANK_ACCOUNT');
      assert.equal(failed.refund.status, 'COMPLETED');
      assert.equal(await usdBalance(p, customer.id), 10_000);
      const again = await runCli(['transactions', 'settle', payout.id], env);
      assert.equal(again.code, 1, again.stderr);
      assert.match(again.stderr, /only PROCESSING/);

      const quote = await p.prod.post('/quotes', {
        source: { sourceType: 'ACCOUNT', accountId: usd.id },
        destination: { destinationType: 'ACCOUNT', accountId: bank.body.id },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      });
      assert.equal(quote.status, 400, 'no production rates without RATES_FILE');
      assert.equal(quote.body.code, 'QUOTE_REQUEST_FAILED');
    } finally {
      await server.close();
    }
  });
});

async function usdBalance(p: TestPlatform, customerId: string): Promise<number> {
  const accounts = await p.prod.get(
    `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`,
  );
  return accounts.body.data[0].balance.amount;
}

/** Held by the production connector and not settled: the platform may still cancel a payout. */
async function cancelHeldPayout(server: TestServer, p: TestPlatform, from: string, to: string): Promise<void> {
  const held = (
    await p.prod.post('/transfer-out', { source: { accountId: from }, destination: { accountId: to }, amount: 1_000 })
  ).body;
  await runDueJobs(server);
  assert.equal((await p.prod.get(`/transactions/${held.id}`)).body.status, 'PROCESSING');
  const cancelled = await p.prod.post(`/transactions/${held.id}/cancel`, { reason: 'REQUESTED_AFTER_HOURS' });
  assert.deepEqual(
    [cancelled.status, cancelled.body.status, cancelled.body.refund?.status, cancelled.body.refund?.reason],
    [200, 'FAILED', 'COMPLETED', 'USER_CANCELLATION'],
  );
  const late = await p.prod.post(`/transactions/${held.id}/cancel`);
  assert.deepEqual([late.status, late.body.code], [409, 'TRANSACTION_NOT_CANCELLABLE']);
}
