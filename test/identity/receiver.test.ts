import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { requireLookup } from '../../src/services/receiver-lookups.ts';
import { SANDBOX_TEST_RECEIVER_ADDRESSES } from '../../src/domain/uma-receivers.ts';
import { UMA_PROVIDERS } from '../../src/domain/uma-providers.ts';
import { createCustomer, individual } from './fixtures.ts';

describe('receiver lookups and UMA providers', () => {
  let p: TestPlatform;
  let other: TestPlatform;
  let sender: any;
  let receiver: any;
  const server = useServer();
  before(async () => {
    p = await server.platform('payer');
    other = await server.platform('other');
    sender = await createCustomer(p, individual('sender'));
    receiver = await createCustomer(p, individual('receiver'));
  });

  const byCustomer = () => `customerId=${encodeURIComponent(sender.id)}`;

  it('resolves every sandbox test address on both domains, raw or percent-encoded', async () => {
    const expected: Record<string, [string, number]> = {
      'success.usd': ['USD', 1],
      'success.eur': ['EUR', 0.92],
      'success.mxn': ['MXN', 17.25],
      'pending.long.usd': ['USD', 1],
      'fail.compliance.usd': ['USD', 1],
    };
    assert.equal(SANDBOX_TEST_RECEIVER_ADDRESSES.length, 10);
    for (const address of SANDBOX_TEST_RECEIVER_ADDRESSES) {
      const local = address.slice(1, address.indexOf('@'));
      for (const path of [address, encodeURIComponent(address)]) {
        const res = await p.api.get(`/receiver/uma/${path}?${byCustomer()}`);
        assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.receiverUmaAddress, address);
        assert.match(res.body.lookupId, /^Lookup:[0-9a-f-]{36}$/);
        const [code, rate] = expected[local]!;
        assert.deepEqual(res.body.supportedCurrencies, [
          {
            currency: {
              code,
              name: res.body.supportedCurrencies[0].currency.name,
              symbol: res.body.supportedCurrencies[0].currency.symbol,
              decimals: 2,
            },
            estimatedExchangeRate: rate,
            min: 1,
            max: 100_000_000_000,
          },
        ]);
        assert.deepEqual(res.body.requiredPayerDataFields, [
          { name: 'FULL_NAME', mandatory: true },
          { name: 'BIRTH_DATE', mandatory: false },
        ]);
      }
    }
  });

  it('stores the lookup for quotes: requireLookup returns the receiver, sender and currencies', async () => {
    const res = await p.api.get(
      '/receiver/uma/$pending.long.usd@sandbox.grid.uma.money' +
        `?senderUmaAddress=${encodeURIComponent(sender.umaAddress)}`,
    );
    assert.equal(res.status, 200);
    const { store } = server.app;
    const stored = await requireLookup(
      store.db,
      { platformId: p.platformId, environment: 'sandbox' },
      res.body.lookupId,
    );
    assert.deepEqual(stored.receiver, {
      type: 'UMA_ADDRESS',
      umaAddress: '$pending.long.usd@sandbox.grid.uma.money',
      customerId: null,
      sandboxBehaviour: 'PENDING_LONG',
    });
    assert.equal(stored.senderCustomerId, sender.id);
    assert.equal(stored.sendingCurrency, 'USD');
    assert.deepEqual(stored.supportedCurrencies, res.body.supportedCurrencies);
    await assert.rejects(
      requireLookup(store.db, { platformId: other.platformId, environment: 'sandbox' }, res.body.lookupId),
      { code: 'LOOKUP_REQUEST_NOT_FOUND' },
    );
    await assert.rejects(
      requireLookup(store.db, { platformId: p.platformId, environment: 'production' }, res.body.lookupId),
      { code: 'LOOKUP_REQUEST_NOT_FOUND' },
    );
  });

  it("resolves the platform's own customers with every supported currency and a sandbox estimate", async () => {
    const res = await p.api.get(`/receiver/uma/${receiver.umaAddress}?${byCustomer()}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.requiredPayerDataFields, undefined);
    const codes = res.body.supportedCurrencies.map((c: any) => c.currency.code);
    assert.ok(
      codes.includes('USD') && codes.includes('BTC') && codes.length === 14,
      "codes.includes('USD') && codes.includes('BTC') && codes.length === 14",
    );
    assert.equal(res.body.supportedCurrencies.find((c: any) => c.currency.code === 'INR').estimatedExchangeRate, 82.5);
    const stored = await requireLookup(
      server.app.store.db,
      { platformId: p.platformId, environment: 'sandbox' },
      res.body.lookupId,
    );
    assert.deepEqual(stored.receiver, {
      type: 'UMA_ADDRESS',
      umaAddress: receiver.umaAddress,
      customerId: receiver.id,
      sandboxBehaviour: null,
    });
    const self = await p.api.get(`/receiver/uma/${receiver.umaAddress}?customerId=${encodeURIComponent(receiver.id)}`);
    assert.equal(self.status, 400);
    assert.equal(self.body.code, 'SELF_PAYMENT');
  });

  it('answers 404 for unknown receivers, another platform or production for test addresses', async () => {
    for (const address of [
      '$nobody@sandbox.uma.money',
      '$success.gbp@sandbox.uma.money',
      '$success.usd@uma.example.com',
    ]) {
      const res = await p.api.get(`/receiver/uma/${encodeURIComponent(address)}?${byCustomer()}`);
      assert.equal(res.status, 404, address);
      assert.equal(res.body.code, 'UMA_NOT_FOUND');
    }
    const theirs = await createCustomer(other, individual('theirs'));
    assert.equal((await p.api.get(`/receiver/uma/${theirs.umaAddress}?${byCustomer()}`)).body.code, 'UMA_NOT_FOUND');
    const prodSender = await createCustomer(p, individual('prod-sender'), true);
    const prod = await p.prod.get(
      `/receiver/uma/$success.usd@sandbox.uma.money?customerId=${encodeURIComponent(prodSender.id)}`,
    );
    assert.equal(prod.status, 404, 'test receivers exist only in the sandbox');
  });

  it('offers production only same-currency receiving: no rate is invented', async () => {
    const a = await createCustomer(p, individual('prod-a'), true);
    const b = await createCustomer(p, individual('prod-b'), true);
    const res = await p.prod.get(`/receiver/uma/${b.umaAddress}?customerId=${encodeURIComponent(a.id)}`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.supportedCurrencies.map((c: any) => [c.currency.code, c.estimatedExchangeRate]),
      [['USD', 1]],
    );
  });

  it('needs exactly one of senderUmaAddress and customerId, naming a customer of the platform', async () => {
    const address = '$success.usd@sandbox.uma.money';
    const neither = await p.api.get(`/receiver/uma/${address}`);
    assert.equal(neither.status, 400);
    assert.equal(neither.body.details.field, 'customerId');
    const both = await p.api.get(
      `/receiver/uma/${address}?${byCustomer()}&senderUmaAddress=${encodeURIComponent(sender.umaAddress)}`,
    );
    assert.equal(both.status, 400);
    const badSender = await p.api.get(`/receiver/uma/${address}?senderUmaAddress=bob`);
    assert.equal(badSender.status, 400);
    assert.equal(badSender.body.details.field, 'senderUmaAddress');
    assert.equal(
      (await p.api.get(`/receiver/uma/${address}?senderUmaAddress=${encodeURIComponent('$stranger@example.com')}`))
        .status,
      404,
    );
    assert.equal((await p.api.get(`/receiver/uma/${address}?customerId=Customer:nope`)).status, 404);
    const malformed = await p.api.get(`/receiver/uma/not-an-address?${byCustomer()}`);
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.code, 'INVALID_UMA_ADDRESS');
  });

  it("looks up the platform's external accounts and nothing else", async () => {
    const account = await p.api.post('/customers/external-accounts', {
      customerId: receiver.id,
      currency: 'MXN',
      accountInfo: {
        accountType: 'MXN_ACCOUNT',
        clabeNumber: '002010077777777771',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Receiver Person' },
      },
    });
    assert.equal(account.status, 201, JSON.stringify(account.body));
    for (const path of [account.body.id, encodeURIComponent(account.body.id)]) {
      const res = await p.api.get(`/receiver/external-account/${path}?${byCustomer()}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.accountId, account.body.id);
      assert.deepEqual(
        res.body.supportedCurrencies.map((c: any) => [c.currency.code, c.estimatedExchangeRate]),
        [['MXN', 17.25]],
      );
      const stored = await requireLookup(
        server.app.store.db,
        { platformId: p.platformId, environment: 'sandbox' },
        res.body.lookupId,
      );
      assert.deepEqual(stored.receiver, { type: 'EXTERNAL_ACCOUNT', accountId: account.body.id });
    }
    assert.equal(
      (
        await other.api.get(
          `/receiver/external-account/${account.body.id}` +
            `?customerId=${encodeURIComponent((await createCustomer(other, individual('o'))).id)}`,
        )
      ).status,
      404,
    );
    assert.equal((await p.api.get(`/receiver/external-account/ExternalAccount:nope?${byCustomer()}`)).status, 404);
    assert.equal((await p.api.get(`/receiver/external-account/${account.body.id}`)).status, 400);
  });

  describe('uma-providers', () => {
    it('lists every provider ordered by name (descending by default), with paging', async () => {
      const all = await p.api.get('/uma-providers?limit=100');
      assert.equal(all.status, 200);
      assert.equal(all.body.totalCount, UMA_PROVIDERS.length);
      assert.equal(all.body.hasMore, false);
      assert.equal(all.body.nextCursor, undefined);
      const names = all.body.data.map((x: any) => x.name);
      assert.deepEqual(
        names,
        [...names].sort((a: string, b: string) => b.localeCompare(a)),
      );
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = await p.api.get(`/uma-providers?limit=4&sortOrder=asc${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...page.body.data.map((x: any) => x.name));
        if (!page.body.hasMore) break;
        cursor = page.body.nextCursor;
      }
      assert.deepEqual(seen, [...names].reverse());
      assert.equal((await p.api.get('/uma-providers?cursor=garbage')).status, 400);
    });

    it('filters by country, currency and allow list', async () => {
      const kenya = await p.api.get('/uma-providers?countryCode=KE');
      assert.deepEqual(
        kenya.body.data.map((x: any) => x.domain),
        ['ke.uma.example'],
      );
      const mxn = await p.api.get('/uma-providers?currencyCode=MXN');
      assert.deepEqual(mxn.body.data.map((x: any) => x.domain).sort(), ['sandbox.grid.uma.money', 'sandbox.uma.money']);
      const brl = await p.api.get('/uma-providers?currencyCode=BRL');
      assert.equal(brl.body.totalCount, 1);
      assert.equal(brl.body.data[0].allowListStatus, false);
      assert.equal((await p.api.get('/uma-providers?currencyCode=BRL&hasBlockedProviders=false')).body.totalCount, 0);
      assert.equal(
        (await p.api.get('/uma-providers?hasBlockedProviders=false')).body.totalCount,
        UMA_PROVIDERS.length - 1,
      );
      assert.equal((await p.api.get('/uma-providers?countryCode=USA')).status, 400);
    });
  });
});
