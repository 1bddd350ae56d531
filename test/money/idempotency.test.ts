/**
 * The one idempotency rule (src/services/idempotency.ts), over real HTTP: every POST that creates
 * something or moves money takes Idempotency-Key; answers are stored with their effect and replayed
 * byte for byte; concurrent requests with one key all get the first stored answer.
 */
import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { API, basicAuth, useServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { withinTransaction } from '../../src/store/db.ts';
import { forgetExpiredKeys } from '../../src/services/idempotency.ts';
import { JPEG, PDF, sendForm } from '../identity/fixtures.ts';
import { waitFor } from '../helpers/wait.ts';
import { balance, externalAccount, fundedCustomer } from './fixtures.ts';

/** POST with a key, keeping the raw bytes of the answer. */
async function send(server: TestServer, p: TestPlatform, path: string, body: unknown, key: string) {
  const res = await fetch(server.baseUrl + API + path, {
    method: 'POST',
    headers: {
      authorization: basicAuth(p.sandbox),
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text), replayed: res.headers.get('idempotent-replayed') };
}

// POSTs that take no key, and why.
const WITHOUT_KEY: Record<string, string> = {
  // No caller's scope to keep a key under (it needs no credentials); a retry makes a second empty workspace.
  'POST /sandbox/workspaces': 'made without credentials; a retried call costs one more empty workspace',
};

describe('Idempotency-Key', () => {
  let p: TestPlatform;
  let serial = 0;
  const key = () => `key-${process.pid}-${++serial}`;
  const server = useServer();
  before(async () => {
    p = await server.platform();
  });

  it('is declared on every POST that creates something or moves money', async () => {
    const doc = (await p.api.get('/openapi.json')).body;
    const missing: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      const post = item.post;
      if (!post?.responses?.['201'] && !/\/(execute|fund)$|^\/sandbox\/send$/.test(path)) continue;
      const takesKey = (post.parameters ?? []).some((q: any) => q.in === 'header' && q.name === 'idempotency-key');
      if (!takesKey && !WITHOUT_KEY[`POST ${path}`]) missing.push(`POST ${path}`);
    }
    assert.deepEqual(missing, [], 'routes without Idempotency-Key');
  });

  it("reads inside a request's transaction go through it, on this engine", async () => {
    const { store } = server.app;
    await store.tx((trx) =>
      withinTransaction(trx, async () => {
        assert.equal(store.db, trx, 'store.db is the ambient transaction');
      }),
    );
    assert.equal(store.db.isTransaction, false, 'outside it, store.db is the pool again');
  });

  it('50 concurrent transfer-outs, one key, a balance for one: one payment, 50 identical answers', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 300);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const body = { source: { accountId }, destination: { accountId: destination }, amount: 300 };
    const k = key();
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(server, p, '/transfer-out', body, k)));
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [201], 'every answer is the stored 201');
    assert.equal(new Set(answers.map((a) => a.text)).size, 1, 'byte for byte the same');
    assert.equal(answers.filter((a) => a.replayed === 'true').length, 49, 'all but the first are replays');
    assert.equal(await balance(p, customerId), 0, 'debited once');
  });

  it('stores a 4xx too: the retry answers the same refusal even after the cause went away', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 100);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const body = { source: { accountId }, destination: { accountId: destination }, amount: 500 };
    const k = key();
    const first = await send(server, p, '/transfer-out', body, k);
    assert.deepEqual([first.status, first.json.code, first.replayed], [400, 'INSUFFICIENT_BALANCE', null]);
    await p.api.post(`/sandbox/internal-accounts/${accountId}/fund`, { amount: 1_000 });
    const again = await send(server, p, '/transfer-out', body, k);
    assert.deepEqual([again.status, again.text, again.replayed], [400, first.text, 'true']);
    assert.equal(await balance(p, customerId), 1_100, 'nothing moved');
    const fresh = await send(server, p, '/transfer-out', body, key());
    assert.equal(fresh.status, 201, 'a new key runs the request again');
  });

  it('the same key with another request is 422, on any route', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 1_000);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const body = { source: { accountId }, destination: { accountId: destination }, amount: 100 };
    const k = key();
    assert.equal((await send(server, p, '/transfer-out', body, k)).status, 201);
    const reordered = { amount: 100, destination: body.destination, source: body.source };
    assert.equal((await send(server, p, '/transfer-out', reordered, k)).replayed, 'true', 'key order is no change');
    const other = await send(server, p, '/transfer-out', { ...body, amount: 101 }, k);
    assert.deepEqual(
      [other.status, other.json.code, other.json.details.field],
      [422, 'IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key'],
    );
    const elsewhere = await send(server, p, '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'x' }, k);
    assert.equal(elsewhere.status, 422, 'a key names one request, whatever the route');
    assert.equal(await balance(p, customerId), 900);
  });

  it('execute, customers, external accounts and sandbox funding each run once per key', async () => {
    const payer = await fundedCustomer(p, 'USD', 100_000);
    const destination = await externalAccount(p, payer.customerId, 'EUR_ACCOUNT', '000');
    const quoteBody = {
      source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: destination },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    };
    const q1 = await send(server, p, '/quotes', quoteBody, key());
    assert.equal(q1.status, 201, q1.text);
    const ek = key();
    const [e1, e2] = await Promise.all([
      send(server, p, `/quotes/${q1.json.id}/execute`, undefined, ek),
      send(server, p, `/quotes/${q1.json.id}/execute`, undefined, ek),
    ]);
    assert.equal(e1.status, 200);
    assert.equal(e1.text, e2.text, 'executed once');
    assert.equal(await balance(p, payer.customerId), 90_000);

    const fk = key();
    await send(server, p, `/sandbox/internal-accounts/${payer.accountId}/fund`, { amount: 5_000 }, fk);
    await send(server, p, `/sandbox/internal-accounts/${payer.accountId}/fund`, { amount: 5_000 }, fk);
    assert.equal(await balance(p, payer.customerId), 95_000, 'funded once');

    const ck = key();
    const customer = { customerType: 'INDIVIDUAL', platformCustomerId: `idem-${ck}`, fullName: 'Ida Em' };
    const [c1, c2] = await Promise.all([
      send(server, p, '/customers', customer, ck),
      send(server, p, '/customers', customer, ck),
    ]);
    assert.deepEqual([c1.status, c2.status, c1.json.id], [201, 201, c2.json.id]);
  });

  it('a document upload runs once per key, whatever the concurrency; another file under it is 422', async () => {
    const holder = await send(
      server,
      p,
      '/customers',
      { customerType: 'INDIVIDUAL', platformCustomerId: key() },
      key(),
    );
    const fields = { documentType: 'PASSPORT', country: 'US', documentHolder: holder.json.id };
    const k = key();
    const uploadWith = (bytes: Buffer) =>
      sendForm(
        server,
        p.sandbox,
        'POST',
        '/documents',
        fields,
        { bytes, name: 'passport.pdf' },
        { 'idempotency-key': k },
      );
    const answers = await Promise.all([uploadWith(PDF), uploadWith(PDF), uploadWith(PDF)]);
    assert.deepEqual(
      answers.map((a) => a.status),
      [201, 201, 201],
    );
    assert.equal(new Set(answers.map((a) => a.body.id)).size, 1, 'one document');
    assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 2, 'two replays');
    const listed = await p.api.get(`/documents?documentHolder=${encodeURIComponent(holder.json.id)}`);
    assert.equal(listed.body.data.length, 1, 'stored once');
    const otherFile = await uploadWith(JPEG);
    assert.deepEqual([otherFile.status, otherFile.body.code], [422, 'IDEMPOTENCY_KEY_REUSED']);
    const temp = join(server.config.dataDir, 'documents', 'tmp');
    await waitFor(() => !existsSync(temp) || readdirSync(temp).length === 0, 'the temp files to be removed');
  });

  it('keys past IDEMPOTENCY_KEY_TTL_HOURS are purged; younger ones stay and still replay', async () => {
    const { customerId } = await fundedCustomer(p, 'USD', 100);
    const body = (id: string) => ({ customerType: 'INDIVIDUAL', platformCustomerId: `${customerId}-${id}` });
    const [oldKey, youngKey] = [key(), key()];
    await send(server, p, '/customers', body('old'), oldKey);
    await send(server, p, '/customers', body('young'), youngKey);
    const { db } = server.app.store;
    const dayAndAMinute = BigInt(server.config.idempotencyKeyTtlHours * 3_600_000 + 60_000);
    await db
      .updateTable('idempotency_keys')
      .set((eb) => ({ created_at: eb('created_at', '-', dayAndAMinute) }))
      .where('key', '=', oldKey)
      .execute();
    assert.ok((await forgetExpiredKeys(server.app.services.ctx)) >= 1, 'the old key was purged');
    const left = await db.selectFrom('idempotency_keys').select('key').where('key', 'in', [oldKey, youngKey]).execute();
    assert.deepEqual(
      left.map((r) => r.key),
      [youngKey],
    );
    assert.equal((await send(server, p, '/customers', body('young'), youngKey)).replayed, 'true');
  });
});
