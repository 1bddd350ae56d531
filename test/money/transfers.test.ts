import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { balance, eventTypes, externalAccount, fundedCustomer, runDueJobs } from './fixtures.ts';

/** What the list assertions read of a listed transaction. */
interface Listed {
  id: string;
  source?: { accountId?: string };
  destination?: { accountId?: string };
}

describe('transfers without a quote', () => {
  let p: TestPlatform;
  // No background worker: the test runs due jobs itself, so it can see each state in between.
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform();
  });

  it('transfer-out: debits at once, answers PENDING, then completes with every event in order', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 10_000);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const res = await p.api.post('/transfer-out', {
      source: { accountId },
      destination: { accountId: destination, currency: 'USD' },
      amount: 2_500,
      description: 'rent',
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'PENDING');
    assert.equal(res.body.type, 'OUTGOING');
    assert.deepEqual(res.body.source, { sourceType: 'ACCOUNT', accountId, currency: 'USD' });
    assert.equal(res.body.destination.destinationType, 'ACCOUNT');
    assert.equal(res.body.sentAmount.amount, 2_500);
    assert.equal(res.body.receivedAmount.amount, 2_500);
    assert.equal(res.body.customerId, customerId);
    assert.equal(res.body.description, 'rent');
    assert.equal(await balance(p, customerId), 7_500, 'debited immediately');
    await runDueJobs(server);
    const done = await p.api.get(`/transactions/${res.body.id}`);
    assert.equal(done.body.status, 'COMPLETED');
    assert.ok(done.body.settledAt, 'done.body.settledAt');
    assert.deepEqual(await eventTypes(server, res.body.id), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED',
    ]);
    assert.equal(await balance(p, customerId), 7_500);
  });

  for (const [tail, reason] of [
    ['002', 'INSUFFICIENT_BALANCE'],
    ['003', 'INVALID_BANK_ACCOUNT'],
    ['004', 'COUNTERPARTY_POST_TX_FAILED'],
  ] as const) {
    it(`transfer-out to a …${tail} account fails at once with ${reason} and is refunded`, async () => {
      const { customerId, accountId } = await fundedCustomer(p, 'USD', 5_000);
      const destination = await externalAccount(p, customerId, 'US_ACCOUNT', tail);
      const res = await p.api.post('/transfer-out', {
        source: { accountId },
        destination: { accountId: destination },
        amount: 5_000,
      });
      assert.equal(res.status, 201);
      assert.equal(await balance(p, customerId), 0);
      await runDueJobs(server);
      const tx = (await p.api.get(`/transactions/${res.body.id}`)).body;
      assert.equal(tx.status, 'FAILED');
      assert.equal(tx.failureReason, reason);
      assert.equal(tx.refund.status, 'COMPLETED');
      assert.equal(tx.refund.reason, 'TRANSACTION_FAILED');
      assert.equal(await balance(p, customerId), 5_000, 'refunded in full');
      assert.deepEqual(await eventTypes(server, res.body.id), [
        'OUTGOING_PAYMENT.PENDING',
        'OUTGOING_PAYMENT.PROCESSING',
        'OUTGOING_PAYMENT.FAILED',
        'OUTGOING_PAYMENT.REFUND_COMPLETED',
      ]);
    });
  }

  it('transfer-out to a …005 account stays processing about 30 seconds, then fails', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'MXN', 9_000);
    const destination = await externalAccount(p, customerId, 'CLABE', '005');
    const res = await p.api.post('/transfer-out', {
      source: { accountId },
      destination: { accountId: destination },
      amount: 9_000,
    });
    await runDueJobs(server);
    assert.equal((await p.api.get(`/transactions/${res.body.id}`)).body.status, 'PROCESSING');
    await p.api.post('/sandbox/clock/advance', { seconds: 25 });
    assert.equal((await p.api.get(`/transactions/${res.body.id}`)).body.status, 'PROCESSING');
    await p.api.post('/sandbox/clock/advance', { seconds: 6 });
    const tx = (await p.api.get(`/transactions/${res.body.id}`)).body;
    assert.equal(tx.status, 'FAILED');
    assert.equal(tx.failureReason, 'COUNTERPARTY_POST_TX_FAILED', 'a timeout has no public reason of its own');
    assert.equal(tx.refund.reason, 'TIMEOUT');
    assert.equal(await balance(p, customerId, 'MXN'), 9_000);
  });

  it('refuses an overdraft with INSUFFICIENT_BALANCE and changes nothing', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 100);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const previous = await p.api.get(`/transactions?customerId=${encodeURIComponent(customerId)}`);
    const res = await p.api.post('/transfer-out', {
      source: { accountId },
      destination: { accountId: destination },
      amount: 101,
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'INSUFFICIENT_BALANCE');
    assert.equal(await balance(p, customerId), 100);
    const afterList = await p.api.get(`/transactions?customerId=${encodeURIComponent(customerId)}`);
    assert.equal(afterList.body.totalCount, previous.body.totalCount, 'no transaction was left behind');
  });

  it('refuses bad references with a 4xx naming the field', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 1_000);
    const usd = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const eur = await externalAccount(p, customerId, 'EUR_ACCOUNT', '000');
    const cases: Array<[unknown, number, string]> = [
      [{ source: { accountId }, destination: { accountId: eur }, amount: 10 }, 400, 'destination.accountId'],
      [
        { source: { accountId }, destination: { accountId: usd, currency: 'EUR' }, amount: 10 },
        400,
        'destination.currency',
      ],
      [{ source: { accountId }, destination: { accountId: usd }, amount: 0 }, 400, 'amount'],
      [{ source: { accountId }, destination: { accountId: usd }, amount: '10' }, 400, 'amount'],
      [{ source: { accountId }, destination: {}, amount: 10 }, 400, 'destination.accountId'],
    ];
    for (const [body, status, field] of cases) {
      const res = await p.api.post('/transfer-out', body);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.body.details.field, field, JSON.stringify(res.body));
    }
    // Either account missing: the 404 names the one that is, whichever side of the transfer it is on.
    const noInternal = 'InternalAccount:00000000-0000-7000-8000-000000000000';
    const noExternal = 'ExternalAccount:00000000-0000-7000-8000-000000000000';
    const missing: Array<[string, unknown, string, string]> = [
      ['/transfer-out', { source: { accountId: noInternal }, destination: { accountId: usd } }, 'Internal', noInternal],
      ['/transfer-out', { source: { accountId }, destination: { accountId: noExternal } }, 'External', noExternal],
      [
        '/transfer-out',
        { source: { accountId: noInternal }, destination: { accountId: noExternal } },
        'Internal',
        noInternal,
      ],
      ['/transfer-in', { source: { accountId: usd }, destination: { accountId: noInternal } }, 'Internal', noInternal],
      ['/transfer-in', { source: { accountId: noExternal }, destination: { accountId } }, 'External', noExternal],
      [
        '/transfer-in',
        { source: { accountId: noExternal }, destination: { accountId: noInternal } },
        'External',
        noExternal,
      ],
    ];
    for (const [path, accounts, side, id] of missing) {
      const res = await p.api.post(path, { ...(accounts as object), amount: 10 });
      assert.equal(res.status, 404, `${path} ${JSON.stringify(accounts)}`);
      assert.deepEqual(res.body.details, { id, resource: `${side} account` }, JSON.stringify(res.body));
    }
    // An INACTIVE account takes no money.
    assert.equal((await p.api.delete(`/customers/external-accounts/${usd}`)).status, 204);
    const inactive = await p.api.post('/transfer-out', {
      source: { accountId },
      destination: { accountId: usd },
      amount: 10,
    });
    assert.equal(inactive.status, 400);
    assert.equal(inactive.body.details.field, 'destination.accountId');
    // Another platform's accounts do not exist for this one.
    const other = await server.platform('other');
    assert.equal(
      (await other.api.post('/transfer-out', { source: { accountId }, destination: { accountId: eur }, amount: 10 }))
        .status,
      404,
    );
    assert.equal(await balance(p, customerId), 1_000);
  });

  it('honours Idempotency-Key: the same request once, another body refused', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 1_000);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const body = { source: { accountId }, destination: { accountId: destination }, amount: 300 };
    const headers = { 'idempotency-key': `key-${customerId}` };
    const [first, second] = await Promise.all([
      p.api.post('/transfer-out', body, headers),
      p.api.post('/transfer-out', body, headers),
    ]);
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(first.body.id, second.body.id);
    const third = await p.api.post(
      '/transfer-out',
      { destination: body.destination, amount: 300, source: body.source },
      headers,
    );
    assert.equal(third.body.id, first.body.id, 'key order does not matter');
    assert.equal(await balance(p, customerId), 700, 'debited once');
    const reused = await p.api.post('/transfer-out', { ...body, amount: 301 }, headers);
    assert.equal(reused.status, 422);
    assert.equal(reused.body.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(await balance(p, customerId), 700);
  });

  it('transfer-in pulls from a pullable account and credits on settlement', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 0);
    const source = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const res = await p.api.post('/transfer-in', {
      source: { accountId: source, currency: 'USD' },
      destination: { accountId },
      amount: 4_200,
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'PENDING');
    assert.equal(res.body.type, 'INCOMING');
    assert.equal(await balance(p, customerId), 0, 'nothing is credited before the pull settles');
    await runDueJobs(server);
    assert.equal((await p.api.get(`/transactions/${res.body.id}`)).body.status, 'COMPLETED');
    assert.equal(await balance(p, customerId), 4_200);
  });

  it('transfer-in from a …002 account fails and credits nothing; mobile money cannot be pulled', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 0);
    const source = await externalAccount(p, customerId, 'US_ACCOUNT', '002');
    const res = await p.api.post('/transfer-in', {
      source: { accountId: source },
      destination: { accountId },
      amount: 4_200,
    });
    await runDueJobs(server);
    const tx = (await p.api.get(`/transactions/${res.body.id}`)).body;
    assert.equal(tx.status, 'FAILED');
    assert.equal(tx.failureReason, 'INSUFFICIENT_BALANCE');
    assert.equal(tx.refund, undefined, 'nothing was taken, so nothing is refunded');
    assert.equal(await balance(p, customerId), 0);
    assert.deepEqual(
      await eventTypes(server, res.body.id),
      ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED'],
      'no INCOMING_PAYMENT.PROCESSING: no public contract has it',
    );

    const kes = await fundedCustomer(p, 'KES', 0);
    const mpesa = await externalAccount(p, kes.customerId, 'KES_ACCOUNT', '000');
    const refused = await p.api.post('/transfer-in', {
      source: { accountId: mpesa },
      destination: { accountId: kes.accountId },
      amount: 100,
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.details.field, 'source.accountId');
    assert.equal(refused.body.details.rule, 'pullable');
  });

  it('transfer-in from a …004 or …005 account fails with an incoming reason: the collection failed', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 0);
    const ids: string[] = [];
    for (const tail of ['004', '005']) {
      const source = await externalAccount(p, customerId, 'US_ACCOUNT', tail);
      const res = await p.api.post('/transfer-in', {
        source: { accountId: source },
        destination: { accountId },
        amount: 10,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.id);
    }
    await runDueJobs(server);
    await p.api.post('/sandbox/clock/advance', { seconds: 31 });
    await runDueJobs(server);
    for (const id of ids) {
      const tx = (await p.api.get(`/transactions/${id}`)).body;
      assert.deepEqual([tx.status, tx.failureReason], ['FAILED', 'COLLECTION_FAILED'], id);
    }
    assert.equal(await balance(p, customerId), 0, 'nothing credited');
  });

  it('100 concurrent transfer-outs against a balance that covers 60: exactly 60 succeed', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 6_000);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        p.api.post('/transfer-out', { source: { accountId }, destination: { accountId: destination }, amount: 100 }),
      ),
    );
    const created = results.filter((r) => r.status === 201).length;
    const refused = results.filter((r) => r.status === 400 && r.body.code === 'INSUFFICIENT_BALANCE').length;
    assert.equal(created, 60);
    assert.equal(refused, 40);
    assert.equal(await balance(p, customerId), 0);
    await runDueJobs(server);
    const completed = await p.api.get(
      `/transactions?customerId=${encodeURIComponent(customerId)}&status=COMPLETED&limit=100`,
    );
    assert.equal(completed.body.totalCount, 60);
  });

  it('lists transactions with filters, both sort orders and pages', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 10_000);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await p.api.post('/transfer-out', {
            source: { accountId },
            destination: { accountId: destination },
            amount: 10 + i,
          })
        ).body.id,
      );
    const q = `customerId=${encodeURIComponent(customerId)}`;
    const desc = await p.api.get(`/transactions?${q}&limit=2`);
    assert.deepEqual(
      desc.body.data.map((t: any) => t.id),
      [ids[4], ids[3]],
    );
    assert.equal(desc.body.totalCount, 5);
    const firstPage = (await p.api.get(`/transactions?${q}&sortOrder=asc&limit=2`)).body;
    const asc = await p.api.get(
      `/transactions?${q}&sortOrder=asc&limit=2&cursor=${encodeURIComponent(firstPage.nextCursor)}`,
    );
    assert.deepEqual(
      asc.body.data.map((t: any) => t.id),
      [ids[2], ids[3]],
    );
    assert.equal(
      (await p.api.get(`/transactions?accountIdentifier=${encodeURIComponent(destination)}`)).body.totalCount,
      5,
    );
    assert.equal(
      (await p.api.get(`/transactions?receiverAccountIdentifier=${encodeURIComponent(destination)}&type=OUTGOING`)).body
        .totalCount,
      5,
    );
    assert.equal(
      (await p.api.get(`/transactions?senderAccountIdentifier=${encodeURIComponent(destination)}`)).body.totalCount,
      0,
    );
    const first = (await p.api.get(`/transactions/${ids[0]}`)).body;
    assert.equal(
      (await p.api.get(`/transactions?${q}&startDate=${first.createdAt}&endDate=${first.createdAt}`)).body.data.some(
        (t: any) => t.id === ids[0],
      ),
      true,
    );
    assert.equal((await p.api.get(`/transactions?${q}&status=PENDING`)).body.totalCount, 5);
    assert.equal((await p.api.get(`/transactions?status=BOGUS`)).status, 400);
    assert.equal(
      (await p.api.get('/transactions/Transaction:00000000-0000-7000-8000-000000000000')).body.code,
      'TRANSACTION_NOT_FOUND',
    );
  });

  it('lists the payments of an account on either side, counted and paged in order', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 10_000);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    for (let i = 0; i < 3; i++)
      assert.equal(
        (
          await p.api.post('/transfer-out', {
            source: { accountId },
            destination: { accountId: destination },
            amount: 5,
          })
        ).status,
        201,
      );
    const q = `customerId=${encodeURIComponent(customerId)}`;
    // accountIdentifier pages through both sides in order, as the customer's whole list filtered here does:
    // the transfer-outs leave the internal account, a transfer-in reaches it.
    const pullFrom = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const pulled = await p.api.post('/transfer-in', {
      source: { accountId: pullFrom },
      destination: { accountId },
      amount: 7,
    });
    assert.equal(pulled.status, 201, JSON.stringify(pulled.body));
    const all: Listed[] = (await p.api.get(`/transactions?${q}&limit=100`)).body.data;
    const touching = all.filter((t) => t.source?.accountId === accountId || t.destination?.accountId === accountId);
    assert.ok(touching.length >= 3, 'the transfer-outs leave the internal account');
    assert.ok(
      touching.some((t) => t.destination?.accountId === accountId),
      'and the transfer-in reaches it',
    );
    for (const sortOrder of ['desc', 'asc']) {
      const paged: string[] = [];
      let cursor = '';
      for (let n = 0; n < 10; n++) {
        const page = (
          await p.api.get(
            `/transactions?accountIdentifier=${encodeURIComponent(accountId)}&sortOrder=${sortOrder}&limit=2${cursor}`,
          )
        ).body;
        paged.push(...(page.data as Listed[]).map((t) => t.id));
        assert.equal(page.totalCount, touching.length, 'counted across both sides');
        if (!page.hasMore) break;
        cursor = `&cursor=${encodeURIComponent(page.nextCursor)}`;
      }
      const expected = touching.map((t) => t.id);
      assert.deepEqual(paged, sortOrder === 'desc' ? expected : expected.reverse(), `pages in ${sortOrder} order`);
    }
  });
});
