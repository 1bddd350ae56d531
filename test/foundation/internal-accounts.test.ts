import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { CURRENCY_CODES } from '../../src/domain/currencies.ts';

describe('internal accounts and sandbox funding', () => {
  let p: TestPlatform;
  const server = useServer();
  before(async () => {
    p = await server.platform();
  });

  it('gives the platform one account per supported currency, unpaginated', async () => {
    const res = await p.api.get('/platform/internal-accounts');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['data']);
    assert.deepEqual(res.body.data.map((a: any) => a.balance.currency.code).sort(), [...CURRENCY_CODES].sort());
    assert.ok(
      res.body.data.every((a: any) => a.customerId === undefined && a.id.startsWith('InternalAccount:')),
      "res.body.data.every((a: any) => a.customerId === undefined && a.id.startsWith('InternalAccount:'))",
    );
    const btc = (await p.api.get('/platform/internal-accounts?currency=BTC')).body.data[0];
    assert.deepEqual(btc.balance.currency, { code: 'BTC', name: 'Bitcoin', symbol: '₿', decimals: 8 });
  });

  it('credits the balance through the ledger and returns the account', async () => {
    const customer = await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'fund-me' });
    const accounts = await p.api.get(
      `/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}&currency=MXN`,
    );
    const account = accounts.body.data[0];
    const first = await p.api.post(`/sandbox/internal-accounts/${account.id}/fund`, { amount: 12_345 });
    assert.equal(first.status, 200);
    assert.equal(first.body.id, account.id);
    assert.equal(first.body.balance.amount, 12_345);
    const second = await p.api.post(`/sandbox/internal-accounts/${account.id}/fund`, { amount: 100_000_000_000 });
    assert.equal(second.body.balance.amount, 100_000_012_345);
    const listed = await p.api.get(
      `/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}&currency=MXN`,
    );
    assert.equal(listed.body.data[0].balance.amount, 100_000_012_345);
    const postings = await server.app.store.db
      .selectFrom('postings')
      .selectAll()
      .where('account_id', '=', account.id)
      .execute();
    assert.equal(postings.length, 2, 'each funding is a journal entry, not a bare balance update');
  });

  it('refuses production credentials, bad amounts and unknown accounts', async () => {
    const platformUsd = (await p.api.get('/platform/internal-accounts?currency=USD')).body.data[0];
    const prodUsd = (await p.prod.get('/platform/internal-accounts?currency=USD')).body.data[0];
    const prod = await p.prod.post(`/sandbox/internal-accounts/${prodUsd.id}/fund`, { amount: 100 });
    assert.equal(prod.status, 403);
    assert.equal(prod.body.code, 'FORBIDDEN');
    const tooMuch = await p.api.post(`/sandbox/internal-accounts/${platformUsd.id}/fund`, { amount: 100_000_000_001 });
    assert.equal(tooMuch.status, 400);
    assert.equal(tooMuch.body.details.field, 'amount');
    const missing = await p.api.post(`/sandbox/internal-accounts/${platformUsd.id}/fund`, {});
    assert.equal(missing.status, 400);
    const unknown = await p.api.post(
      '/sandbox/internal-accounts/InternalAccount:00000000-0000-7000-8000-000000000000/fund',
      { amount: 1 },
    );
    assert.equal(unknown.status, 404);
    const otherEnv = await p.api.post(`/sandbox/internal-accounts/${prodUsd.id}/fund`, { amount: 1 });
    assert.equal(otherEnv.status, 404, "a production account is not the sandbox's");
    assert.equal((await p.api.get('/platform/internal-accounts?currency=USD')).body.data[0].balance.amount, 0);
  });

  it('keeps balances exact under concurrent funding', async () => {
    const account = (await p.api.get('/platform/internal-accounts?currency=EUR')).body.data[0];
    await Promise.all(
      Array.from({ length: 40 }, () => p.api.post(`/sandbox/internal-accounts/${account.id}/fund`, { amount: 25 })),
    );
    assert.equal((await p.api.get('/platform/internal-accounts?currency=EUR')).body.data[0].balance.amount, 1000);
  });
});
