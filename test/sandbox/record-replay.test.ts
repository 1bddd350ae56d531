// Record and replay: a session made by hand over real HTTP in one workspace (customer, its account funded, an
// external account, a quote executed, a transfer out), exported from the request log by the real CLI
// (`payouts logs export --fixture`), replayed by the real CLI (`payouts fixtures`) into a fresh workspace:
// the second workspace reaches the same state (the same objects, statuses and amounts; other ids).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engine, useServer, type Client, type TestPlatform } from '../helpers/harness.ts';
import { after, describe, it } from '../helpers/node-test.ts';
import { runCli, runCliOk } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';
import { fixtureFromLog } from '../../src/cli/log-fixture.ts';
import type { LoggedRequest } from '../../src/services/sandbox-requests.ts';

const ID = /[A-Z][A-Za-z]*:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;
/** A sandbox UMA address names its workspace: like an id, it differs from one workspace to the other. */
const UMA = /^\$[^@]+@[^@]+\.sandbox\.uma\.localhost$/;
const FINAL = new Set(['COMPLETED', 'FAILED', 'REFUNDED']);

/** The state a workspace holds, without what differs between two runs of the same requests: ids and times. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value === 'string')
    return ID.test(value) ? '<id>' : TIME.test(value) ? '<time>' : UMA.test(value) ? '<uma>' : value;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'nextCursor' && !/(^id|Id|At)$/.test(key))
      .map(([key, item]) => [key, comparable(item)]),
  );
}

async function stateOf(api: Client): Promise<Record<string, unknown>> {
  const read = async (path: string) => {
    const answer = await api.get(path);
    assert.equal(answer.status, 200, `GET ${path}`);
    return answer.body as { data: unknown[] };
  };
  const customers = await read('/customers');
  const accounts = await read('/customers/internal-accounts');
  return {
    customers: customers.data,
    internalAccounts: accounts.data,
    externalAccounts: (await read('/customers/external-accounts')).data,
    quotes: (await read('/quotes')).data,
    transactions: (await read('/transactions')).data,
  };
}

const creds = (p: TestPlatform) => ['--token-id', p.sandbox.tokenId, '--client-secret', p.sandbox.clientSecret];

describe(`record and replay (${engine})`, () => {
  const server = useServer({ SANDBOX_REQUEST_LOG_BODIES: 'true' });
  const folder = mkdtempSync(join(tmpdir(), 'payouts-record-'));
  after(() => rmSync(folder, { recursive: true, force: true }));
  const env = () => ({ PATH: process.env.PATH ?? '', PAYOUTS_URL: server.baseUrl });

  /** Every transaction of the workspace has reached its end (the sandbox rails answer on their own). */
  const settled = async (api: Client) =>
    ((await api.get('/transactions')).body as { data: Array<{ status: string }> }).data.every((t) =>
      FINAL.has(t.status),
    );

  /** The session, by hand: what a developer or an agent does over HTTP. */
  async function recordSession(api: Client): Promise<void> {
    const post = async (path: string, body?: unknown) => {
      const answer = await api.post(path, body);
      assert.ok(answer.status >= 200 && answer.status < 300, `POST ${path}: ${JSON.stringify(answer.body)}`);
      return answer.body as { id: string };
    };
    const customer = await post('/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: 'record-1',
      fullName: 'Ada Lovelace',
      birthDate: '1990-02-28',
      nationality: 'GB',
    });
    // Refused, and a read nothing later needs: neither becomes a step.
    assert.equal((await api.post('/customers', { customerType: 'NOBODY' })).status, 400);
    assert.equal((await api.get(`/customers/${customer.id}`)).status, 200);
    const accounts = (await api.get(`/customers/internal-accounts?customerId=${customer.id}&currency=USD`)).body as {
      data: Array<{ id: string }>;
    };
    const usd = accounts.data[0]?.id ?? assert.fail('the customer has a USD account');
    await post(`/sandbox/internal-accounts/${usd}/fund`, { amount: 100_000 });
    const bank = await post('/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '123456789',
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
      },
    });
    const quote = await post('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: usd },
      destination: { destinationType: 'ACCOUNT', accountId: bank.id },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    await post(`/quotes/${quote.id}/execute`);
    await post('/transfer-out', { source: { accountId: usd }, destination: { accountId: bank.id }, amount: 2_500 });
  }

  it('a session exported from the request log replays to the same state in a fresh workspace', async () => {
    const recorded = await server.platform('recorded');
    const { api } = recorded;
    await recordSession(api);
    await waitFor(() => settled(api), 'the recorded payments to settle', 30_000, 100);

    const file = join(folder, 'session.json');
    const exported = await runCliOk(['logs', 'export', '--fixture', file, ...creds(recorded)], env());
    assert.match(exported.stderr, /7 step\(s\) written to/);
    const text = readFileSync(file, 'utf8');
    const fixture = JSON.parse(text) as { fixtures: Array<{ name: string; method: string; path: string }> };
    assert.deepEqual(
      fixture.fixtures.map((s) => `${s.name} ${s.method} ${s.path}`),
      [
        'customers POST /customers',
        'get_customers_internal_accounts GET /customers/internal-accounts?customerId=${customers:id}&currency=USD',
        'sandbox_internal_accounts_fund POST ' +
          '/sandbox/internal-accounts/${get_customers_internal_accounts:data.0.id}/fund',
        'customers_external_accounts POST /customers/external-accounts',
        'quotes POST /quotes',
        'quotes_execute POST /quotes/${quotes:id}/execute',
        'transfer_out POST /transfer-out',
      ],
    );
    assert.doesNotMatch(text, ID, 'every id of the recorded workspace became a step reference');

    const replayed = await server.platform('replayed');
    await runCliOk(['fixtures', file, ...creds(replayed)], env());
    await waitFor(() => settled(replayed.api), 'the replayed payments to settle', 30_000, 100);
    const original = await stateOf(api);
    const replay = await stateOf(replayed.api);
    assert.equal((original.transactions as unknown[]).length, 2);
    assert.deepEqual(comparable(replay), comparable(original));
    assert.notEqual(JSON.stringify(replay), JSON.stringify(original), 'the ids differ');
  });

  it('refuses a log kept without bodies and a --from that names no entry; reads a workspace file', async () => {
    const entry = { id: 'LogEntry:1', method: 'POST', path: '/customers', status: 201 } as LoggedRequest;
    assert.throws(
      () => fixtureFromLog([entry], 'x'),
      /holds no bodies: start the server with SANDBOX_REQUEST_LOG_BODIES/,
    );
    const p = await server.platform('no-span');
    await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'x-1' });
    const file = join(folder, 'nothing.json');
    const missing = await runCli(['logs', 'export', '--fixture', file, '--from', 'LogEntry:nope', ...creds(p)], env());
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--from LogEntry:nope: no entry of the log/);
    const credentials = join(folder, 'workspace.json');
    writeFileSync(credentials, JSON.stringify({ tokenId: p.sandbox.tokenId, clientSecret: p.sandbox.clientSecret }));
    const viaFile = await runCliOk(['logs', 'export', '--fixture', '-', '--workspace', credentials], env());
    assert.equal((JSON.parse(viaFile.stdout) as { fixtures: unknown[] }).fixtures.length, 1);
  });
});
