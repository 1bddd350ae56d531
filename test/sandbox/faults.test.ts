// Sandbox fault rules over HTTP: a workspace's requests answered with an error body the API could give, a
// connection cut under a real client, a delay; counted (times), random (probability), per workspace, never
// on the fault routes themselves; every faulted request in the request log with the rule's id. On
// PostgreSQL, a rule made through one server process applies in another.
import assert from 'node:assert/strict';
import {
  client,
  createTestDatabase,
  engine,
  startServer,
  useServer,
  type Client,
  type TestServer,
} from '../helpers/harness.ts';
import { describe, it } from '../helpers/node-test.ts';
import { waitFor } from '../helpers/wait.ts';

interface Workspace {
  platformId: string;
  api: Client;
}

async function workspace(server: TestServer): Promise<Workspace> {
  const made = await client(server.baseUrl).post('/sandbox/workspaces', { name: 'faults' });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { platformId: made.body.platformId, api: client(server.baseUrl, made.body) };
}

async function addRule(ws: Workspace, rule: Record<string, unknown>): Promise<string> {
  const made = await ws.api.post('/sandbox/faults', rule);
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.match(made.body.id, /^Fault:/, 'a rule id');
  return made.body.id;
}

async function entries(ws: Workspace, query = '') {
  const page = await ws.api.get(`/sandbox/requests${query}`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body.data as Array<{
    requestId: string;
    status: number | null;
    faultId: string | null;
    errorCode: string;
  }>;
}

const CUSTOMER = { customerType: 'INDIVIDUAL', platformCustomerId: 'faulted-1', fullName: 'Fay Ult' };

describe('sandbox fault rules', () => {
  const server = useServer({ HOST: '127.0.0.1' });

  it('answer a 503 once (times: 1), then the request goes through; the log names the rule', async () => {
    const ws = await workspace(server);
    const ruleId = await addRule(ws, { route: '/customers', method: 'POST', answer: { status: 503 }, times: 1 });
    const headers = { 'idempotency-key': 'fault-once', 'x-request-id': 'try-1' };
    const first = await ws.api.post('/customers', CUSTOMER, headers);
    assert.equal(first.status, 503, JSON.stringify(first.body));
    assert.deepEqual(
      first.body,
      {
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        message: `Answered by the sandbox fault rule ${ruleId}`,
        details: { reason: 'SANDBOX_FAULT', faultId: ruleId },
      },
      "the API's error body, with a code the contract lists for 503",
    );
    assert.equal(first.headers.get('x-sandbox-fault'), ruleId, 'the rule named in a header');
    const retry = await ws.api.post('/customers', CUSTOMER, { ...headers, 'x-request-id': 'try-2' });
    assert.equal(retry.status, 201, `the retry with the same key goes through: ${JSON.stringify(retry.body)}`);
    const listed = await ws.api.get('/sandbox/faults');
    assert.equal(listed.body.data[0].remaining, 0, 'the rule is used up');
    const log = await entries(ws);
    assert.deepEqual(
      log.map((e) => [e.requestId, e.status, e.faultId, e.errorCode]),
      [
        ['try-2', 201, null, null],
        ['try-1', 503, ruleId, 'SERVICE_UNAVAILABLE'],
      ],
      'both requests logged, the first with the rule',
    );
    assert.equal((await entries(ws, `?faultId=${encodeURIComponent(ruleId)}`)).length, 1, 'filtered by rule');
  });

  it('add latency and then let the request through', async () => {
    const ws = await workspace(server);
    const ruleId = await addRule(ws, { route: '/customers', method: 'GET', latencyMs: 30 });
    const slow = await ws.api.request('GET', '/customers', undefined, { 'x-request-id': 'slow' });
    assert.equal(slow.status, 200, 'answered normally');
    const posted = await ws.api.post('/customers', CUSTOMER, { 'x-request-id': 'other-method' });
    assert.equal(posted.status, 201, JSON.stringify(posted.body));
    const log = await entries(ws);
    assert.deepEqual(
      log.map((e) => [e.requestId, e.status, e.faultId]),
      [
        ['other-method', 201, null],
        ['slow', 200, ruleId],
      ],
      'the rule applied to its method only',
    );
  });

  it('drop the connection: a real client sees a socket error', async () => {
    const ws = await workspace(server);
    const ruleId = await addRule(ws, { route: '/customers/*', drop: true });
    await assert.rejects(
      ws.api.request('GET', '/customers/Customer:00000000-0000-7000-8000-000000000000', undefined, {
        'x-request-id': 'dropped',
      }),
      (err: Error) => err instanceof TypeError && /other side closed|socket|reset/i.test(String(err.cause)),
      'fetch fails with a socket error',
    );
    assert.equal((await ws.api.get('/customers')).status, 200, '/customers itself is not matched by /customers/*');
    const dropped = (await entries(ws)).find((e) => e.requestId === 'dropped');
    assert.deepEqual(dropped && [dropped.status, dropped.faultId], [null, ruleId], 'logged with no status');
  });

  it('never fire at probability 0, and always at 1', async () => {
    const ws = await workspace(server);
    await addRule(ws, { route: '/customers', probability: 0, answer: { status: 500 } });
    for (let i = 0; i < 20; i++) assert.equal((await ws.api.get('/customers')).status, 200, `request ${i}`);
    assert.ok(
      (await entries(ws)).every((e) => e.faultId === null),
      'no entry names the rule',
    );
    await addRule(ws, { route: '/**', probability: 1, answer: { status: 429, code: 'RATE_LIMITED' } });
    assert.equal((await ws.api.get('/customers')).status, 429, 'probability 1 fires');
  });

  it('apply to their own workspace only, and never to the fault and log routes', async () => {
    const a = await workspace(server);
    const b = await workspace(server);
    const platform = await server.platform('faults-prod');
    await addRule(a, { route: '/**', answer: { status: 503 } });
    assert.equal((await a.api.get('/customers')).status, 503, 'a is faulted');
    assert.equal((await b.api.get('/customers')).status, 200, 'b is not');
    assert.equal((await platform.api.get('/customers')).status, 200, 'nor another platform');
    const listed = await a.api.get('/sandbox/faults');
    assert.equal(listed.status, 200, 'the rules can still be read');
    assert.equal((await a.api.get('/sandbox/requests')).status, 200, 'and the log');
    const cleared = await a.api.delete('/sandbox/faults');
    assert.deepEqual([cleared.status, cleared.body], [200, { deleted: 1 }], 'and removed');
    assert.equal((await a.api.get('/customers')).status, 200, 'a works again at once');
  });

  it('are listed, removed one by one (404 for an unknown or foreign id), created idempotently', async () => {
    const a = await workspace(server);
    const b = await workspace(server);
    const rule = { route: '/quotes', method: 'POST', answer: { status: 409, code: 'CONFLICT' }, times: 3 };
    const first = await a.api.post('/sandbox/faults', rule, { 'idempotency-key': 'rule-1' });
    const again = await a.api.post('/sandbox/faults', rule, { 'idempotency-key': 'rule-1' });
    assert.equal(again.body.id, first.body.id, 'the same rule for the same key');
    assert.equal(again.headers.get('idempotent-replayed'), 'true', 'a replay');
    const listed = await a.api.get('/sandbox/faults');
    assert.deepEqual(
      listed.body.data,
      [
        {
          id: first.body.id,
          route: '/quotes',
          method: 'POST',
          probability: 1,
          latencyMs: 0,
          action: 'answer',
          answer: { status: 409, code: 'CONFLICT' },
          remaining: 3,
          createdAt: first.body.createdAt,
        },
      ],
      'one rule, as made',
    );
    const foreign = await b.api.delete(`/sandbox/faults/${encodeURIComponent(first.body.id)}`);
    assert.equal(foreign.status, 404, "another workspace's rule is not found");
    const removed = await a.api.delete(`/sandbox/faults/${encodeURIComponent(first.body.id)}`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.equal(removed.body.id, first.body.id, 'answers the removed rule');
    assert.equal((await a.api.delete(`/sandbox/faults/${encodeURIComponent(first.body.id)}`)).status, 404, 'gone');
    assert.deepEqual((await a.api.get('/sandbox/faults')).body.data, [], 'none left');
  });

  it('refuse a bad rule with a 400 naming the field, and store nothing', async () => {
    const ws = await workspace(server);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ route: 'customers', answer: { status: 503 } }, 'route'],
      [{ route: '/sandbox/faults', answer: { status: 503 } }, 'route'],
      [{ route: '/customers', answer: { status: 418 } }, 'answer.status'],
      [{ route: '/customers', answer: { status: 404, code: 'SERVICE_UNAVAILABLE' } }, 'answer.code'],
      [{ route: '/customers', answer: { status: 503 }, drop: true }, 'drop'],
      [{ route: '/customers' }, 'answer'],
      [{ route: '/customers', drop: true, probability: 1.5 }, 'probability'],
      [{ route: '/customers', drop: true, times: 0 }, 'times'],
      [{ route: '/customers', latencyMs: -1 }, 'latencyMs'],
      [{ route: '/customers', drop: true, method: 'TRACE' }, 'method'],
      [{ route: '/customers', drop: true, colour: 'red' }, 'colour'],
    ];
    for (const [rule, field] of cases) {
      const refused = await ws.api.post('/sandbox/faults', rule);
      assert.equal(refused.status, 400, `${JSON.stringify(rule)}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.details.field, field, `${JSON.stringify(rule)} names ${field}`);
    }
    assert.deepEqual((await ws.api.get('/sandbox/faults')).body.data, [], 'nothing stored');
  });
});

describe('sandbox fault rules across server processes', { skip: engine !== 'postgres' }, () => {
  it('a rule made through one process applies in the other within a second, counted once; one log', async () => {
    const database = await createTestDatabase();
    const one = await startServer({ HOST: '127.0.0.1' }, { database });
    const two = await startServer({ HOST: '127.0.0.1' }, { database });
    try {
      const made = await client(one.baseUrl).post('/sandbox/workspaces', { name: 'two processes' });
      const [viaOne, viaTwo] = [client(one.baseUrl, made.body), client(two.baseUrl, made.body)];
      assert.equal((await viaTwo.get('/customers')).status, 200, 'the second process has read the rules: none');
      const rule = await viaOne.post('/sandbox/faults', { route: '/customers', answer: { status: 503 }, times: 3 });
      assert.equal(rule.status, 201, JSON.stringify(rule.body));
      await waitFor(async () => (await viaTwo.get('/customers')).status === 503, 'the rule in the second process');
      for (let i = 0; i < 6; i++) await (i % 2 ? viaOne : viaTwo).get('/customers');
      // Each GET of the log writes what its own process holds first.
      assert.equal((await viaTwo.get('/sandbox/requests')).status, 200, "the second process's entries written");
      const faulted = await viaOne.get(`/sandbox/requests?faultId=${encodeURIComponent(rule.body.id)}&limit=100`);
      assert.equal(faulted.body.totalCount, 3, 'the rule fired three times in all, across both processes');
      assert.equal((await viaOne.get('/sandbox/faults')).body.data[0].remaining, 0, 'and is used up');
    } finally {
      await two.close();
      await one.close();
      await database.drop();
    }
  });
});
