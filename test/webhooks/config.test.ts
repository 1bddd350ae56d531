import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { client, startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { startReceiver, type Receiver } from './helpers.ts';

const usd = {
  currencyCode: 'USD',
  minAmount: 100,
  maxAmount: 1_000_000,
  requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }],
  enabledTransactionTypes: ['OUTGOING'],
};
const eur = {
  currencyCode: 'EUR',
  minAmount: 1,
  maxAmount: 500_000,
  requiredCounterpartyFields: [],
  enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
};

describe('platform configuration', () => {
  let server: TestServer;
  let p: TestPlatform;
  let r: Receiver;
  before(async () => {
    server = await startServer({ JOB_POLL_MS: '60000', WEBHOOK_TIMEOUT_MS: '500' });
    p = await server.platform();
    r = await startReceiver();
  });
  after(async () => {
    await r.close();
    await server.close();
  });
  const drain = () => server.app.services.worker.drain({ platformId: p.platformId });

  it("GET /config shows the configuration and this environment's verification keys", async () => {
    const res = await p.api.get('/config');
    assert.equal(res.status, 200);
    const c = res.body;
    assert.match(c.id, /^PlatformConfig:/);
    assert.equal('webhookEndpoint' in c, false, 'left out until one is set (the contract says string)');
    assert.equal(c.isRegulatedFinancialInstitution, false);
    assert.equal(c.webhookEnvelope, 'LEGACY');
    assert.equal(c.webhookEndpointFailingSince, null);
    assert.deepEqual(c.supportedCurrencies[0], {
      currencyCode: 'USD',
      minAmount: 1,
      maxAmount: 100_000_000_000,
      requiredCounterpartyFields: [],
      enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
    });
    assert.match(c.webhookPublicKey, /^-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE/);
    assert.match(c.webhookStandardPublicKey, /^whpk_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual((await p.api.get('/config')).body.webhookPublicKey, c.webhookPublicKey, 'keys are stable');
    const prod = (await p.prod.get('/config')).body;
    assert.notEqual(prod.webhookPublicKey, c.webhookPublicKey, 'one key per environment');
    assert.notEqual(prod.id, c.id);
    // Private keys are never stored in clear.
    const rows = await server.app.store.db
      .selectFrom('webhook_keys')
      .selectAll()
      .where('platform_id', '=', p.platformId)
      .execute();
    assert.equal(rows.length, 4);
    for (const row of rows) assert.doesNotMatch(row.sealed_private_key, /PRIVATE KEY|^MC4CAQ|^MIGHAgEA/);
  });

  it("takes the newest contract's blocks for products it does not have, and keeps none of them", async () => {
    const earlier = (await p.api.get('/config')).body;
    const res = await p.api.patch('/config', {
      supportedCurrencies: earlier.supportedCurrencies.map((c: object) => ({
        ...c,
        providerRequiredCustomerFields: ['EMAIL'],
      })),
      embeddedWalletConfig: { enabled: true },
      cardTokenization2faConfig: { method: 'SMS' },
      feeConfigs: [{ feeType: 'FIXED', sourceCurrency: 'USD', fixedFee: { amount: 10, currency: { code: 'USD' } } }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const later = (await p.api.get('/config')).body;
    assert.deepEqual(later.supportedCurrencies, earlier.supportedCurrencies, 'the provider list is not kept');
    for (const field of ['embeddedWalletConfig', 'cardTokenization2faConfig', 'feeConfigs'])
      assert.equal(later[field], undefined, `${field} is not echoed`);
    const unknown = await p.api.patch('/config', { walletConfig: {} });
    assert.deepEqual([unknown.status, unknown.body.details?.field], [400, 'walletConfig'], 'unknown is still refused');
  });

  it('checks permissions: VIEW reads, MANAGE writes', async () => {
    const token = await p.api.post('/tokens', { name: 'viewer', permissions: ['VIEW'] });
    const viewer = client(server.baseUrl, { tokenId: token.body.id, clientSecret: token.body.clientSecret });
    assert.equal((await viewer.get('/config')).status, 200);
    const denied = await viewer.patch('/config', { webhookEnvelope: 'CURRENT' });
    assert.equal(denied.status, 403);
    assert.equal((await client(server.baseUrl).get('/config')).status, 401);
  });

  it('refuses bad input with a 400 naming the field, and writes nothing', async () => {
    const cases: Array<[unknown, string, 'api' | 'prod']> = [
      [{ webhookEndpoint: 'not a url' }, 'webhookEndpoint', 'api'],
      [{ webhookEndpoint: 'ftp://example.com/x' }, 'webhookEndpoint', 'api'],
      [{ webhookEndpoint: 'http://example.com/hook' }, 'webhookEndpoint', 'prod'],
      [{ webhookEndpoint: 'https://u:p@example.com/hook' }, 'webhookEndpoint', 'api'],
      [{ webhookEndpoint: 42 }, 'webhookEndpoint', 'api'],
      [{ umaDomain: 'not a domain' }, 'umaDomain', 'api'],
      [{ webhookEnvelope: 'NEWEST' }, 'webhookEnvelope', 'api'],
      [{ supportedCurrencies: [] }, 'supportedCurrencies', 'api'],
      [{ supportedCurrencies: [{ ...usd, currencyCode: 'XXX' }] }, 'supportedCurrencies.0.currencyCode', 'api'],
      [{ supportedCurrencies: [usd, usd] }, 'supportedCurrencies.1.currencyCode', 'api'],
      [{ supportedCurrencies: [{ ...usd, minAmount: 10, maxAmount: 5 }] }, 'supportedCurrencies.0.minAmount', 'api'],
      [{ supportedCurrencies: [{ ...usd, minAmount: -1 }] }, 'supportedCurrencies.0.minAmount', 'api'],
      [
        { supportedCurrencies: [{ ...usd, enabledTransactionTypes: ['SIDEWAYS'] }] },
        'supportedCurrencies.0.enabledTransactionTypes.0',
        'api',
      ],
      [
        { supportedCurrencies: [{ ...usd, requiredCounterpartyFields: [{ name: 'SHOE_SIZE', mandatory: true }] }] },
        'supportedCurrencies.0.requiredCounterpartyFields.0.name',
        'api',
      ],
      [{ isRegulatedFinancialInstitution: true }, 'isRegulatedFinancialInstitution', 'api'],
      // Valid endpoint, invalid currency: all or nothing.
      [
        { webhookEndpoint: 'https://example.com/x', supportedCurrencies: [usd, usd] },
        'supportedCurrencies.1.currencyCode',
        'api',
      ],
    ];
    for (const [body, field, who] of cases) {
      const res = await p[who].patch('/config', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'INVALID_INPUT');
      assert.equal(res.body.details.field, field, JSON.stringify(body));
    }
    const later = (await p.api.get('/config')).body;
    assert.equal(later.webhookEndpoint, undefined);
    assert.equal(later.supportedCurrencies.length, 14);
    assert.equal((await p.api.get('/webhook-events')).body.totalCount, 0);
  });

  it('sends one TEST to a new endpoint after the change commits, none for the same URL or for null', async () => {
    const res = await p.api.patch('/config', {
      webhookEndpoint: r.url,
      umaDomain: 'Pay.Example.com',
      webhookEnvelope: 'CURRENT',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.webhookEndpoint, r.url);
    assert.equal(res.body.umaDomain, 'pay.example.com');
    assert.equal(res.body.webhookEnvelope, 'CURRENT');
    assert.ok(
      Date.parse(res.body.updatedAt) >= Date.parse(res.body.createdAt),
      'Date.parse(res.body.updatedAt) >= Date.parse(res.body.createdAt)',
    );
    await drain();
    assert.equal(r.received.length, 1);
    assert.equal(r.received[0]!.body.type, 'TEST');
    assert.deepEqual(r.received[0]!.body.data, {});
    await p.api.patch('/config', { webhookEndpoint: r.url });
    await drain();
    assert.equal(r.received.length, 1, 'unchanged endpoint: no TEST');
    const cleared = await p.api.patch('/config', { webhookEndpoint: null });
    assert.equal('webhookEndpoint' in cleared.body, false, 'cleared: left out again');
    await drain();
    const tests = (await p.api.get('/webhook-events?type=TEST')).body;
    assert.equal(tests.totalCount, 1);
    assert.equal(tests.data[0].deliveryState, 'DELIVERED');
    // Production accepts https; its TEST is queued like any other.
    const prod = await p.prod.patch('/config', { webhookEndpoint: 'https://hooks.example.com/hook' });
    assert.equal(prod.status, 200);
    assert.equal((await p.prod.get('/webhook-events?type=TEST')).body.totalCount, 1);
    assert.equal((await p.api.get('/webhook-events?type=TEST')).body.totalCount, 1, 'environments are separate');
  });

  it(
    'opens accounts for an added currency (platform and existing ' + 'customers) and stops them for a removed one',
    async () => {
      const q = await server.platform();
      const only = await q.api.patch('/config', { supportedCurrencies: [usd] });
      assert.equal(only.status, 200);
      assert.deepEqual(only.body.supportedCurrencies, [usd]);
      const alice = (await q.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'alice' })).body;
      const accountsOf = async (customerId: string) =>
        (await q.api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`)).body.data
          .map((a: any) => a.balance.currency.code)
          .sort();
      assert.deepEqual(await accountsOf(alice.id), ['USD']);

      const both = await q.api.patch('/config', { supportedCurrencies: [usd, eur] });
      assert.equal(both.status, 200);
      assert.deepEqual(await accountsOf(alice.id), ['EUR', 'USD'], 'the existing customer got an EUR account');
      const platformEur = (await q.api.get('/platform/internal-accounts?currency=EUR')).body.data;
      assert.equal(platformEur.length, 1);

      await q.api.patch('/config', { supportedCurrencies: [eur] });
      const bob = (await q.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'bob' })).body;
      assert.deepEqual(await accountsOf(bob.id), ['EUR'], 'no new USD accounts');
      assert.deepEqual(await accountsOf(alice.id), ['EUR', 'USD'], 'existing accounts stay');
    },
  );
});
