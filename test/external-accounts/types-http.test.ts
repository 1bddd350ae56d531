import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { ACCOUNT_TYPE_NAMES, accountTypeRule, type AccountType } from '../../src/domain/account-types.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import {
  BUILD,
  BUSINESS_FLAT,
  BUSINESS_INFO,
  REJECTIONS,
  UNSUPPORTED_CURRENCY_TYPES,
  valid,
  withInfo,
  type AccountRequest,
} from './fixtures.ts';

describe('external accounts over HTTP: every type, every rule, every sandbox suffix', () => {
  let p: TestPlatform;
  let customerId: string;
  const server = useServer();
  before(async () => {
    p = await server.platform('types');
    const created = await p.api.post('/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: 'types-1',
      fullName: 'Jane Doe',
    });
    customerId = created.body.id;
  });

  const createFor = (req: AccountRequest) => p.api.post('/customers/external-accounts', { customerId, ...req });
  const count = async () =>
    (await p.api.get(`/customers/external-accounts?customerId=${encodeURIComponent(customerId)}&limit=1`)).body
      .totalCount as number;

  for (const type of ACCOUNT_TYPE_NAMES) {
    it(`${type}: a valid customer account is created and echoed`, async () => {
      const req = valid(type, { platformAccountId: `pa-${type}` });
      const res = await createFor(req);
      if (UNSUPPORTED_CURRENCY_TYPES.includes(type)) {
        assert.equal(res.status, 400);
        assert.deepEqual(
          [res.body.code, res.body.details.field, res.body.details.rule],
          ['INVALID_INPUT', 'currency', 'supportedCurrency'],
        );
        assert.match(res.body.message, new RegExp(`${req.currency} is not a currency this service supports`));
        return;
      }
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const a = res.body;
      assert.match(a.id, /^ExternalAccount:[0-9a-f-]{36}$/);
      assert.equal(a.status, 'ACTIVE');
      assert.equal(a.currency, req.currency);
      assert.equal(a.customerId, customerId);
      assert.equal(a.platformAccountId, `pa-${type}`);
      assert.equal(a.defaultUmaDepositAccount, false);
      // The echo is exactly what was sent (extra fields like bankName included), plus the discriminators
      // and, when none were sent, the rails the type runs on.
      const rails = accountTypeRule(type)?.paymentRails ?? [];
      const defaults = rails.length > 0 && !('paymentRails' in req.accountInfo) ? { paymentRails: [...rails] } : {};
      assert.deepEqual(a.accountInfo, { ...req.accountInfo, ...defaults });
      const needsName = 'beneficiary' in req.accountInfo;
      // Suffix 000 is "any other": MATCHED for every type, with the name spelled only when there is one.
      assert.equal(a.beneficiaryVerificationStatus, 'MATCHED');
      if (needsName) assert.deepEqual(a.beneficiaryVerifiedData, { fullName: 'JANE DOE' });
      assert.equal(a.createdAt, a.updatedAt);
      const fetched = await p.api.get(`/customers/external-accounts/${a.id}`);
      assert.deepEqual(fetched.body, a);
    });
  }

  it(
    'accepts a wallet without beneficiary for a customer, and ' + 'bank accounts without one for the platform',
    async () => {
      assert.equal((await createFor(valid('SPARK_WALLET'))).status, 201);
      const bank = withInfo(valid('NGN_ACCOUNT'), { beneficiary: undefined });
      const res = await p.api.post('/platform/external-accounts', bank);
      assert.equal(res.status, 201);
      assert.equal(res.body.customerId, null);
      assert.equal(res.body.beneficiaryVerificationStatus, 'MATCHED');
      assert.equal(res.body.beneficiaryVerifiedData, undefined, 'no name to spell');
    },
  );

  it('accepts both business beneficiary shapes and an address without state', async () => {
    const flat = await createFor(withInfo(valid('GBP_ACCOUNT'), { beneficiary: BUSINESS_FLAT }));
    assert.equal(flat.status, 201);
    assert.deepEqual(flat.body.beneficiaryVerifiedData, { fullName: 'ACME LTD' });
    const nested = await createFor(withInfo(valid('KES_ACCOUNT'), { beneficiary: BUSINESS_INFO }));
    assert.equal(nested.status, 201, JSON.stringify(nested.body));
    assert.deepEqual(nested.body.accountInfo.beneficiary, BUSINESS_INFO);
  });

  it('takes legacy and current names side by side, each echoed as given', async () => {
    const pairs: [AccountType, AccountType][] = [
      ['US_ACCOUNT', 'USD_ACCOUNT'],
      ['CLABE', 'MXN_ACCOUNT'],
      ['PIX', 'BRL_ACCOUNT'],
      ['IBAN', 'EUR_ACCOUNT'],
      ['UPI', 'INR_ACCOUNT'],
      ['LIGHTNING_ACCOUNT', 'LIGHTNING'],
    ];
    for (const [legacy, current] of pairs) {
      for (const type of [legacy, current]) {
        const res = await createFor(valid(type));
        assert.equal(res.status, 201, `${type}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.accountInfo.accountType, type);
      }
    }
    // Current names take the reference's lighter individual rule; legacy names the specification's.
    const light = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Doe' };
    assert.equal((await createFor(withInfo(valid('MXN_ACCOUNT'), { beneficiary: light }))).status, 201);
    assert.equal((await createFor(withInfo(valid('CLABE'), { beneficiary: light }))).status, 400);
  });

  for (const r of REJECTIONS) {
    it(`400 for ${r.name}, naming ${r.field} and ${r.rule}; nothing stored`, async () => {
      const previous = await count();
      const res = await createFor(r.request());
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(
        [res.body.status, res.body.code, res.body.details.field, res.body.details.rule],
        [400, 'INVALID_INPUT', r.field, r.rule],
      );
      assert.equal(typeof res.body.message, 'string');
      assert.equal(await count(), previous);
    });
  }

  it('rejects envelope errors through the schema with the field named', async () => {
    const noInfo = await p.api.post('/customers/external-accounts', { customerId, currency: 'USD' });
    assert.deepEqual([noInfo.status, noInfo.body.details.field], [400, 'accountInfo']);
    const badCurrency = await createFor({ ...valid('USD_ACCOUNT'), currency: 'usd' });
    assert.deepEqual([badCurrency.status, badCurrency.body.details.field], [400, 'currency']);
    const notBool = await createFor({ ...valid('USD_ACCOUNT'), defaultUmaDepositAccount: 'yes' });
    assert.deepEqual([notBool.status, notBool.body.details.field], [400, 'defaultUmaDepositAccount']);
  });

  describe('sandbox beneficiary verification by suffix', () => {
    const named: [string, string, string | undefined][] = [
      ['102', 'NOT_MATCHED', 'MARIA FERNANDA OLIVEIRA'],
      ['103', 'PARTIAL_MATCH', 'JANE DOEE'],
      ['104', 'PENDING', undefined],
      ['106', 'UNSUPPORTED', undefined],
      ['107', 'CHECKED_BY_RECEIVING_FI', undefined],
      ['108', 'MATCHED', 'JANE DOE'],
      ['555', 'MATCHED', 'JANE DOE'],
    ];
    // The suffix is read from the account number, the phone, the IBAN, and before the @ of PIX e-mail keys and UPI
    // addresses.
    const carriers: AccountType[] = ['US_ACCOUNT', 'KES_ACCOUNT', 'EUR_ACCOUNT', 'PIX', 'INR_ACCOUNT'];
    for (const type of carriers) {
      for (const [suffix, status, name] of named) {
        it(`${type} ending ${suffix} → ${status}, still ACTIVE`, async () => {
          const res = await createFor(BUILD[type](suffix));
          assert.equal(res.status, 201, JSON.stringify(res.body));
          assert.equal(res.body.beneficiaryVerificationStatus, status);
          assert.equal(res.body.status, 'ACTIVE');
          assert.deepEqual(res.body.beneficiaryVerifiedData, name === undefined ? undefined : { fullName: name });
        });
      }
      it(`${type} ending 105 → 400 INVALID_BANK_ACCOUNT, 109 → 500 GRID_SWITCH_ERROR, nothing stored`, async () => {
        const previous = await count();
        const invalid = await createFor(BUILD[type]('105'));
        assert.deepEqual([invalid.status, invalid.body.status, invalid.body.code], [400, 400, 'INVALID_BANK_ACCOUNT']);
        const simulated = await createFor(BUILD[type]('109'));
        assert.deepEqual(
          [simulated.status, simulated.body.status, simulated.body.code],
          [500, 500, 'GRID_SWITCH_ERROR'],
        );
        assert.match(simulated.body.message, /[Ss]imulated sandbox/);
        assert.equal(await count(), previous);
      });
    }
    // Accounts without a beneficiary name (wallets, Lightning) follow the same table: only the spelled
    // name needs a name.
    for (const type of ['SPARK_WALLET', 'LIGHTNING'] as const) {
      for (const [suffix, status] of named) {
        it(`${type} ending ${suffix} → ${status}, with no verified name`, async () => {
          const res = await createFor(BUILD[type](suffix));
          assert.equal(res.status, 201, JSON.stringify(res.body));
          assert.equal(res.body.beneficiaryVerificationStatus, status);
          assert.equal(res.body.beneficiaryVerifiedData, undefined);
        });
      }
    }
  });

  it('a 400 names every invalid field at once, and writes nothing', async () => {
    const accountsBefore = await count();
    const req = valid('USD_ACCOUNT');
    const res = await createFor({
      ...req,
      cryptoNetwork: 'ETHEREUM',
      accountInfo: { ...req.accountInfo, routingNumber: '12', nickname: 'x', paymentRails: ['SPEI'] },
    } as AccountRequest);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    const fields = res.body.details.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, [
      'accountInfo.nickname',
      'accountInfo.paymentRails.0',
      'accountInfo.routingNumber',
      'cryptoNetwork',
    ]);
    assert.equal(res.body.details.field, res.body.details.errors[0].field, 'the first is also details.field');
    assert.equal(await count(), accountsBefore, 'nothing was written');
  });
});
