import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { useServer, type TestPlatform } from '../helpers/harness.ts';

describe('pagination', () => {
  let p: TestPlatform;
  const ids: string[] = [];
  // A clock that never moves: every customer shares one createdAt, so order rests on the id tie-breaker.
  const frozen = Date.parse('2026-01-01T00:00:00.000Z');
  const server = useServer({}, { clock: { nowMs: () => frozen } });
  before(async () => {
    p = await server.platform();
    for (let i = 0; i < 45; i++) {
      const res = await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `page-${i}` });
      ids.push(res.body.id);
    }
  });

  it('rejects limit 0 and 101, accepts 1 and 100', async () => {
    for (const limit of [0, 101, -1]) {
      const res = await p.api.get(`/customers?limit=${limit}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.details.field, 'limit');
    }
    const one = await p.api.get('/customers?limit=1');
    assert.equal(one.body.data.length, 1);
    assert.equal(one.body.hasMore, true);
    assert.equal(typeof one.body.nextCursor, 'string');
    assert.equal(one.body.totalCount, 45);
    const hundred = await p.api.get('/customers?limit=100');
    assert.equal(hundred.body.data.length, 45);
    assert.equal(hundred.body.hasMore, false);
    assert.ok(!('nextCursor' in hundred.body), 'the last page has no nextCursor');
  });

  it('defaults to 20 per page', async () => {
    const res = await p.api.get('/customers');
    assert.equal(res.body.data.length, 20);
  });

  it('walks every page exactly once, in a stable order, with equal timestamps', async () => {
    for (const limit of [1, 7, 20, 44, 45]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await p.api.get(
          `/customers?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(res.status, 200);
        assert.equal(res.body.totalCount, 45, 'totalCount ignores the page window');
        seen.push(...res.body.data.map((c: any) => c.id));
        cursor = res.body.nextCursor;
        assert.equal(res.body.hasMore, cursor !== undefined);
        pages++;
        assert.ok(pages <= 45, 'pages <= 45');
      } while (cursor);
      assert.deepEqual(seen, [...ids].reverse(), `limit ${limit}: newest first, each once`);
    }
  });

  it('keeps filters across pages and rejects a forged cursor', async () => {
    const first = await p.api.get('/customers?limit=2&platformCustomerId=page-3');
    assert.equal(first.body.totalCount, 1);
    assert.equal(first.body.hasMore, false);
    const forged = await p.api.get('/customers?cursor=not-a-cursor');
    assert.equal(forged.status, 400);
    assert.equal(forged.body.details.field, 'cursor');
  });

  it('pages internal accounts the same way', async () => {
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const res = await p.api.get(
        `/customers/internal-accounts?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const a of res.body.data) seen.add(a.id);
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.equal(seen.size, 45 * 14);
  });
});
