// What the bank-file tests share: a CONNECTORS_FILE routing EUR to an iso20022 connector, valid IBANs, and a
// production customer whose EUR account a pull funded (routed to the bank connector, which cannot pull, so an
// operator settles it), paying out to external accounts through the API.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestPlatform, TestServer } from '../helpers/harness.ts';
import { schemaDirForTests } from '../helpers/iso20022.ts';
import { waitFor } from '../helpers/wait.ts';

/** A German IBAN for `account` (up to 10 digits) with its check digits computed. */
export function germanIban(account: number): string {
  const bban = `37040044${String(account).padStart(10, '0')}`;
  const numeric = `${bban}131400`; // D=13 E=14, then 00
  let remainder = 0;
  for (const digit of numeric) remainder = (remainder * 10 + Number(digit)) % 97;
  return `DE${String(98 - remainder).padStart(2, '0')}${bban}`;
}

export interface BankFolders {
  file: string;
  outbox: string;
  inbox: string;
}

/** Writes a RATES_FILE with EUR at 0.9 a dollar and these EUR fees (none by default); answers its path. */
export function eurRatesFile(dir: string, fees = { fixedMinor: 0, variableBps: 0 }): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'rates.json');
  writeFileSync(file, JSON.stringify({ unitsPerUsd: { USD: '1', EUR: '0.9' }, fees: { EUR: fees } }));
  return file;
}

/** Writes a CONNECTORS_FILE with one iso20022 connector `bank-eu` that EUR is routed to. */
export function bankConnectorsFile(dir: string, settings: Record<string, unknown> = {}): BankFolders {
  const outbox = join(dir, 'outbox');
  const inbox = join(dir, 'inbox');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'connectors.json');
  const connector = {
    type: 'iso20022',
    debtor: { name: 'Acme Payouts SA', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
    outbox,
    inbox,
    schemas: schemaDirForTests(),
    ...settings,
  };
  writeFileSync(
    file,
    JSON.stringify({ connectors: { 'bank-eu': connector }, routes: [{ currency: 'EUR', connector: 'bank-eu' }] }),
  );
  return { file, outbox, inbox };
}

let serial = 0;

/** A production customer whose EUR account holds `amount`: a pull routed to manual, settled by the operator. */
export async function fundedEurCustomer(server: TestServer, p: TestPlatform, amount: number) {
  const customer = await p.prod.post('/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `bank-${++serial}`,
  });
  assert.equal(customer.status, 201, JSON.stringify(customer.body));
  const customerId: string = customer.body.id;
  const accounts = await p.prod.get(
    `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=EUR`,
  );
  const eur: string = accounts.body.data[0].id;
  const source = await eurAccount(server, p, customerId, 'Funding Source', 9_000_000 + serial);
  const pull = await p.prod.post('/transfer-in', {
    source: { accountId: source },
    destination: { accountId: eur },
    amount,
  });
  assert.equal(pull.status, 201, JSON.stringify(pull.body));
  // A pull routed to a connector that cannot pull waits for an operator.
  await server.app.services.worker.drain();
  const pulled = async () => (await p.prod.get(`/transactions/${pull.body.id}`)).body.status === 'PROCESSING';
  await waitFor(pulled, 'the pull waiting for an operator');
  await server.app.services.transactions.resolveManually(pull.body.id, 'COMPLETE');
  return { customerId, eur };
}

/** An ACTIVE EUR external account of the customer, its holder `name`. */
export async function eurAccount(
  server: TestServer,
  p: TestPlatform,
  customerId: string,
  name: string,
  account: number,
): Promise<string> {
  const res = await p.prod.post('/customers/external-accounts', {
    customerId,
    currency: 'EUR',
    accountInfo: {
      accountType: 'EUR_ACCOUNT',
      iban: germanIban(account),
      swiftCode: 'COBADEFFXXX',
      beneficiary: {
        beneficiaryType: 'INDIVIDUAL',
        fullName: name,
        address: { line1: 'Hauptstraße 1', city: 'München', postalCode: '80331', country: 'DE' },
      },
    },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  await server.app.services.externalAccounts.activate(res.body.id);
  return res.body.id;
}

/** A transfer-out from the customer's EUR account, run through its rail step: PENDING, waiting for a file. */
export async function eurPayout(
  server: TestServer,
  p: TestPlatform,
  from: { customerId: string; eur: string },
  amount: number,
  name = 'Erika Mustermann',
): Promise<string> {
  const destination = await eurAccount(server, p, from.customerId, name, ++serial);
  const out = await p.prod.post('/transfer-out', {
    source: { accountId: from.eur },
    destination: { accountId: destination },
    amount,
    remittanceInformation: `Payout ${serial}`,
  });
  assert.equal(out.status, 201, JSON.stringify(out.body));
  await server.app.services.worker.drain();
  const id: string = out.body.id;
  const held = () =>
    server.app.store.db.selectFrom('rail_payments').select('state').where('transaction_id', '=', id).executeTakeFirst();
  await waitFor(async () => (await held())?.state === 'BATCHING', `${id} waiting for its file`);
  return id;
}
