/**
 * The reconciliation report's doors on the engine under test: GET /operator/reconciliation (the operator's
 * credential, its query checked field by field, JSON and CSV) and `payouts reconcile` on the same database,
 * with a booked entry for no payment of ours recorded through the one path bank events take (takeRailEvent).
 * The whole loop (export, the fake bank, ingest) is test/bank/reconcile.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { takeRailEvent } from '../../src/services/connectors/events.ts';
import { useServer } from '../helpers/harness.ts';
import { before, describe, it } from '../helpers/node-test.ts';
import { runCli } from '../helpers/processes.ts';

const OPERATOR = randomBytes(24).toString('hex');

describe('GET /operator/reconciliation and payouts reconcile', () => {
  const server = useServer({ OPERATOR_TOKEN: OPERATOR });
  const at = Date.UTC(2026, 10, 3, 12);
  const get = (query: string, token = OPERATOR) =>
    fetch(`${server.baseUrl}/operator/reconciliation${query}`, { headers: { authorization: `Bearer ${token}` } });

  before(async () => {
    const taken = await takeRailEvent(server.app.services.ctx, 'bank-eu', {
      messageId: 'NOTICE-1/1/COMPLETED',
      transactionId: 'Transaction:00000000-0000-4000-8000-00000000abcd',
      railReference: '000000000000400080000000000abcd',
      status: 'COMPLETED',
      occurredAtMs: at,
      amount: 12_34n,
      currency: 'EUR',
      kind: 'ENTRY',
    });
    assert.equal(taken.result, 'UNKNOWN_PAYMENT');
  });

  it('answers the span as JSON and CSV, the entry for no payment among the differences', async () => {
    const res = await get('?from=2026-11-03&to=2026-11-03');
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(body, {
      from: '2026-11-03T00:00:00.000Z',
      to: '2026-11-04T00:00:00.000Z',
      totals: { payments: 0, matched: 0, differences: 1 },
      data: [],
      differences: [
        {
          kind: 'BOOKED_UNKNOWN',
          connector: 'bank-eu',
          reference: '000000000000400080000000000abcd',
          amount: 1234,
          currency: 'EUR',
          at: '2026-11-03T12:00:00.000Z',
          note: 'an entry for EndToEndId 000000000000400080000000000abcd, which names no payment of ours',
        },
      ],
    });
    // Another connector, another day: nothing.
    const other = (await (await get('?from=2026-11-03&to=2026-11-03&connector=acme')).json()) as { totals: unknown };
    assert.deepEqual(other.totals, { payments: 0, matched: 0, differences: 0 });
    const csv = await get('?from=2026-11-01T00:00:00Z&to=2026-11-04T00:00:00Z&format=csv');
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(csv.headers.get('content-disposition') ?? '', /attachment; filename="reconciliation-.*\.csv"/);
    const rows = (await csv.text()).split('\r\n');
    assert.equal(rows[0]?.split(',')[0], 'row');
    assert.match(rows[1] ?? '', /^DIFFERENCE,,bank-eu,2026-11-03T12:00:00\.000Z,.*,1234,EUR,,BOOKED_UNKNOWN,/);
    assert.equal(rows.length, 3, 'the header, one row, and the last line break');
  });

  it('refuses a query it cannot read with a 400 naming the field, and a caller without the token', async () => {
    for (const [query, field] of [
      ['?from=last-week&to=2026-11-03', 'from'],
      ['?from=2026-11-03&to=2026-13-01', 'to'],
      ['?from=2026-11-04&to=2026-11-03', 'to'],
      ['?to=2026-11-03', 'from'],
      ['?from=2026-11-03&to=2026-11-03&format=xml', 'format'],
    ] as const) {
      const res = await get(query);
      assert.equal(res.status, 400, query);
      const body = (await res.json()) as { details?: { field?: string } };
      assert.equal(body.details?.field, field, `${query}: ${JSON.stringify(body)}`);
    }
    assert.equal((await get('?from=2026-11-03&to=2026-11-03', 'not-the-token')).status, 401);
  });

  it('payouts reconcile prints the same report, and exits 1 when anything differs', async () => {
    const env = {
      ...process.env,
      DATA_DIR: server.config.dataDir,
      DATABASE_URL: server.config.databaseUrl ?? '',
      SECRET_KEY: server.config.secretKey.toString('hex'),
    };
    const table = await runCli(['reconcile', '--from', '2026-11-03', '--to', '2026-11-03'], env);
    assert.equal(table.code, 1, table.stderr);
    assert.match(table.stdout, /BOOKED_UNKNOWN\s+2026-11-03T12:00:00Z\s+000000000000400080000000000abcd\s+1234 EUR/);
    assert.match(table.stderr, /0 payments, 0 matched, 1 differences/);
    const csv = await runCli(['reconcile', '--from', '2026-11-03', '--to', '2026-11-03', '--csv'], env);
    const api = await (await get('?from=2026-11-03&to=2026-11-03&format=csv')).text();
    assert.equal(csv.stdout, api, 'the CLI writes the API’s CSV');
    const quiet = await runCli(['reconcile', '--from', '2026-11-05', '--to', '2026-11-06'], env);
    assert.equal(quiet.code, 0, quiet.stderr);
    const bad = await runCli(['reconcile', '--from', 'soon', '--to', '2026-11-06'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^payouts: --from: "soon" is not a date/);
  });
});
