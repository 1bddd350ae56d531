import assert from 'node:assert/strict';
import type { AccountType } from '../../src/domain/account-types.ts';
import { BUILD } from '../external-accounts/fixtures.ts';
import type { TestPlatform, TestServer } from '../helpers/harness.ts';

let serial = 0;

/** A customer whose internal account in `currency` holds `amount` (smallest unit), funded through the sandbox. */
export async function fundedCustomer(
  p: Pick<TestPlatform, 'api'>,
  currency = 'USD',
  amount = 1_000_000,
): Promise<{ customerId: string; accountId: string }> {
  const customer = await p.api.post('/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `payer-${++serial}`,
    fullName: 'Pat Payer',
  });
  assert.equal(customer.status, 201);
  const accounts = await p.api.get(
    `/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}&currency=${currency}`,
  );
  const accountId = accounts.body.data[0].id as string;
  if (amount > 0)
    assert.equal((await p.api.post(`/sandbox/internal-accounts/${accountId}/fund`, { amount })).status, 200);
  return { customerId: customer.body.id, accountId };
}

/** An ACTIVE external account of `type` whose primary identifier ends in `tail` (the sandbox outcome). */
export async function externalAccount(
  p: Pick<TestPlatform, 'api'>,
  customerId: string | null,
  type: AccountType,
  tail: string,
): Promise<string> {
  const body = { ...BUILD[type](tail), ...(customerId ? { customerId } : {}) };
  const res = await p.api.post(customerId ? '/customers/external-accounts' : '/platform/external-accounts', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

/**
 * A transfer-out of `amount` from a new customer whose account held `funds`, to a USD account that settles at
 * once (`…000`): answered 201, PENDING until its rail step runs.
 */
export async function transferOut(
  p: Pick<TestPlatform, 'api'>,
  amount: number,
  funds = 10_000,
): Promise<{ id: string; customerId: string; accountId: string }> {
  const { customerId, accountId } = await fundedCustomer(p, 'USD', funds);
  const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
  const res = await p.api.post('/transfer-out', {
    source: { accountId },
    destination: { accountId: destination },
    amount,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.id, customerId, accountId };
}

/** A quote from an internal account to an external one, locked on the sending side; answers its body (201). */
export async function accountQuote(
  p: Pick<TestPlatform, 'api'>,
  accountId: string,
  destination: string,
  amount: number,
): Promise<{ id: string; [field: string]: unknown }> {
  const quote = await p.api.post('/quotes', {
    source: { sourceType: 'ACCOUNT', accountId },
    destination: { destinationType: 'ACCOUNT', accountId: destination },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: amount,
  });
  assert.equal(quote.status, 201, JSON.stringify(quote.body));
  return quote.body;
}

/** The balance of a customer's internal account, read through the API. */
export async function balance(p: TestPlatform, customerId: string, currency = 'USD'): Promise<number> {
  const res = await p.api.get(
    `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=${currency}`,
  );
  return res.body.data[0].balance.amount;
}

/** Runs every job that is due now (the rail steps queued by transfers), as the background worker would. */
export async function runDueJobs(server: TestServer): Promise<void> {
  await server.app.services.worker.drain();
}

/** The event types recorded for one object, in order. */
export async function eventTypes(server: TestServer, objectId: string): Promise<string[]> {
  const rows = await server.app.store.db
    .selectFrom('events')
    .select('type')
    .where('object_id', '=', objectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.type);
}
