// The sandbox request log over HTTP: every request of a workspace recorded with its method, path, status,
// latency, request id, idempotency key, error code and fault rule; no secret anywhere in the stored rows;
// filters and keyset paging newest first; at most SANDBOX_REQUEST_LOG_SIZE entries per workspace; emptied
// by a reset, left alone by a snapshot restore; another workspace and production never in it.
import type { LoggedRequest } from '../../src/services/sandbox-requests.ts';
import assert from 'node:assert/strict';
import { client, useServer, type Client, type TestServer } from '../helpers/harness.ts';
import { describe, it } from '../helpers/node-test.ts';

type Entry = LoggedRequest;

interface Workspace {
  platformId: string;
  tokenId: string;
  clientSecret: string;
  api: Client;
}

async function workspace(server: TestServer): Promise<Workspace> {
  const made = await client(server.baseUrl).post('/sandbox/workspaces', { name: 'log' });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { ...made.body, api: client(server.baseUrl, made.body) };
}

async function logOf(ws: Workspace, query = ''): Promise<{ data: Entry[]; hasMore: boolean; nextCursor?: string }> {
  const page = await ws.api.get(`/sandbox/requests${query}`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body;
}

const CUSTOMER = { customerType: 'INDIVIDUAL', platformCustomerId: 'log-1', fullName: 'Ada Lovelace' };

/** Every stored row of the log, as text, to search for what must never be there. */
async function storedRows(server: TestServer): Promise<string> {
  const rows = await server.app.store.db.selectFrom('sandbox_requests').selectAll().execute();
  return JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

describe('the sandbox request log', () => {
  const server = useServer({ HOST: '127.0.0.1' });

  it('records each request with its fields, newest first, and no body or secret by default', async () => {
    const ws = await workspace(server);
    const created = await ws.api.post('/customers', CUSTOMER, { 'idempotency-key': 'log-key-1' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const missing = await ws.api.get('/customers/Customer:00000000-0000-7000-8000-000000000000');
    assert.equal(missing.status, 404, JSON.stringify(missing.body));
    const [last, first] = (await logOf(ws)).data;
    assert.ok(last && first, 'two entries');
    assert.deepEqual(
      { ...first, id: undefined, time: undefined, latencyMs: undefined },
      {
        id: undefined,
        time: undefined,
        latencyMs: undefined,
        method: 'POST',
        path: '/customers',
        status: 201,
        requestId: created.headers.get('x-request-id'),
        idempotencyKey: 'log-key-1',
        errorCode: null,
        faultId: null,
      },
      'the POST as it was made, with no body',
    );
    assert.match(first.id, /^LogEntry:/, 'an entry id');
    assert.ok(Number.isInteger(first.latencyMs) && first.latencyMs >= 0, 'a latency in whole milliseconds');
    assert.ok(Date.parse(first.time) <= Date.parse(last.time), 'times in arrival order');
    assert.equal(last.status, 404, 'the newest first');
    assert.equal(last.errorCode, missing.body.code, 'the error code of the error body');
    assert.equal(last.path, '/customers/Customer:00000000-0000-7000-8000-000000000000', 'the decoded path');
    assert.equal(last.requestId, missing.headers.get('x-request-id'), 'the request id the answer carried');
    const rows = await storedRows(server);
    assert.ok(!rows.includes(ws.clientSecret), 'the secret is in no stored row');
    assert.ok(!rows.includes(Buffer.from(`${ws.tokenId}:${ws.clientSecret}`).toString('base64')), 'nor the header');
    assert.ok(!rows.includes('Ada Lovelace'), 'no body is kept unless asked for');
  });

  it('records a request its token may not make (403), and none without credentials (401)', async () => {
    const ws = await workspace(server);
    const token = await ws.api.post('/tokens', { name: 'read-only', permissions: ['VIEW'] });
    assert.equal(token.status, 201, JSON.stringify(token.body));
    const readOnly = client(server.baseUrl, { tokenId: token.body.id, clientSecret: token.body.clientSecret });
    const refused = await readOnly.request('POST', '/customers', CUSTOMER, { 'x-request-id': 'no-permission' });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    const anonymous = await client(server.baseUrl).request('GET', '/customers', undefined, { 'x-request-id': 'anon' });
    assert.equal(anonymous.status, 401, 'no credentials');
    const [entry, ...rest] = (await logOf(ws)).data;
    assert.deepEqual(
      [entry?.requestId, entry?.status, entry?.errorCode],
      ['no-permission', 403, 'FORBIDDEN'],
      'the refusal, logged in the workspace whose token was used',
    );
    assert.ok(!rest.some((e) => e.requestId === 'anon'), 'a request nobody can be named for is not logged');
  });

  it('keeps requests in the order they were made, and never its own reads', async () => {
    const ws = await workspace(server);
    for (let i = 1; i <= 6; i++) {
      const answer = await ws.api.request('GET', '/customers', undefined, { 'x-request-id': `order-${i}` });
      assert.equal(answer.status, 200, 'a read');
      await logOf(ws);
    }
    const ids = (await logOf(ws)).data.map((e) => e.requestId);
    assert.deepEqual(ids, ['order-6', 'order-5', 'order-4', 'order-3', 'order-2', 'order-1'], 'newest first');
  });

  it('filters by method, path prefix, status or class, error code, idempotency key, request id and time', async () => {
    const ws = await workspace(server);
    const send = (method: string, path: string, id: string, body?: unknown, key?: string) =>
      ws.api.request(method, path, body, { 'x-request-id': id, ...(key ? { 'idempotency-key': key } : {}) });
    await send('GET', '/customers', 'f-list-1');
    await send('GET', '/customers/Customer:00000000-0000-7000-8000-000000000001', 'f-missing-1');
    await send('GET', '/customers/Customer:00000000-0000-7000-8000-000000000002', 'f-missing-2');
    await send('POST', '/customers', 'f-bad', { customerType: 'INDIVIDUAL' }, 'f-key');
    await send('GET', '/customers', 'f-list-2');
    const ids = async (query: string) => (await logOf(ws, query)).data.map((e) => e.requestId);
    assert.deepEqual(await ids('?method=POST'), ['f-bad'], 'by method');
    assert.deepEqual(await ids('?path=/customers/'), ['f-missing-2', 'f-missing-1'], 'by path prefix');
    assert.deepEqual(await ids('?path=/CUSTOMERS'), [], 'a prefix is compared case for case');
    assert.deepEqual(await ids('?path=/customers_'), [], 'with no wildcard');
    assert.deepEqual(await ids('?status=4xx'), ['f-bad', 'f-missing-2', 'f-missing-1'], 'by class');
    assert.deepEqual(await ids('?status=200'), ['f-list-2', 'f-list-1'], 'by status');
    assert.deepEqual(await ids('?errorCode=INVALID_INPUT'), ['f-bad'], 'by error code');
    assert.deepEqual(await ids('?idempotencyKey=f-key'), ['f-bad'], 'by idempotency key');
    assert.deepEqual(await ids('?requestId=f-missing-1'), ['f-missing-1'], 'by request id');
    const all = (await logOf(ws)).data;
    const pivot = all.find((e) => e.requestId === 'f-missing-2')!;
    const since = await logOf(ws, `?since=${encodeURIComponent(pivot.time)}`);
    assert.ok(since.data.every((e) => e.time >= pivot.time) && since.data.length >= 3, 'since is inclusive');
    const until = await logOf(ws, `?until=${encodeURIComponent(pivot.time)}`);
    assert.ok(until.data.every((e) => e.time <= pivot.time) && until.data.length >= 3, 'until is inclusive');
    const odd = await ws.api.request('GET', '/customers/a%00b', undefined, { 'x-request-id': 'nul' });
    assert.equal(odd.status, 400, JSON.stringify(odd.body));
    assert.deepEqual(
      (await logOf(ws, '?requestId=nul')).data.map((e) => e.path),
      ['/customers/a\uFFFDb'],
      'any path is stored, a NUL as U+FFFD',
    );
    const refused = await ws.api.get('/sandbox/requests?status=4x');
    assert.equal(refused.status, 400, 'a malformed status is refused');
    assert.equal(refused.body.details.field, 'status', 'naming the field');
  });

  it('pages newest first with a cursor, every entry exactly once', async () => {
    const ws = await workspace(server);
    for (let i = 0; i < 7; i++) await ws.api.request('GET', '/customers', undefined, { 'x-request-id': `p-${i}` });
    const seen: string[] = [];
    let query = '?limit=3';
    for (let pages = 0; pages < 10; pages++) {
      const page = await logOf(ws, query);
      seen.push(...page.data.map((e) => e.requestId));
      assert.equal(page.hasMore, page.nextCursor !== undefined, 'a cursor exactly while more follow');
      if (!page.nextCursor) break;
      query = `?limit=3&cursor=${encodeURIComponent(page.nextCursor)}`;
    }
    assert.deepEqual(seen, ['p-6', 'p-5', 'p-4', 'p-3', 'p-2', 'p-1', 'p-0'], 'every entry once, newest first');
  });

  it('holds only its own workspace: not another one, not production', async () => {
    const a = await workspace(server);
    const b = await workspace(server);
    const platform = await server.platform('log-prod');
    await a.api.request('GET', '/customers', undefined, { 'x-request-id': 'only-a' });
    await b.api.request('GET', '/customers', undefined, { 'x-request-id': 'only-b' });
    await platform.prod.get('/customers');
    await platform.api.request('GET', '/customers', undefined, { 'x-request-id': 'platform-sandbox' });
    assert.deepEqual(
      (await logOf(a)).data.map((e) => e.requestId),
      ['only-a'],
      "a's log",
    );
    assert.deepEqual(
      (await logOf(b)).data.map((e) => e.requestId),
      ['only-b'],
      "b's log",
    );
    const rows = await server.app.store.db
      .selectFrom('sandbox_requests')
      .select(['environment', 'request_id'])
      .where('platform_id', '=', platform.platformId)
      .execute();
    assert.deepEqual(rows, [{ environment: 'sandbox', request_id: 'platform-sandbox' }], 'no production request');
    const refused = await platform.prod.get('/sandbox/requests');
    assert.equal(refused.status, 403, 'production credentials cannot read a request log');
  });

  it('is emptied by a reset (with its fault rules) and left alone by a snapshot restore', async () => {
    const ws = await workspace(server);
    const other = await workspace(server);
    await other.api.request('GET', '/customers', undefined, { 'x-request-id': 'bystander' });
    await ws.api.request('GET', '/customers', undefined, { 'x-request-id': 'before-snapshot' });
    const rule = await ws.api.post('/sandbox/faults', { route: '/nowhere', latencyMs: 1 });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    const snapshot = await ws.api.post('/sandbox/snapshots', { name: 'log' });
    assert.equal(snapshot.status, 201, JSON.stringify(snapshot.body));
    await ws.api.request('GET', '/customers', undefined, { 'x-request-id': 'after-snapshot' });
    const restored = await ws.api.post(`/sandbox/snapshots/${encodeURIComponent(snapshot.body.id)}/restore`);
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    const afterRestore = new Set((await logOf(ws)).data.map((e) => e.requestId));
    assert.ok(afterRestore.has('after-snapshot'), 'a restore keeps requests made after the snapshot');
    assert.ok(afterRestore.has('before-snapshot'), 'and those before it');
    assert.equal((await ws.api.get('/sandbox/faults')).body.data.length, 1, 'a restore keeps the fault rules');

    const reset = await ws.api.post('/sandbox/reset');
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    const afterReset = (await logOf(ws)).data;
    assert.deepEqual(
      afterReset.map((e) => `${e.method} ${e.path}`),
      ['POST /sandbox/reset'],
      'a reset empties the log; the reset itself is its first entry',
    );
    assert.deepEqual((await ws.api.get('/sandbox/faults')).body.data, [], 'and removes the fault rules');
    assert.deepEqual(
      (await logOf(other)).data.map((e) => e.requestId),
      ['bystander'],
      'another log untouched',
    );
  });
});

describe('the sandbox request log with bodies, bounded', () => {
  const server = useServer({
    HOST: '127.0.0.1',
    SANDBOX_REQUEST_LOG_BODIES: 'true',
    SANDBOX_REQUEST_LOG_SIZE: '10',
  });

  it('keeps bodies when asked, with every secret redacted', async () => {
    const ws = await workspace(server);
    const customer = await ws.api.post('/customers', CUSTOMER);
    assert.equal(customer.status, 201, JSON.stringify(customer.body));
    const token = await ws.api.post('/tokens', { name: 'ci', permissions: ['VIEW'] });
    assert.equal(token.status, 201, JSON.stringify(token.body));
    const secret = token.body.clientSecret as string;
    assert.ok(secret.length > 20, 'the answer carries a new secret');
    const [tokenEntry, customerEntry] = (await logOf(ws)).data;
    assert.ok(tokenEntry && customerEntry, 'two entries');
    const body = (value: unknown) => value as Record<string, unknown>;
    assert.equal(body(customerEntry.requestBody).fullName, 'Ada Lovelace', 'the request body');
    assert.equal(body(customerEntry.responseBody).id, customer.body.id, 'the answer body');
    assert.equal(body(tokenEntry.responseBody).clientSecret, '[redacted]', 'the new secret redacted');
    assert.equal(body(tokenEntry.responseBody).id, token.body.id, 'the rest kept');
    const rows = await storedRows(server);
    for (const [what, value] of [
      ['the new token secret', secret],
      ["the workspace's secret", ws.clientSecret],
      ['the Authorization header', Buffer.from(`${ws.tokenId}:${ws.clientSecret}`).toString('base64')],
    ]) {
      assert.ok(!rows.includes(value!), `${what} is in no stored row`);
    }
  });

  it('keeps at most SANDBOX_REQUEST_LOG_SIZE entries per workspace, the newest', async () => {
    const ws = await workspace(server);
    const other = await workspace(server);
    await other.api.request('GET', '/customers', undefined, { 'x-request-id': 'other-0' });
    for (let i = 0; i < 25; i++) {
      await ws.api.request('GET', '/customers', undefined, { 'x-request-id': `n-${i}` });
      // Written in several batches, so the bound holds across flushes and not only within one.
      if (i % 7 === 0) await logOf(ws);
    }
    const page = await ws.api.get('/sandbox/requests?limit=100');
    assert.equal(page.body.totalCount, 10, 'ten entries kept');
    assert.deepEqual(
      page.body.data.map((e: Entry) => e.requestId),
      Array.from({ length: 10 }, (_, i) => `n-${24 - i}`),
      'the newest ten',
    );
    const stored = await server.app.store.db
      .selectFrom('sandbox_requests')
      .select('id')
      .where('platform_id', '=', ws.platformId)
      .execute();
    assert.equal(stored.length, 10, 'no more rows in the database');
    assert.deepEqual(
      (await logOf(other)).data.map((e) => e.requestId),
      ['other-0'],
      "another workspace's kept",
    );
  });
});
