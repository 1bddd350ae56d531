import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { client, useServer, type TestPlatform } from '../helpers/harness.ts';

/** Per-token limits over real HTTP: 429 RATE_LIMITED in the error shape, with Retry-After. */
describe('rate limits per token', () => {
  let p: TestPlatform;
  let other: TestPlatform;
  const server = useServer({ SANDBOX_RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_PER_MINUTE: '3' });
  before(async () => {
    p = await server.platform('limited');
    other = await server.platform('other');
  });

  it('the request over the limit is a 429 with Retry-After, and only for that token', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await p.api.get('/customers')).status, 200, `request ${i + 1} of 5`);
    const over = await p.api.get('/customers');
    assert.equal(over.status, 429, `the sixth request: ${JSON.stringify(over.body)}`);
    assert.deepEqual(Object.keys(over.body).sort(), ['code', 'details', 'message', 'status'], 'the error shape');
    assert.equal(over.body.status, 429, 'body.status');
    assert.equal(over.body.code, 'RATE_LIMITED', 'body.code');
    const retryAfter = Number(over.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After in seconds within the minute: ${retryAfter}`);
    assert.equal(over.body.details.limit, 5, 'details.limit');
    // Any route, any method: the count is the token's.
    assert.equal((await p.api.post('/customers', { bad: true })).status, 429, 'a POST from the same token');
    assert.equal((await other.api.get('/customers')).status, 200, 'another token is not slowed');
  });

  it('production tokens have their own limit', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await p.prod.get('/customers')).status, 200, `prod request ${i + 1}`);
    const over = await p.prod.get('/customers');
    assert.equal(over.status, 429, 'the fourth production request');
    assert.equal(over.body.details.limit, 3, 'the production limit');
  });

  it('health checks and unauthenticated requests are not counted against a token', async () => {
    for (let i = 0; i < 10; i++) assert.equal((await p.api.get('/healthz')).status, 200, `healthz ${i + 1}`);
    const anonymous = client(server.baseUrl);
    for (let i = 0; i < 10; i++) {
      assert.equal((await anonymous.get('/customers')).status, 401, `unauthenticated ${i + 1} is a 401`);
    }
  });
});

describe('rate limits by default', () => {
  let p: TestPlatform;
  const server = useServer();
  before(async () => {
    p = await server.platform();
  });

  it('generous for production tokens, none for sandbox tokens', async () => {
    assert.equal(server.config.rateLimitPerMinute.production, 6000, 'the production default');
    const prod = await p.prod.get('/customers');
    assert.equal(prod.headers.get('x-ratelimit-limit'), '6000', 'production answers carry the limit');
    for (let i = 0; i < 30; i++) {
      const res = await p.api.get('/customers');
      assert.equal(res.status, 200, `sandbox request ${i + 1}`);
      assert.equal(res.headers.get('x-ratelimit-limit'), null, 'sandbox answers carry no limit');
    }
  });
});

describe('rate limits can be turned off', () => {
  let p: TestPlatform;
  const server = useServer({ RATE_LIMIT_PER_MINUTE: '0' });
  before(async () => {
    p = await server.platform();
  });

  it('RATE_LIMIT_PER_MINUTE=0 means no limit', async () => {
    const res = await p.prod.get('/customers');
    assert.equal(res.status, 200, 'a production request');
    assert.equal(res.headers.get('x-ratelimit-limit'), null, 'no limit header');
  });
});
