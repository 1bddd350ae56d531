// The dashboard's summaries and the API's filtered lists must cost the same at a million payments as at
// a thousand (npm run bench:lab:growth measures it). A test cannot time that, but it can read each statement's
// plan: on the tables that grow with a platform's history, every read must narrow the platform's rows by
// something beyond the platform and environment themselves (a status, a time window, a partial index of
// the rare rows), or it reads the whole history on every page view. Checked on each engine's own planner.
import assert from 'node:assert/strict';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { captureLifecycle } from '../../bench/lib/lifecycle-rows.ts';
import { seedLifecycles, seedQuotes, settle } from '../../bench/lib/seed.ts';
import { loadScope } from '../../src/platforms.ts';
import { sqlitePath } from '../../src/store/paths.ts';
import { before, describe, it } from '../helpers/node-test.ts';
import { engine, useServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { recordStatements, type Statement } from '../helpers/statements.ts';
import { accountQuote, externalAccount, fundedCustomer } from '../money/fixtures.ts';
import { dashboardClient } from '../dashboard/session-client.ts';

/** Payments of other customers written straight to the tables before the plans are read. */
const SEEDED = 4_000;
/** Tables whose rows grow with every payment. */
const HISTORY = new Set(['transactions', 'quotes', 'events', 'journal_entries', 'postings', 'webhook_attempts']);
/** Why each read of a history table in `s` reads the whole history, per SQLite's plan ([] if none does). */
function sqliteWholeHistory(db: SqliteDatabase.Database, s: Statement, partial: Set<string>): string[] {
  const plan = db.prepare(`explain query plan ${s.text}`).all(...(s.values as unknown[])) as { detail: string }[];
  return plan.flatMap(({ detail }) => {
    const m = /^(SCAN|SEARCH) (\w+)(?: AS \w+)?(?: USING (?:COVERING )?INDEX (\w+) \((.*)\))?/.exec(detail);
    if (!m || !HISTORY.has(m[2]!)) return [];
    const [, how, table, index, terms = ''] = m;
    if (how === 'SCAN') return [`${table}: ${detail}`];
    if (index && partial.has(index)) return [];
    const narrowed = terms.split(' AND ').some((term) => !/^(platform_id|environment)=\?$/.test(term));
    return narrowed ? [] : [`${table}: ${detail}`];
  });
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

interface PgIndex {
  table: string;
  partial: boolean;
  /** Its columns in order. */
  columns: string[];
}

/**
 * The same on PostgreSQL, with sequential scans off so that a usable index is always chosen. PostgreSQL can
 * test a later column of an index inside the range of its leading ones, so it is the first column after
 * the scope's that must be in the condition: otherwise the range is still the platform's whole history.
 */
async function pgWholeHistory(client: pg.Client, name: string, s: Statement, indexes: Map<string, PgIndex>) {
  await client.query(`prepare ${name} as ${s.text}`);
  const args = s.values.map((v) =>
    v === null ? 'null' : pg.Client.prototype.escapeLiteral(String(v as string | number | bigint)),
  );
  const { rows } = await client.query(`explain (format json) execute ${name}${args.length ? `(${args})` : ''}`);
  const plan = (rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan;
  const found = unboundedSorts(plan);
  for (const node of nodes(plan)) {
    // A bitmap heap scan reads the rows its bitmap index scans (its children) found: those are judged.
    if (node['Node Type'] === 'Bitmap Heap Scan') continue;
    const index = indexes.get(node['Index Name'] ?? '');
    const table = index?.table ?? node['Relation Name'];
    if (!table || !HISTORY.has(table)) continue;
    if (!index) {
      found.push(`${table}: ${node['Node Type']}`);
      continue;
    }
    if (index.partial) continue;
    const next = index.columns.find((c) => c !== 'platform_id' && c !== 'environment');
    const cond = node['Index Cond'] ?? '';
    if (!next || !new RegExp(`\\b${next}\\b`).test(cond)) found.push(`${table}: ${node['Index Name']} on ${cond}`);
  }
  return found;
}

/**
 * Sorts of every row a filter matches: a Sort with a history table's scan below it and no Limit in between.
 * An index range of the filter still reads all of its matches when they come out of it in another order
 * than the page's (an account's payments from two ranges, appended and then sorted), so a page of an
 * account with a million payments would read the million.
 */
function unboundedSorts(node: PlanNode, sorting = false, parent = ''): string[] {
  const type = node['Node Type'];
  // A summary's sort orders its groups, or its rows for grouping: it reads what its range bounds, no more.
  if (type === 'Limit' || type === 'Aggregate') sorting = false;
  const table = node['Relation Name'];
  const here = sorting && table && HISTORY.has(table) ? [`${table}: sorted whole, ${type}`] : [];
  const below = sorting || (type === 'Sort' && parent !== 'Aggregate');
  return [...here, ...(node.Plans ?? []).flatMap((child) => unboundedSorts(child, below, type))];
}

/** Each read of a history table among `reads` whose plan reads the platform's whole history, on this engine. */
async function wholeHistoryReads(server: TestServer, reads: Statement[]): Promise<string[]> {
  const found: string[] = [];
  if (engine === 'sqlite') {
    const db = new SqliteDatabase(sqlitePath(server.config.dataDir), { readonly: true });
    try {
      const partial = new Set(
        [...HISTORY].flatMap((t) =>
          (db.pragma(`index_list(${t})`) as { name: string; partial: number }[])
            .filter((i) => i.partial === 1)
            .map((i) => i.name),
        ),
      );
      for (const s of reads) found.push(...sqliteWholeHistory(db, s, partial).map((f) => `${f}\n  ${s.text}`));
    } finally {
      db.close();
    }
  } else {
    const client = new pg.Client({ connectionString: server.config.databaseUrl });
    await client.connect();
    try {
      await client.query('set enable_seqscan = off');
      const { rows } = await client.query<{ name: string; table: string; partial: boolean; columns: string[] }>(
        `select i.indexrelid::regclass::text as name, i.indrelid::regclass::text as table,
                i.indpred is not null as partial,
                array_agg(a.attname::text order by k.ord) as columns
           from pg_index i
           cross join unnest(i.indkey) with ordinality as k(attnum, ord)
           join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
          group by i.indexrelid, i.indrelid, i.indpred`,
      );
      const indexes = new Map(rows.map((r) => [r.name, { table: r.table, partial: r.partial, columns: r.columns }]));
      for (const [i, s] of reads.entries())
        found.push(...(await pgWholeHistory(client, `read_${i}`, s, indexes)).map((f) => `${f}\n  ${s.text}`));
    } finally {
      await client.end();
    }
  }
  return found;
}

/**
 * Three transfer-outs from the payer's account: one COMPLETED, one FAILED, and one still PROCESSING (005
 * fails only after thirty seconds). Answers the last destination.
 */
async function paymentsOfEachOutcome(
  server: TestServer,
  p: TestPlatform,
  payer: { customerId: string; accountId: string },
): Promise<string> {
  let destination = '';
  for (const suffix of ['000', '002', '005']) {
    destination = await externalAccount(p, payer.customerId, 'USD_ACCOUNT', suffix);
    const sent = await p.api.post('/transfer-out', {
      source: { accountId: payer.accountId },
      destination: { accountId: destination },
      amount: 100,
    });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
  }
  await server.app.services.worker.drain();
  return destination;
}

/** The statements of each filtered page of `path` that read a history table's whole range for the platform. */
async function filteredPageReads(
  server: TestServer,
  p: TestPlatform,
  path: string,
  filters: Record<string, string>,
): Promise<string[]> {
  const table = path.slice(1);
  const found: string[] = [];
  for (const [name, value] of Object.entries(filters)) {
    const statements = recordStatements();
    const res = await p.api.get(`${path}?limit=2&${name}=${encodeURIComponent(value)}`);
    assert.equal(res.status, 200, `${name}: ${JSON.stringify(res.body)}`);
    const reads = statements.takeWithValues().filter((s) => new RegExp(`^select .*"${table}"`, 'is').test(s.text));
    assert.ok(reads.length >= 1, `${name}: the list reads ${table}`);
    found.push(...(await wholeHistoryReads(server, reads)).map((f) => `${name}: ${f}`));
  }
  return found;
}

describe(`the dashboard and the filtered lists read no platform's whole history (${engine})`, () => {
  let p: TestPlatform;
  /** What the filters below name: the payer, its account and one destination. */
  let payer: { customerId: string; platformCustomerId: string; accountId: string; destination: string };
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform();
    // A few payments of each outcome, so that every summary has rows to read.
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 100_000);
    const { platformCustomerId } = (await p.api.get(`/customers/${customerId}`)).body;
    payer = {
      customerId,
      platformCustomerId,
      accountId,
      destination: await paymentsOfEachOutcome(server, p, { customerId, accountId }),
    };
    // Thousands of other payments, as the bench seeds them, and PostgreSQL's statistics of them (autovacuum
    // would have taken them): on a table of a few rows every index costs the same to a planner, and its
    // choice among them says nothing of what it chooses at scale.
    const { store, services } = server.app;
    const others = [];
    for (let i = 0; i < 8; i++) {
      const other = await fundedCustomer(p, 'USD', 1_000_000);
      others.push({
        ...other,
        platformCustomerId: (await p.api.get(`/customers/${other.customerId}`)).body.platformCustomerId,
        destination: await externalAccount(p, other.customerId, 'USD_ACCOUNT', '000'),
      });
    }
    const scope = await loadScope(services.ctx, p.platformId, 'sandbox');
    await seedLifecycles(store, await captureLifecycle(store, services, scope, others[0]!), others, SEEDED);
    // A quote of the payer's, and as many of the others' as payments.
    await seedQuotes(store, (await accountQuote(p, accountId, payer.destination, 100)).id, others, SEEDED);
    await settle(store);
  });

  it('plans every statement of the home page and of the failed-deliveries list on an index range', async () => {
    const dashboard = dashboardClient(server.baseUrl);
    await dashboard.signIn(p.sandbox);
    const statements = recordStatements();
    for (const path of ['/dashboard', '/dashboard/webhooks?deliveryState=FAILED']) {
      const page = await dashboard.get(path);
      assert.equal(page.status, 200, `${path}: ${page.html.slice(0, 300)}`);
    }
    const reads = statements
      .takeWithValues()
      .filter((s) => /^select/i.test(s.text) && [...HISTORY].some((t) => s.text.includes(`"${t}"`)));
    assert.ok(reads.length >= 4, `the pages read the history tables (${reads.length} statements)`);

    const found = await wholeHistoryReads(server, reads);
    assert.deepEqual(found, [], 'each of these reads every row of the platform');
  });

  it('plans every filtered page of GET /transactions, and its count, on an index range of that filter', async () => {
    const filters: Record<string, string> = { customerId: payer.customerId, status: 'FAILED', reference: 'none' };
    // Indexed on PostgreSQL only: on SQLite their indexes cost the money path a sixth of its throughput, and
    // the embedded database is the sandbox's (migration 021_filter_indexes says what was measured).
    if (engine === 'postgres')
      Object.assign(filters, {
        platformCustomerId: payer.platformCustomerId,
        senderAccountIdentifier: payer.accountId,
        receiverAccountIdentifier: payer.destination,
        accountIdentifier: payer.accountId,
      });
    const found = await filteredPageReads(server, p, '/transactions', filters);
    assert.deepEqual(found, [], 'these filters read every payment of the platform to fill a page or count it');
  });

  it('plans every filtered page of GET /quotes, and its count, on an index range of that filter', async () => {
    // The status is the payment's, read through its index. The accounts are indexed on PostgreSQL only, as the
    // payments' are.
    const filters: Record<string, string> = { customerId: payer.customerId, status: 'FAILED' };
    if (engine === 'postgres')
      Object.assign(filters, { sendingAccountId: payer.accountId, receivingAccountId: payer.destination });
    const found = await filteredPageReads(server, p, '/quotes', filters);
    assert.deepEqual(found, [], 'these filters read every quote of the platform to fill a page or count it');
  });
});

describe(`the dashboard's chart (${engine})`, () => {
  let p: TestPlatform;
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform();
    await paymentsOfEachOutcome(server, p, await fundedCustomer(p, 'USD', 100_000));
  });

  it("the home page's chart counts the payments of each day by outcome as the API lists them", async () => {
    const listed = (await p.api.get('/transactions?limit=100')).body.data as { status: string; createdAt: string }[];
    const outcome = (status: string) =>
      status === 'COMPLETED' ? 'completed' : ['PENDING', 'PROCESSING'].includes(status) ? 'in flight' : 'failed';
    const expected: Record<string, number> = {};
    for (const t of listed) {
      const key = `${t.createdAt.slice(0, 10)}: ${outcome(t.status)}`;
      expected[key] = (expected[key] ?? 0) + 1;
    }
    const outcomes = new Set(Object.keys(expected).map((k) => k.split(': ')[1]));
    assert.equal(outcomes.size, 3, `payments of every outcome: ${JSON.stringify(expected)}`);

    const dashboard = dashboardClient(server.baseUrl);
    await dashboard.signIn(p.sandbox);
    const home = await dashboard.get('/dashboard');
    const charted: Record<string, number> = {};
    for (const m of home.html.matchAll(/<title>(\d{4}-\d\d-\d\d): (\d+) ([a-z ]+)<\/title>/g))
      charted[`${m[1]}: ${m[3]}`] = Number(m[2]);
    assert.deepEqual(charted, expected, 'the bars of the chart');
  });
});
