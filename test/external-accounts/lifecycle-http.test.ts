import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { BUILD, valid, withInfo } from './fixtures.ts';
import { runCli } from '../helpers/processes.ts';

describe('external accounts over HTTP: ownership, defaults, duplicates, lists, lifecycle', () => {
  let a: TestPlatform;
  let b: TestPlatform;
  const customer = async (p: TestPlatform, ref: string) =>
    (await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: ref })).body.id as string;
  const server = useServer();
  before(async () => {
    a = await server.platform('a');
    b = await server.platform('b');
  });

  it('creates platform accounts through both routes, with customerId null emitted', async () => {
    const viaPlatform = await a.api.post('/platform/external-accounts', valid('USD_ACCOUNT'));
    assert.equal(viaPlatform.status, 201);
    assert.equal(viaPlatform.body.customerId, null);
    const viaCustomers = await a.api.post('/customers/external-accounts', valid('CAD_ACCOUNT'));
    assert.equal(viaCustomers.status, 201);
    assert.equal(viaCustomers.body.customerId, null);
    const list = await a.api.get('/platform/external-accounts');
    assert.deepEqual(Object.keys(list.body), ['data', 'hasMore', 'totalCount']);
    assert.deepEqual(
      list.body.data.map((x: any) => x.id),
      [viaPlatform.body.id, viaCustomers.body.id],
    );
    const usd = await a.api.get('/platform/external-accounts?currency=USD');
    assert.deepEqual(
      usd.body.data.map((x: any) => x.id),
      [viaPlatform.body.id],
    );
    // Customer lists show customer-owned accounts only.
    const customers = await a.api.get('/customers/external-accounts?limit=100');
    assert.ok(
      !customers.body.data.some((x: any) => x.customerId === null),
      '!customers.body.data.some((x: any) => x.customerId === null)',
    );
  });

  it(
    'takes platformAccountId at the top level or inside ' + 'accountInfo and always emits it at the top level',
    async () => {
      const top = await a.api.post('/platform/external-accounts', {
        ...valid('ZAR_ACCOUNT'),
        platformAccountId: 'acc-top',
      });
      const nested = await a.api.post(
        '/platform/external-accounts',
        withInfo(valid('ZAR_ACCOUNT'), { platformAccountId: 'acc-nested' }),
      );
      const cust = await customer(a, 'pa');
      const nestedCustomer = await a.api.post('/customers/external-accounts', {
        customerId: cust,
        ...withInfo(valid('NGN_ACCOUNT'), { platformAccountId: 'acc-c' }),
      });
      for (const [res, id] of [
        [top, 'acc-top'],
        [nested, 'acc-nested'],
        [nestedCustomer, 'acc-c'],
      ] as const) {
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.equal(res.body.platformAccountId, id);
        assert.equal('platformAccountId' in res.body.accountInfo, false);
      }
      const none = await a.api.post('/platform/external-accounts', valid('ZAR_ACCOUNT'));
      assert.equal('platformAccountId' in none.body, false);
    },
  );

  it('answers 404 USER_NOT_FOUND for an unknown or foreign customer and 410 for a deleted one', async () => {
    const unknown = await a.api.post('/customers/external-accounts', {
      customerId: 'Customer:00000000-0000-7000-8000-000000000000',
      ...valid('USD_ACCOUNT'),
    });
    assert.deepEqual([unknown.status, unknown.body.code], [404, 'USER_NOT_FOUND']);
    const foreign = await customer(b, 'foreign');
    const cross = await a.api.post('/customers/external-accounts', { customerId: foreign, ...valid('USD_ACCOUNT') });
    assert.deepEqual([cross.status, cross.body.code], [404, 'USER_NOT_FOUND']);
    const gone = await customer(a, 'gone');
    assert.equal((await a.api.delete(`/customers/${gone}`)).status, 200);
    const deleted = await a.api.post('/customers/external-accounts', { customerId: gone, ...valid('USD_ACCOUNT') });
    assert.deepEqual([deleted.status, deleted.body.code], [410, 'CUSTOMER_DELETED']);
  });

  it('keeps at most one default UMA deposit account per customer; a new default replaces the old', async () => {
    const cust = await customer(a, 'default-seq');
    const first = await a.api.post('/customers/external-accounts', {
      customerId: cust,
      defaultUmaDepositAccount: true,
      ...valid('USD_ACCOUNT'),
    });
    assert.equal(first.body.defaultUmaDepositAccount, true);
    const plain = await a.api.post('/customers/external-accounts', { customerId: cust, ...valid('USD_ACCOUNT') });
    assert.equal(plain.body.defaultUmaDepositAccount, false);
    const second = await a.api.post('/customers/external-accounts', {
      customerId: cust,
      defaultUmaDepositAccount: true,
      ...valid('MXN_ACCOUNT'),
    });
    assert.equal(second.body.defaultUmaDepositAccount, true);
    const old = await a.api.get(`/customers/external-accounts/${first.body.id}`);
    assert.equal(old.body.defaultUmaDepositAccount, false);
    assert.ok(old.body.updatedAt >= old.body.createdAt, 'old.body.updatedAt >= old.body.createdAt');
    // Another customer's default is untouched.
    const other = await customer(a, 'default-other');
    await a.api.post('/customers/external-accounts', {
      customerId: other,
      defaultUmaDepositAccount: true,
      ...valid('USD_ACCOUNT'),
    });
    assert.equal(
      (await a.api.get(`/customers/external-accounts/${second.body.id}`)).body.defaultUmaDepositAccount,
      true,
    );
    // Deleting the default gives up the flag.
    assert.equal((await a.api.delete(`/customers/external-accounts/${second.body.id}`)).status, 204);
    const removed = await a.api.get(`/customers/external-accounts/${second.body.id}`);
    assert.deepEqual([removed.body.status, removed.body.defaultUmaDepositAccount], ['INACTIVE', false]);
    // A platform account cannot be a customer's default.
    const platformDefault = await a.api.post('/customers/external-accounts', {
      defaultUmaDepositAccount: true,
      ...valid('USD_ACCOUNT'),
    });
    assert.deepEqual([platformDefault.status, platformDefault.body.details.field], [400, 'defaultUmaDepositAccount']);
  });

  it('ends two concurrent default requests with exactly one default', async () => {
    for (let round = 0; round < 3; round++) {
      const cust = await customer(a, `default-race-${round}`);
      const results = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          a.api.post('/customers/external-accounts', {
            customerId: cust,
            defaultUmaDepositAccount: true,
            ...valid(i % 2 ? 'USD_ACCOUNT' : 'NGN_ACCOUNT'),
          }),
        ),
      );
      for (const r of results) assert.equal(r.status, 201, JSON.stringify(r.body));
      const list = await a.api.get(`/customers/external-accounts?customerId=${encodeURIComponent(cust)}`);
      assert.equal(list.body.totalCount, 4);
      assert.equal(list.body.data.filter((x: any) => x.defaultUmaDepositAccount).length, 1);
    }
  });

  it(
    'refuses a duplicate (same owner, identifier and currency, not ' + 'INACTIVE) with 409, also under concurrency',
    async () => {
      const cust = await customer(a, 'dup');
      const req = valid('KES_ACCOUNT');
      const first = await a.api.post('/customers/external-accounts', { customerId: cust, ...req });
      assert.equal(first.status, 201);
      const again = await a.api.post('/customers/external-accounts', {
        customerId: cust,
        ...withInfo(req, { provider: 'M-PESA', beneficiary: { fullName: 'Someone Else' } }),
      });
      assert.deepEqual(
        [again.status, again.body.code, again.body.details.reason],
        [409, 'CONFLICT', 'ACCOUNT_ALREADY_EXISTS'],
      );
      // Another owner may hold the same identifier: another customer, or the platform.
      const other = await customer(a, 'dup-other');
      assert.equal((await a.api.post('/customers/external-accounts', { customerId: other, ...req })).status, 201);
      assert.equal((await a.api.post('/platform/external-accounts', req)).status, 201);
      assert.equal((await a.api.post('/platform/external-accounts', req)).status, 409);
      // Once the first is deleted the identifier is free again.
      await a.api.delete(`/customers/external-accounts/${first.body.id}`);
      assert.equal((await a.api.post('/customers/external-accounts', { customerId: cust, ...req })).status, 201);

      const racer = await customer(a, 'dup-race');
      const same = valid('ZAR_ACCOUNT');
      const results = await Promise.all(
        Array.from({ length: 4 }, () => a.api.post('/customers/external-accounts', { customerId: racer, ...same })),
      );
      assert.deepEqual(
        results.map((r) => r.status).sort((x, y) => x - y),
        [201, 409, 409, 409],
      );
      assert.ok(
        results.filter((r) => r.status === 409).every((r) => r.body.details.reason === 'ACCOUNT_ALREADY_EXISTS'),
        "results.filter((r) => r.status === 409).every((r) => r.body.details.reason === 'ACCOUNT_ALREADY_EXISTS')",
      );
    },
  );

  it('filters and pages the customer list in creation order', async () => {
    const cust = await customer(a, 'pages');
    const created: string[] = [];
    for (let i = 0; i < 5; i++)
      created.push(
        (
          await a.api.post('/customers/external-accounts', {
            customerId: cust,
            ...valid(i < 3 ? 'USD_ACCOUNT' : 'GBP_ACCOUNT'),
          })
        ).body.id,
      );
    const q = `customerId=${encodeURIComponent(cust)}`;
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await a.api.get(
        `/customers/external-accounts?${q}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.totalCount, 5);
      seen.push(...res.body.data.map((x: any) => x.id));
      if (!res.body.hasMore) {
        assert.equal('nextCursor' in res.body, false);
        break;
      }
      cursor = res.body.nextCursor;
    }
    assert.deepEqual(seen, created);
    const gbp = await a.api.get(`/customers/external-accounts?${q}&currency=GBP`);
    assert.deepEqual(
      gbp.body.data.map((x: any) => x.id),
      created.slice(3),
    );
    assert.equal(gbp.body.totalCount, 2);
    const bad = await a.api.get('/customers/external-accounts?limit=101');
    assert.deepEqual([bad.status, bad.body.details.field], [400, 'limit']);
    const badCursor = await a.api.get('/customers/external-accounts?cursor=nope');
    assert.deepEqual([badCursor.status, badCursor.body.details.field], [400, 'cursor']);
  });

  it('GET and DELETE on both paths; DELETE keeps the account as INACTIVE', async () => {
    const cust = await customer(a, 'getdel');
    const acct = (await a.api.post('/customers/external-accounts', { customerId: cust, ...valid('CAD_ACCOUNT') })).body;
    const plat = (await a.api.post('/platform/external-accounts', valid('CAD_ACCOUNT'))).body;
    assert.deepEqual((await a.api.get(`/customers/external-accounts/${acct.id}`)).body, acct);
    assert.deepEqual((await a.api.get(`/platform/external-accounts/${plat.id}`)).body, plat);
    assert.equal(
      (await a.api.get(`/platform/external-accounts/${acct.id}`)).status,
      404,
      "a customer's account is not on the platform path",
    );
    assert.equal(
      (await a.api.get(`/customers/external-accounts/${encodeURIComponent(plat.id)}`)).status,
      200,
      'raw or percent-encoded ids',
    );

    const deleted = await a.api.delete(`/customers/external-accounts/${acct.id}`);
    assert.deepEqual([deleted.status, deleted.body], [204, undefined], 'no content, as the contract answers');
    const removed = await a.api.get(`/customers/external-accounts/${acct.id}`);
    assert.equal(removed.body.status, 'INACTIVE');
    assert.deepEqual({ ...removed.body, status: acct.status, updatedAt: acct.updatedAt }, acct);
    assert.equal((await a.api.delete(`/customers/external-accounts/${acct.id}`)).status, 204, 'again: unchanged');
    const twice = await a.api.get(`/customers/external-accounts/${acct.id}`);
    assert.deepEqual([twice.body.status, twice.body.updatedAt], ['INACTIVE', removed.body.updatedAt]);
    assert.equal((await a.api.delete(`/platform/external-accounts/${plat.id}`)).status, 204);
    assert.equal((await a.api.get(`/platform/external-accounts/${plat.id}`)).body.status, 'INACTIVE');
    const list = await a.api.get(`/customers/external-accounts?customerId=${encodeURIComponent(cust)}`);
    assert.equal(list.body.data[0].status, 'INACTIVE', 'never erased');
    assert.equal(
      (await a.api.get('/customers/external-accounts/ExternalAccount:00000000-0000-7000-8000-000000000000')).status,
      404,
    );
  });

  it("answers 404 for another platform's or environment's account", async () => {
    const acct = (await a.api.post('/platform/external-accounts', valid('USD_ACCOUNT'))).body;
    for (const c of [b.api, a.prod]) {
      for (const path of [`/customers/external-accounts/${acct.id}`, `/platform/external-accounts/${acct.id}`]) {
        assert.equal((await c.get(path)).status, 404);
        assert.equal((await c.delete(path)).status, 404);
      }
      assert.ok(
        !(await c.get('/platform/external-accounts')).body.data.some((x: any) => x.id === acct.id),
        "!(await c.get('/platform/external-accounts')).body.data.some((x: any) => x.id === acct.id)",
      );
    }
    assert.equal((await a.api.get(`/customers/external-accounts/${acct.id}`)).body.status, 'ACTIVE');
  });

  it('enforces permissions: VIEW reads, MANAGE writes', async () => {
    const viewer = await a.api.post('/tokens', { name: 'viewer', permissions: ['VIEW'] });
    const { client } = await import('../helpers/harness.ts');
    const v = client(server.baseUrl, { tokenId: viewer.body.id, clientSecret: viewer.body.clientSecret });
    assert.equal((await v.get('/platform/external-accounts')).status, 200);
    assert.equal((await v.post('/platform/external-accounts', valid('USD_ACCOUNT'))).status, 403);
  });

  it(
    'production: accounts start PENDING, unverified, unusable ' + 'until an operator activates them with the CLI',
    async () => {
      const cust = (await a.prod.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'prod-1' })).body
        .id;
      // Suffixes choose nothing in production: 105 and 109 are ordinary account numbers there.
      const res = await a.prod.post('/customers/external-accounts', { customerId: cust, ...BUILD.US_ACCOUNT('109') });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(
        [res.body.status, res.body.beneficiaryVerificationStatus, res.body.beneficiaryVerifiedData],
        ['PENDING', 'UNSUPPORTED', undefined],
      );
      const services = server.app.services;
      const scope = { platformId: a.platformId, environment: 'production' as const };
      await assert.rejects(
        server.app.store.tx((trx) =>
          services.externalAccounts.requireUsableExternalAccount(trx, scope, res.body.id, 'destination.accountId'),
        ),
        (err: any) => err.status === 400 && err.details.field === 'destination.accountId',
      );

      const cfg = server.config;
      const env = {
        ...process.env,
        DATA_DIR: cfg.dataDir,
        DATABASE_URL: cfg.databaseUrl ?? '',
        SECRET_KEY: cfg.secretKey.toString('hex'),
        LOG_LEVEL: 'silent',
      };
      const run = (...args: string[]) => runCli(args, env);
      const ok = await run('accounts', 'activate', res.body.id);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /is ACTIVE/);
      assert.equal((await a.prod.get(`/customers/external-accounts/${res.body.id}`)).body.status, 'ACTIVE');
      const row = await server.app.store.tx((trx) =>
        services.externalAccounts.requireUsableExternalAccount(trx, scope, res.body.id),
      );
      assert.equal(row.status, 'ACTIVE');
      const again = await run('accounts', 'activate', res.body.id);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /is ACTIVE; only PENDING or UNDER_REVIEW/);
      const missing = await run('accounts', 'activate', 'ExternalAccount:nope');
      assert.equal(missing.code, 1);
      assert.equal((await run('accounts', 'activate')).code, 2);
    },
  );

  it(
    'createExternalAccountInTx applies the same rules inside a ' + "caller's transaction and rolls back with it",
    async () => {
      const services = server.app.services;
      const scope = { platformId: a.platformId, environment: 'sandbox' as const };
      const cust = await customer(a, 'intx');
      const created = await server.app.store.tx((trx) =>
        services.externalAccounts.createExternalAccountInTx(trx, scope, { customerId: cust, ...valid('MXN_ACCOUNT') }),
      );
      assert.equal(created.status, 'ACTIVE');
      await assert.rejects(
        server.app.store.tx((trx) =>
          services.externalAccounts.createExternalAccountInTx(trx, scope, {
            customerId: cust,
            ...withInfo(valid('MXN_ACCOUNT'), { clabeNumber: '123' }),
          }),
        ),
        (err: any) => err.status === 400 && err.details.field === 'accountInfo.clabeNumber',
      );
      // A failure later in the caller's transaction takes the new account with it.
      await assert.rejects(
        server.app.store.tx(async (trx) => {
          await services.externalAccounts.createExternalAccountInTx(trx, scope, {
            customerId: cust,
            ...valid('USD_ACCOUNT'),
          });
          throw new Error('quote failed');
        }),
        /quote failed/,
      );
      const list = await a.api.get(`/customers/external-accounts?customerId=${encodeURIComponent(cust)}`);
      assert.deepEqual(
        list.body.data.map((x: any) => x.id),
        [created.id],
      );
      await assert.rejects(
        server.app.store.tx((trx) =>
          services.externalAccounts.requireUsableExternalAccount(
            trx,
            { ...scope, environment: 'production' },
            created.id,
          ),
        ),
        (err: any) => err.status === 404,
      );
    },
  );
});
