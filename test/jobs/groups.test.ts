import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { recordStatements } from '../helpers/statements.ts';
import { externalAccount, fundedCustomer } from '../money/fixtures.ts';
import { newId } from '../../src/domain/ids.ts';
import { groupsOf, payloadsByKind } from '../../src/jobs/groups.ts';

// Database-only jobs (rail steps) claimed together run in groups, each group in one database transaction;
// a job that fails takes no other job of its group with it.
describe('database-only jobs run in groups', () => {
  let server: TestServer;
  let p: TestPlatform;
  let accountId: string;
  let destination: string;
  before(async () => {
    server = await startServer({ RUN_WORKERS: 'false' });
    p = await server.platform();
    const funded = await fundedCustomer(p, 'USD', 100_000);
    accountId = funded.accountId;
    destination = await externalAccount(p, funded.customerId, 'USD_ACCOUNT', '000');
  });
  after(() => server.close());

  async function transfers(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await p.api.post('/transfer-out', {
        source: { accountId },
        destination: { accountId: destination },
        amount: 10,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.id);
    }
    return ids;
  }

  const statusOf = async (id: string) => (await p.api.get(`/transactions/${id}`)).body.status;

  it('reads (on PostgreSQL, locks) a group of payments in one statement, marks its jobs done in one', async () => {
    const ids = await transfers(5);
    const statements = recordStatements();
    await server.app.services.worker.drain();
    const sent = statements.takeWithValues();
    const done = sent.filter((s) => /^update "jobs"/i.test(s.text) && s.values.includes('done'));
    assert.equal(done.length, 1, `one UPDATE marks the five jobs done:\n${done.map((s) => s.text).join('\n')}`);
    const reads = sent.filter((s) => /^select .* from "transactions"/i.test(s.text));
    assert.equal(reads.length, 1, `one SELECT of the five payments:\n${reads.map((s) => s.text).join('\n')}`);
    const byId = (a: unknown, b: unknown) => String(a).localeCompare(String(b));
    assert.deepEqual([...reads[0]!.values].sort(byId), [...ids].sort(byId));
    for (const id of ids) assert.equal(await statusOf(id), 'COMPLETED', `${id} settled`);
  });

  it('a job that throws is retried alone; the others of its group are done', async () => {
    const ids = await transfers(4);
    const broken = newId('Job');
    const now = BigInt(Date.now());
    await server.app.store.db
      .insertInto('jobs')
      .values({
        id: broken,
        platform_id: p.platformId,
        environment: 'sandbox',
        kind: 'transaction.process',
        payload: '{not json',
        status: 'pending',
        run_at: now,
        lease_until: null,
        attempts: 0n,
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await server.app.services.worker.drain({}, 1);
    for (const id of ids) assert.equal(await statusOf(id), 'COMPLETED', `${id} settled despite the broken job`);
    const job = await server.app.store.db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', broken)
      .executeTakeFirstOrThrow();
    assert.equal(job.status, 'pending', 'the broken job waits for its retry');
    assert.equal(job.attempts, 1n, 'one attempt counted');
    assert.match(job.last_error ?? '', /JSON/, 'its error is recorded');
  });
});

describe('how a batch falls into groups', () => {
  it('slices the claimed jobs in order, ten to a group by default, the last group with the rest', () => {
    const ids = Array.from({ length: 23 }, (_, i) => i);
    const groups = groupsOf(ids, 10);
    assert.deepEqual(
      groups.map((g) => g.length),
      [10, 10, 3],
    );
    assert.deepEqual(groups.flat(), ids, 'every job once, in the order claimed');
    assert.deepEqual(groupsOf([], 10), [], 'no jobs, no groups');
  });

  it("hands each kind's preparer the payloads of that kind, in the jobs' order", () => {
    const kinds = ['transaction.process', 'transaction.finish', 'transaction.process'].map((kind) => ({ kind }));
    const byKind = payloadsByKind(kinds, ['p1', 'f1', 'p2']);
    assert.deepEqual(
      [...byKind],
      [
        ['transaction.process', ['p1', 'p2']],
        ['transaction.finish', ['f1']],
      ],
    );
  });
});
