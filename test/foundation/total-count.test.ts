// totalCount is counted up to COUNT_LIMIT matches and left out beyond: counting a long list in full made
// every page cost as much as the whole list (npm run bench:lab:growth measures it).
import assert from 'node:assert/strict';
import { COUNT_LIMIT } from '../../src/domain/paging.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { onStatement, recordStatements } from '../helpers/statements.ts';
import { before, describe, it } from '../helpers/node-test.ts';

describe('totalCount on long lists', () => {
  let p: TestPlatform;
  const server = useServer();
  before(async () => {
    p = await server.platform();
    const made = await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'real-one' });
    assert.equal(made.status, 201, 'the model customer is made');
    const { db } = server.app.store;
    const model = await db.selectFrom('customers').selectAll().where('id', '=', made.body.id).executeTakeFirstOrThrow();
    // Copies of a real row, COUNT_LIMIT of them, so that one more than the limit match in all.
    const copies = Array.from({ length: COUNT_LIMIT }, (_, i) => ({
      ...model,
      id: `Customer:00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      platform_customer_id: `copy-${i}`,
      uma_address: `$copy-${i}@${model.uma_address.split('@')[1]}`,
      created_at: model.created_at - BigInt(i + 1),
    }));
    for (let i = 0; i < copies.length; i += 200)
      await db
        .insertInto('customers')
        .values(copies.slice(i, i + 200))
        .execute();
  });

  it('leaves totalCount out when more than COUNT_LIMIT match, and still pages', async () => {
    const page = await p.api.get('/customers?limit=5');
    assert.equal(page.status, 200, 'the list answers');
    assert.equal(page.body.data.length, 5, 'a full page');
    assert.equal(page.body.hasMore, true, 'more follow');
    assert.ok(!('totalCount' in page.body), `no totalCount past ${COUNT_LIMIT} matches`);
    const next = await p.api.get(`/customers?limit=5&cursor=${encodeURIComponent(page.body.nextCursor)}`);
    assert.equal(next.body.data.length, 5, 'the next page follows');
    assert.ok(
      next.body.data.every((c: { id: string }) => !page.body.data.some((d: { id: string }) => d.id === c.id)),
      'no row twice',
    );
  });

  it('counts exactly up to COUNT_LIMIT matches', async () => {
    const one = await p.api.get('/customers?platformCustomerId=copy-7');
    assert.equal(one.body.totalCount, 1, 'one match counted');
    const created = (await p.api.get('/customers?limit=1')).body.data[0].createdAt as string;
    // Every copy is older than the model: createdBefore the model's time less a millisecond leaves the copies.
    const cutoff = new Date(Date.parse(created) - 1).toISOString();
    const copies = await p.api.get(`/customers?limit=1&createdBefore=${encodeURIComponent(cutoff)}`);
    assert.equal(copies.status, 200, 'the filtered list answers');
    assert.equal(copies.body.totalCount, COUNT_LIMIT, 'exactly COUNT_LIMIT matches are counted');
  });

  it('the database counts: no statement of a page brings back more than the page', async () => {
    await server.app.services.sandboxRequests.flush();
    const statements = recordStatements();
    try {
      const page = await p.api.get('/customers?limit=5&platformCustomerId=copy-7');
      assert.equal(page.body.totalCount, 1, 'counted');
      const all = await p.api.get('/customers?limit=5');
      assert.equal(all.body.data.length, 5, 'a page of the long list');
      const sent = statements.takeWithValues().filter((s) => /"customers"/.test(s.text));
      assert.ok(sent.length >= 4, `the pages and their counts were recorded: ${sent.length}`);
      const most = Math.max(...sent.map((s) => s.rows ?? 0));
      assert.ok(most <= 6, `at most a page and one more row back, not ${COUNT_LIMIT} matches: ${most}`);
    } finally {
      onStatement(undefined);
    }
  });
});
