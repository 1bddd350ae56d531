import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { CURRENCY_CODES } from '../../src/domain/currencies.ts';

describe('customers', () => {
  let p: TestPlatform;
  const server = useServer();
  before(async () => {
    p = await server.platform();
  });

  const individual = {
    customerType: 'INDIVIDUAL',
    platformCustomerId: 'ind-1',
    fullName: 'Ada Lovelace',
    birthDate: '1990-02-28',
    nationality: 'GB',
    address: { line1: '1 Main St', city: 'London', postalCode: 'N1 9GU', country: 'GB' },
  };

  it('creates an individual with one internal account per supported currency', async () => {
    const res = await p.api.post('/customers', individual);
    assert.equal(res.status, 201);
    assert.match(res.body.id, /^Customer:[0-9a-f-]{36}$/);
    assert.equal(res.body.kycStatus, 'APPROVED', 'the sandbox approves KYC at once');
    assert.equal(res.body.isDeleted, false);
    assert.match(res.body.umaAddress, /^\$.+@.+/);
    assert.equal(res.body.fullName, 'Ada Lovelace');
    const accounts = await p.api.get(
      `/customers/internal-accounts?customerId=${encodeURIComponent(res.body.id)}&limit=100`,
    );
    assert.equal(accounts.body.totalCount, CURRENCY_CODES.length);
    assert.deepEqual(accounts.body.data.map((a: any) => a.balance.currency.code).sort(), [...CURRENCY_CODES].sort());
    assert.ok(
      accounts.body.data.every((a: any) => a.customerId === res.body.id && a.balance.amount === 0),
      'accounts.body.data.every((a: any) => a.customerId === res.body.id && a.balance.amount === 0)',
    );
  });

  it('creates a business and starts production customers unverified', async () => {
    const res = await p.prod.post('/customers', {
      customerType: 'BUSINESS',
      platformCustomerId: 'biz-1',
      businessInfo: { legalName: 'Acme Ltd', country: 'US', incorporatedOn: '2015-06-01', entityType: 'LLC' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.kybStatus, 'UNVERIFIED');
    assert.deepEqual(res.body.beneficialOwners, []);
    assert.equal(res.body.businessInfo.legalName, 'Acme Ltd');
  });

  it('rejects impossible dates, unknown countries and misplaced fields', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...individual, birthDate: '2023-02-30' }, 'birthDate'],
      [{ ...individual, nationality: 'XX' }, 'nationality'],
      [{ ...individual, address: { ...individual.address, country: 'ZZ' } }, 'address.country'],
      [{ customerType: 'BUSINESS', platformCustomerId: 'b', businessInfo: { taxId: '1' } }, 'businessInfo.legalName'],
      [{ customerType: 'BUSINESS', platformCustomerId: 'b', fullName: 'Not a business field' }, 'customerType'],
      [{ ...individual, umaAddress: 'not-an-address' }, 'umaAddress'],
    ];
    const previous = (await p.api.get('/customers?isIncludingDeleted=true')).body.totalCount;
    for (const [body, field] of cases) {
      const res = await p.api.post('/customers', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.details.field, field);
    }
    assert.equal(
      (await p.api.get('/customers?isIncludingDeleted=true')).body.totalCount,
      previous,
      'nothing was written',
    );
  });

  it('answers 409 for a UMA address already taken, on create and on update', async () => {
    const first = await p.api.post('/customers', {
      ...individual,
      platformCustomerId: 'u-a',
      umaAddress: '$taken@example.com',
    });
    assert.equal(first.status, 201);
    const second = await p.api.post('/customers', {
      ...individual,
      platformCustomerId: 'u-b',
      umaAddress: '$taken@example.com',
    });
    assert.equal(second.status, 409);
    assert.equal(second.body.code, 'UMA_ADDRESS_EXISTS');
    const other = await p.api.post('/customers', { ...individual, platformCustomerId: 'u-c' });
    const clash = await p.api.patch(`/customers/${other.body.id}`, {
      customerType: 'INDIVIDUAL',
      umaAddress: '$taken@example.com',
    });
    assert.equal(clash.status, 409);
    assert.equal((await p.api.get(`/customers/${other.body.id}`)).body.umaAddress, other.body.umaAddress);
  });

  it('updates given fields only and refuses a type change', async () => {
    const created = await p.api.post('/customers', { ...individual, platformCustomerId: 'upd' });
    const res = await p.api.patch(`/customers/${created.body.id}`, {
      customerType: 'INDIVIDUAL',
      fullName: 'Ada King',
      umaAddress: '$ada.king@example.com',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.fullName, 'Ada King');
    assert.equal(res.body.birthDate, individual.birthDate);
    assert.equal(res.body.umaAddress, '$ada.king@example.com');
    const typeChange = await p.api.patch(`/customers/${created.body.id}`, { customerType: 'BUSINESS' });
    assert.equal(typeChange.status, 400);
    assert.equal(typeChange.body.details.field, 'customerType');
  });

  it('deletes softly: 410 on a second delete and on update, hidden from lists unless asked', async () => {
    const created = await p.api.post('/customers', { ...individual, platformCustomerId: 'del' });
    const id = created.body.id;
    const deleted = await p.api.delete(`/customers/${id}`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.isDeleted, true);
    const again = await p.api.delete(`/customers/${id}`);
    assert.equal(again.status, 410);
    assert.equal(again.body.code, 'CUSTOMER_DELETED');
    assert.equal((await p.api.patch(`/customers/${id}`, { customerType: 'INDIVIDUAL', fullName: 'x' })).status, 410);
    assert.equal((await p.api.get(`/customers/${id}`)).body.isDeleted, true);
    const visible = await p.api.get('/customers?platformCustomerId=del');
    assert.equal(visible.body.totalCount, 0);
    const all = await p.api.get('/customers?platformCustomerId=del&isIncludingDeleted=true');
    assert.equal(all.body.totalCount, 1);
    assert.equal(
      (await p.api.get('/customers/Customer:00000000-0000-7000-8000-000000000000')).body.code,
      'USER_NOT_FOUND',
    );
  });

  it('filters by type, platform id, UMA address and time bounds (inclusive)', async () => {
    const created = await p.api.post('/customers', {
      ...individual,
      platformCustomerId: 'filter-me',
      umaAddress: '$filter.me@example.com',
    });
    const at = created.body.createdAt;
    const byUma = await p.api.get(`/customers?umaAddress=${encodeURIComponent('$filter.me@example.com')}`);
    assert.deepEqual(
      byUma.body.data.map((c: any) => c.id),
      [created.body.id],
    );
    const inclusive = await p.api.get(`/customers?createdAfter=${at}&createdBefore=${at}&platformCustomerId=filter-me`);
    assert.equal(inclusive.body.totalCount, 1);
    const later = new Date(Date.parse(at) + 1).toISOString();
    assert.equal((await p.api.get(`/customers?createdAfter=${later}&platformCustomerId=filter-me`)).body.totalCount, 0);
    const businesses = await p.api.get('/customers?customerType=BUSINESS');
    assert.ok(
      businesses.body.data.every((c: any) => c.customerType === 'BUSINESS'),
      "businesses.body.data.every((c: any) => c.customerType === 'BUSINESS')",
    );
    assert.equal((await p.api.get('/customers?createdAfter=yesterday')).status, 400);
  });
});
