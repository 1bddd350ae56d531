import { readFileSync } from 'node:fs';
import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { client, engine, useServer, type TestPlatform } from '../helpers/harness.ts';
import { onStatement, recordStatements } from '../helpers/statements.ts';

describe('authentication and isolation', () => {
  let a: TestPlatform;
  let b: TestPlatform;
  const server = useServer();
  before(async () => {
    a = await server.platform('a');
    b = await server.platform('b');
  });

  function assertUnauthorized(res: { status: number; body: any }) {
    assert.equal(res.status, 401);
    assert.equal(res.body.status, 401);
    assert.equal(res.body.code, 'UNAUTHORIZED');
    assert.equal(typeof res.body.message, 'string');
  }

  it('rejects a request without an Authorization header', async () => {
    assertUnauthorized(await client(server.baseUrl).get('/customers'));
  });

  it('rejects a non-Basic scheme and bad base64', async () => {
    assertUnauthorized(await client(server.baseUrl, 'Bearer abc').get('/customers'));
    assertUnauthorized(await client(server.baseUrl, 'Basic %%%not-base64%%%').get('/customers'));
    assertUnauthorized(
      await client(server.baseUrl, `Basic ${Buffer.from('no-colon-here').toString('base64')}`).get('/customers'),
    );
  });

  it('rejects an unknown token and a wrong secret', async () => {
    assertUnauthorized(
      await client(server.baseUrl, {
        tokenId: 'Token:00000000-0000-7000-8000-000000000000',
        clientSecret: a.sandbox.clientSecret,
      }).get('/customers'),
    );
    assertUnauthorized(
      await client(server.baseUrl, { tokenId: a.sandbox.tokenId, clientSecret: a.sandbox.clientSecret + 'x' }).get(
        '/customers',
      ),
    );
    // Another platform's secret with this platform's token id is just a wrong secret.
    assertUnauthorized(
      await client(server.baseUrl, { tokenId: a.sandbox.tokenId, clientSecret: b.sandbox.clientSecret }).get(
        '/customers',
      ),
    );
  });

  it('accepts the token id or its bare clientId as the username', async () => {
    assert.equal((await a.api.get('/customers')).status, 200);
    const bare = { tokenId: a.sandbox.tokenId.slice('Token:'.length), clientSecret: a.sandbox.clientSecret };
    assert.equal((await client(server.baseUrl, bare).get('/customers')).status, 200);
  });

  it('stops accepting a revoked token at once', async () => {
    const created = await a.api.post('/tokens', { name: 'short-lived', permissions: ['VIEW'] });
    assert.equal(created.status, 201);
    assert.equal(typeof created.body.clientSecret, 'string');
    const creds = { tokenId: created.body.id, clientSecret: created.body.clientSecret };
    assert.equal((await client(server.baseUrl, creds).get('/customers')).status, 200);
    const fetched = await a.api.get(`/tokens/${created.body.id}`);
    assert.equal(fetched.status, 200);
    assert.equal(fetched.body.clientSecret, undefined, 'the secret is shown only at creation');
    assert.equal((await a.api.delete(`/tokens/${created.body.id}`)).status, 204);
    assertUnauthorized(await client(server.baseUrl, creds).get('/customers'));
    assert.equal((await a.api.get(`/tokens/${created.body.id}`)).status, 404);
    assert.equal((await a.api.delete(`/tokens/${created.body.id}`)).status, 404);
  });

  it('shares one token lookup among requests that arrive together; each secret is still checked', async () => {
    const statements = recordStatements();
    const wrong = client(server.baseUrl, { tokenId: a.sandbox.tokenId, clientSecret: 'not-the-secret' });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 10 === 9 ? wrong : a.api).get('/customers?limit=1')),
    );
    const lookups = statements.take().filter((s) => /from "api_tokens"/.test(s));
    onStatement(undefined);
    assert.deepEqual(
      answers.map((r) => r.status),
      Array.from({ length: 40 }, (_, i) => (i % 10 === 9 ? 401 : 200)),
    );
    // On SQLite a lookup is over before the next request is read: there is nothing to share.
    if (engine === 'postgres')
      assert.ok(lookups.length >= 1 && lookups.length < 40, `${lookups.length} lookups for 40 requests`);
  });

  it('enforces permissions', async () => {
    const viewOnly = await a.api.post('/tokens', { name: 'viewer', permissions: ['VIEW'] });
    const viewer = client(server.baseUrl, { tokenId: viewOnly.body.id, clientSecret: viewOnly.body.clientSecret });
    assert.equal((await viewer.get('/customers')).status, 200);
    const denied = await viewer.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'x' });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'FORBIDDEN');
    assert.equal((await viewer.post('/tokens', { name: 'escalate', permissions: ['MANAGE'] })).status, 403);

    const transactOnly = await a.api.post('/tokens', { name: 'mover', permissions: ['TRANSACT'] });
    const mover = client(server.baseUrl, {
      tokenId: transactOnly.body.id,
      clientSecret: transactOnly.body.clientSecret,
    });
    assert.equal((await mover.get('/customers')).status, 403);
    const accounts = await a.api.get('/platform/internal-accounts?currency=USD');
    assert.equal(
      (await mover.post(`/sandbox/internal-accounts/${accounts.body.data[0].id}/fund`, { amount: 100 })).status,
      200,
    );
  });

  it('validates token requests', async () => {
    const res = await a.api.post('/tokens', { name: 'bad', permissions: ['ROOT'] });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'INVALID_INPUT');
    assert.equal(res.body.details.field, 'permissions.0');
    const list = await a.api.get('/tokens?limit=100');
    assert.equal(list.status, 200);
    assert.ok(
      list.body.data.every((t: any) => t.clientSecret === undefined),
      'list.body.data.every((t: any) => t.clientSecret === undefined)',
    );
  });

  it("keeps platforms and environments apart: another tenant's id answers 404", async () => {
    const created = await a.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'iso-1' });
    assert.equal(created.status, 201);
    const id = created.body.id;
    assert.equal((await a.api.get(`/customers/${id}`)).status, 200);
    assert.equal((await b.api.get(`/customers/${id}`)).status, 404);
    assert.equal((await a.prod.get(`/customers/${id}`)).status, 404, 'production does not see sandbox data');
    assert.equal((await b.api.patch(`/customers/${id}`, { customerType: 'INDIVIDUAL', fullName: 'X' })).status, 404);
    assert.equal((await b.api.delete(`/customers/${id}`)).status, 404);
    const listB = await b.api.get('/customers?limit=100');
    assert.ok(!listB.body.data.some((c: any) => c.id === id), '!listB.body.data.some((c: any) => c.id === id)');
    const accountsA = await a.api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(id)}`);
    assert.ok(accountsA.body.totalCount > 0, 'accountsA.body.totalCount > 0');
    const accountsB = await b.api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(id)}`);
    assert.equal(accountsB.body.totalCount, 0);
    const fundOther = await b.api.post(`/sandbox/internal-accounts/${accountsA.body.data[0].id}/fund`, { amount: 5 });
    assert.equal(fundOther.status, 404);
    const tokenOther = await b.api.get(`/tokens/${a.sandbox.tokenId}`);
    assert.equal(tokenOther.status, 404);
  });

  it('answers health and readiness without credentials', async () => {
    const anon = client(server.baseUrl);
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.deepEqual((await anon.get('/healthz')).body, { status: 'ok', version }, 'up, and which build');
    assert.deepEqual((await anon.get('/readyz')).body, { status: 'ready' });
  });
});
