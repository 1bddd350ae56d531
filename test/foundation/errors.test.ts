import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { API, useServer, type TestPlatform } from '../helpers/harness.ts';

/** Every framework-level failure answers with the one error shape, and never a stack trace. */
describe('error shape', () => {
  let p: TestPlatform;
  const server = useServer({ BODY_LIMIT_BYTES: '2048' });
  before(async () => {
    p = await server.platform();
  });

  function assertShape(res: { status: number; body: any }, status: number, code: string) {
    assert.equal(res.status, status);
    assert.equal(res.body.status, status);
    assert.equal(res.body.code, code);
    assert.equal(typeof res.body.message, 'string');
    assert.ok(!JSON.stringify(res.body).includes('    at '), 'no stack trace leaves the server');
  }

  it('malformed JSON → 400', async () => {
    const res = await p.api.post('/customers', '{"customerType": ');
    assertShape(res, 400, 'INVALID_INPUT');
    assert.equal(res.body.details.field, 'body');
  });

  it('prototype poisoning is refused as bad input', async () => {
    const res = await p.api.post(
      '/customers',
      '{"customerType":"INDIVIDUAL","platformCustomerId":"x","__proto__":{"admin":true}}',
    );
    assertShape(res, 400, 'INVALID_INPUT');
  });

  it('unknown route → 404', async () => {
    assertShape(await p.api.get('/nothing-here'), 404, 'REFERENCE_NOT_FOUND');
    assertShape(await p.api.get('/2024-01-01/customers'.replace('/2024', '/../2024')), 404, 'REFERENCE_NOT_FOUND');
  });

  it('wrong method → 405 with Allow', async () => {
    const res = await p.api.request('PUT', '/customers');
    assertShape(res, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(res.headers.get('allow'), 'GET, POST');
  });

  it('body too large → 413', async () => {
    const res = await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'x'.repeat(4000) });
    assertShape(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('unsupported media type → 415', async () => {
    const res = await p.api.post('/customers', 'customerType=INDIVIDUAL', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assertShape(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    assertShape(
      await p.api.post('/customers', 'hello', { 'content-type': 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('schema violations name the field and the rule', async () => {
    const missing = await p.api.post('/customers', { customerType: 'INDIVIDUAL' });
    assertShape(missing, 400, 'INVALID_INPUT');
    assert.deepEqual([missing.body.details.field, missing.body.details.rule], ['platformCustomerId', 'required']);
    const badEnum = await p.api.post('/customers', { customerType: 'ROBOT', platformCustomerId: 'x' });
    assert.equal(badEnum.body.details.field, 'customerType');
    assert.deepEqual(badEnum.body.details.allowedValues, ['INDIVIDUAL', 'BUSINESS']);
    const nested = await p.api.post('/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: 'x',
      address: { line1: 'a', postalCode: '1', country: 'usa' },
    });
    assert.equal(nested.body.details.field, 'address.country');
    const query = await p.api.get('/customers?limit=abc');
    assert.equal(query.body.details.field, 'limit');
    assert.equal(query.body.details.location, 'querystring');
  });

  it('amounts must be positive safe integers, not strings or fractions', async () => {
    const accounts = await p.api.get('/platform/internal-accounts?currency=USD');
    const id = accounts.body.data[0].id;
    for (const amount of ['100', 1.5, 0, -100, 2 ** 53, null]) {
      const res = await p.api.post(`/sandbox/internal-accounts/${id}/fund`, { amount });
      assertShape(res, 400, 'INVALID_INPUT');
      assert.equal(res.body.details.field, 'amount', `amount ${amount}`);
    }
    const later = await p.api.get('/platform/internal-accounts?currency=USD');
    assert.equal(later.body.data[0].balance.amount, 0, 'bad input changed nothing');
  });

  it('serves its own OpenAPI document', async () => {
    const res = await p.api.get(`${API}/openapi.json`);
    assert.equal(res.status, 200);
    assert.equal(res.body.info.version, '2025-10-13');
    assert.ok(res.body.paths['/customers'].post, "res.body.paths['/customers'].post");
    assert.ok(
      res.body.paths['/sandbox/internal-accounts/{accountId}/fund'].post,
      "res.body.paths['/sandbox/internal-accounts/{accountId}/fund'].post",
    );
    assert.equal(res.body.paths['/openapi.json'], undefined);
  });
});
