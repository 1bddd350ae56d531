/**
 * Production payments through the generic HTTP connector, end to end: the service routes USD to `acme`
 * (CONNECTORS_FILE), the reference adapter (examples/http-adapter/server.mjs) runs as a real process, and its
 * signed callbacks move the payments. On the engine under test.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signedHeaders } from '../../src/rails/http/signing.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { freePort, runCli, type Daemon } from '../helpers/processes.ts';
import { spawnReferenceAdapter } from '../helpers/reference-adapter.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { waitFor } from '../helpers/wait.ts';
import { eventTypes } from '../money/fixtures.ts';

const KEY = randomBytes(32);
const SECRET = `whsec_${KEY.toString('base64')}`;
const OPERATOR = randomBytes(24).toString('hex');

describe('the generic HTTP connector, with the reference adapter as a real process', () => {
  const folder = tempDir('connectors');
  const file = join(folder, 'connectors.json');
  let adapterPort = 0;
  let adapter: Daemon | undefined;
  let p: TestPlatform;
  let customerId: string;
  let usd: string;

  before(async () => {
    adapterPort = await freePort();
    const connector = { type: 'http', url: `http://127.0.0.1:${adapterPort}`, secret: { env: 'ACME_SECRET' } };
    const routes = [{ currency: 'USD', connector: 'acme' }];
    writeFileSync(file, JSON.stringify({ connectors: { acme: { ...connector, pollIntervalMs: 500 } }, routes }));
  });
  const server = useServer({ CONNECTORS_FILE: file, ACME_SECRET: SECRET, OPERATOR_TOKEN: OPERATOR });

  async function startAdapter(): Promise<void> {
    adapter = await spawnReferenceAdapter({
      port: adapterPort,
      secret: SECRET,
      serviceUrl: server.baseUrl,
      stateFile: join(folder, 'adapter-state.json'),
    });
  }
  after(() => adapter?.stop());

  before(async () => {
    await startAdapter();
    p = await server.platform('connected');
    customerId = (await p.prod.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'c-1' })).body.id;
    usd = (await p.prod.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`))
      .body.data[0].id;
  });

  const bankAccount = async (tail: string): Promise<string> => {
    const res = await p.prod.post('/customers/external-accounts', {
      customerId,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: `0001${String(randomBytes(2).readUInt16BE()).padStart(5, '0')}${tail}`,
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Connie Nected' },
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await server.app.services.externalAccounts.activate(res.body.id);
    return res.body.id;
  };
  const balance = async () =>
    (await p.prod.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`)).body
      .data[0].balance.amount as number;
  const transaction = async (id: string) => (await p.prod.get(`/transactions/${id}`)).body;
  const settled = (id: string, status: string, timeoutMs = 15_000) =>
    waitFor(async () => (await transaction(id)).status === status, `${id} ${status}`, timeoutMs, 50);
  const adapterCall = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${adapterPort}${path}`, { headers: signedHeaders(KEY, '', Date.now()) });
    return ((await res.json()) as { payouts: { id: string; received: number }[] }).payouts;
  };
  const operator = async (path: string) =>
    (await fetch(`${server.baseUrl}/operator${path}`, { headers: { authorization: `Bearer ${OPERATOR}` } })).json();
  const callback = (
    body: unknown,
    { key = KEY, at = Date.now(), id }: { key?: Buffer; at?: number; id?: string } = {},
  ) => {
    const raw = JSON.stringify(body);
    return fetch(`${server.baseUrl}/connectors/acme/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signedHeaders(key, raw, at, id) },
      body: raw,
    });
  };

  it('a pull and a payout go through the adapter, once each, and its callbacks complete them', async () => {
    const bank = await bankAccount('000');
    const pull = await p.prod.post('/transfer-in', {
      source: { accountId: bank },
      destination: { accountId: usd },
      amount: 50_000,
    });
    assert.equal(pull.status, 201, JSON.stringify(pull.body));
    await settled(pull.body.id, 'COMPLETED');
    assert.equal(await balance(), 50_000, 'the pull credited the account');
    const out = await p.prod.post('/transfer-out', {
      source: { accountId: usd },
      destination: { accountId: bank },
      amount: 20_000,
    });
    assert.equal(out.status, 201, JSON.stringify(out.body));
    await settled(out.body.id, 'COMPLETED');
    assert.equal(await balance(), 30_000);
    assert.deepEqual(await eventTypes(server, out.body.id), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED',
    ]);
    const held = await adapterCall('/payouts');
    const mine = held.filter((h) => h.id === pull.body.id || h.id === out.body.id);
    assert.deepEqual(
      mine.map((h) => h.received),
      [1, 1],
      'one instruction each at the rail, received once',
    );
  });

  it('a payout the rail fails is refunded; one it returns after completing is refunded then too', async () => {
    const failing = await bankAccount('002');
    const returning = await bankAccount('005');
    const start = await balance();
    const failed = await p.prod.post('/transfer-out', {
      source: { accountId: usd },
      destination: { accountId: failing },
      amount: 1_000,
    });
    const returned = await p.prod.post('/transfer-out', {
      source: { accountId: usd },
      destination: { accountId: returning },
      amount: 2_000,
    });
    await settled(failed.body.id, 'FAILED');
    assert.equal((await transaction(failed.body.id)).failureReason, 'INSUFFICIENT_BALANCE');
    await waitFor(
      async () => (await transaction(returned.body.id)).failureReason === 'PAYOUT_RETURNED',
      'the return',
      15_000,
      50,
    );
    const back = await transaction(returned.body.id);
    assert.deepEqual([back.status, back.refund?.status], ['FAILED', 'COMPLETED'], 'returned after COMPLETED, refunded');
    assert.equal(await balance(), start, 'both refunded in full');
    assert.ok((await eventTypes(server, returned.body.id)).includes('OUTGOING_PAYMENT.COMPLETED'), 'it had completed');
  });

  it('duplicate, late, replayed, unknown, forged and stale callbacks change nothing twice', async () => {
    const bank = await bankAccount('006'); // the adapter leaves …006 pending: the callbacks here decide it
    const out = await p.prod.post('/transfer-out', {
      source: { accountId: usd },
      destination: { accountId: bank },
      amount: 700,
    });
    await waitFor(async () => (await adapterCall('/payouts')).some((h) => h.id === out.body.id), 'the adapter has it');
    const start = await balance();
    const at = new Date().toISOString();
    const completed = { id: out.body.id, status: 'COMPLETED', occurredAt: at };
    const first = await callback(completed, { id: 'msg_first' });
    assert.deepEqual(await first.json(), {
      received: true,
      applied: true,
      result: 'APPLIED',
      transactionId: out.body.id,
    });
    const replay = await callback(completed, { id: 'msg_first' });
    assert.equal((await replay.json()).result, 'REPLAY', 'the same message again');
    const late = await callback({
      id: out.body.id,
      status: 'FAILED',
      failureReason: 'ACCOUNT_INVALID',
      occurredAt: at,
    });
    assert.deepEqual([late.status, (await late.json()).applied], [200, false], 'a failure after completion');
    assert.equal((await transaction(out.body.id)).status, 'COMPLETED');
    assert.equal(await balance(), start, 'nothing moved twice');
    const unknown = await callback({
      id: 'Transaction:00000000-0000-7000-8000-000000000000',
      status: 'COMPLETED',
      occurredAt: at,
    });
    assert.deepEqual([unknown.status, (await unknown.json()).result], [202, 'UNKNOWN_PAYMENT']);
    const events = (await operator('/rail-events')) as { data: { result: string; transactionId?: string }[] };
    assert.ok(
      events.data.some((e) => e.result === 'UNKNOWN_PAYMENT'),
      'the unknown one is recorded and shown',
    );
    const forged = await callback(completed, { key: randomBytes(32) });
    const stale = await callback(completed, { at: Date.now() - 10 * 60_000 });
    const unsigned = await fetch(`${server.baseUrl}/connectors/acme/events`, { method: 'POST', body: '{}' });
    for (const res of [forged, stale, unsigned]) assert.equal(res.status, 401, await res.text());
    const nobody = await fetch(`${server.baseUrl}/connectors/nobody/events`, { method: 'POST', body: '{}' });
    assert.equal(nobody.status, 404);
    const bad = await callback({ status: 'DONE' });
    assert.equal(bad.status, 400);
  });

  /** `payouts connectors check` on the server's database, with its connectors file. */
  const check = () =>
    runCli(['connectors', 'check'], {
      ...process.env,
      DATA_DIR: server.config.dataDir,
      DATABASE_URL: server.config.databaseUrl ?? '',
      SECRET_KEY: server.config.secretKey.toString('hex'),
      CONNECTORS_FILE: file,
      ACME_SECRET: SECRET,
    });

  it('serves the adapter protocol as an OpenAPI document', async () => {
    const res = await fetch(`${server.baseUrl}/connectors/openapi.json`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    assert.match(doc.openapi, /^3\.1/);
    assert.ok(doc.paths['/payouts'] && doc.paths['/connectors/{name}/events'], Object.keys(doc.paths).join(', '));
  });

  it('while the adapter is down nothing fails: the attention list fills, then drains when it is back', async () => {
    const bank = await bankAccount('000');
    await adapter?.stop();
    const out = await p.prod.post('/transfer-out', {
      source: { accountId: usd },
      destination: { accountId: bank },
      amount: 300,
    });
    const waiting = async () =>
      ((await operator('/attention')) as { data: { transactionId: string }[] }).data.some(
        (a) => a.transactionId === out.body.id,
      );
    await waitFor(waiting, 'the payment on the attention list', 30_000, 100);
    const down = await check();
    assert.equal(down.code, 1, down.stdout + down.stderr);
    assert.match(down.stdout, /^acme \(http, http:\/\/127\.0\.0\.1:\d+\): NOT reachable/m, 'the check says so');
    assert.equal((await transaction(out.body.id)).status, 'PROCESSING', 'not failed by guesswork');
    await startAdapter();
    await settled(out.body.id, 'COMPLETED', 45_000);
    assert.equal(await waiting(), false, 'off the list once the rail answered');
    const up = await check();
    assert.equal(up.code, 0, up.stdout + up.stderr);
    assert.match(up.stdout, /^acme \(http, .*\): reachable$/m);
    assert.match(up.stdout, /^route USD -> acme$/m);
  });
});
