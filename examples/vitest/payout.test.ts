// A payout, end to end, against the sandbox that global-setup.ts started: a customer is funded, pays out to
// a bank account, and the test waits for the signed OUTGOING_PAYMENT.COMPLETED webhook.
import { connectSandbox, type SandboxWorkspace } from '@payouts-sandbox/server';
import { afterAll, expect, inject, test } from 'vitest';

// Workspaces made through this connection send their webhooks to a receiver in this worker: on a free port,
// or with WEBHOOK_PORT_BASE set, on that base plus this worker's number (VITEST_POOL_ID, 1 to maxWorkers).
const base = Number(process.env.WEBHOOK_PORT_BASE || 0);
const webhookPort = base && base + Number(process.env.VITEST_POOL_ID);
const sandbox = await connectSandbox(inject('sandboxBaseUrl'), { webhookPort });
afterAll(() => sandbox.close());

/** One API call with the workspace's credentials: what any HTTP client (or an official SDK) sends. */
async function api(ws: SandboxWorkspace, method: string, path: string, body?: unknown) {
  const response = await fetch(`${ws.baseUrl}${path}`, {
    method,
    headers: { authorization: ws.credentials.authorization, 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

test('the credentials from globalSetup work', async () => {
  const { tokenId, clientSecret } = inject('sandboxCredentials');
  const response = await fetch(`${inject('sandboxBaseUrl')}/customers`, {
    headers: { authorization: `Basic ${Buffer.from(`${tokenId}:${clientSecret}`).toString('base64')}` },
  });
  expect(response.status).toBe(200);
});

test('a funded customer pays out, and the COMPLETED webhook arrives signed', async () => {
  // A workspace of its own: nothing another test does is visible here.
  const ws = await sandbox.newWorkspace({ name: 'payout-test' });

  const customer = await api(ws, 'POST', '/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: 'user-1',
    fullName: 'Ada Lovelace',
  });
  const accounts = await api(ws, 'GET', `/customers/internal-accounts?customerId=${customer.id}&currency=USD`);
  const accountId = accounts.data[0].id;
  await api(ws, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 10_000 });

  // The last three digits of the account number pick the sandbox's outcome: 002 to 005 make a payout fail on
  // purpose, and any suffix the README's sandbox table does not list (000 here) completes.
  const bank = await api(ws, 'POST', '/customers/external-accounts', {
    customerId: customer.id,
    currency: 'USD',
    accountInfo: {
      accountType: 'USD_ACCOUNT',
      accountNumber: '123456000',
      routingNumber: '021000021',
      beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
    },
  });
  const payout = await api(ws, 'POST', '/transfer-out', {
    source: { accountId },
    destination: { accountId: bank.id },
    amount: 2_500,
  });

  const webhook = await ws.webhooks.waitFor('OUTGOING_PAYMENT.COMPLETED', {
    match: (delivery) => delivery.data.id === payout.id,
  });
  expect(webhook.signatures).toMatchObject({ grid: true, standard: true });
  expect(webhook.data.status).toBe('COMPLETED');

  const after = await api(ws, 'GET', `/customers/internal-accounts?customerId=${customer.id}&currency=USD`);
  expect(after.data[0].balance.amount).toBe(7_500);
});
