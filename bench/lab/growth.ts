/**
 * Flat cost as data grows: two databases of one engine, one holding BENCH_GROWTH_SMALL settled transfer-outs
 * (1,000 by default) and one holding BENCH_GROWTH_ROWS (1,000,000), each served by its own `payouts serve`,
 * measured alternately in the same run. Prints, per engine, large ÷ small for list pages and for
 * transfer-out throughput: 1.00× is flat.
 *
 *   npm run bench:lab:growth                                  # 1,000 vs 1,000,000 rows, SQLite (+ PostgreSQL)
 *   BENCH_GROWTH_ROWS=20000 BENCH_SECONDS=2 npm run bench:lab:growth    # a quick run
 *
 * Seeding copies the rows of one real lifecycle (bench/lib/seed.ts), one customer per 1,000 payments (40 at
 * least, so every page measured is full; BENCH_GROWTH_PER_CUSTOMER changes the 1,000).
 */
import { spawnServer, type ServerProcess } from '../../test/helpers/processes.ts';
import { waitFor } from '../../test/helpers/wait.ts';
import { dashboardClient } from '../../test/dashboard/session-client.ts';
import { captureLifecycle } from '../lib/lifecycle-rows.ts';
import { call, medianMs, ratio, saturate, target, x, type Target } from '../lib/load.ts';
import { seedLifecycles, seedQuotes, settle } from '../lib/seed.ts';
import {
  engineLabels,
  freshEngine,
  machine,
  makePlatform,
  serverUrl,
  open,
  transferBody,
  unsettled,
  type BenchPlatform,
  type Engine,
  type Payer,
} from '../lib/setup.ts';

const SMALL = Number(process.env.BENCH_GROWTH_SMALL ?? 1_000);
const LARGE = Number(process.env.BENCH_GROWTH_ROWS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SAMPLES = Number(process.env.BENCH_GROWTH_SAMPLES ?? 40);
const PER_CUSTOMER = Number(process.env.BENCH_GROWTH_PER_CUSTOMER ?? 1000);
const REPEATS = 3;
const SPACING_MS = 1000;

interface Seeded {
  engine: Engine;
  platform: BenchPlatform;
  rows: number;
  seedSeconds: number;
  /** A point half-way back through the seeded history, for the deep page. */
  midMs: number;
}

async function seed(label: Engine['label'], rows: number): Promise<Seeded> {
  const engine = await freshEngine(label, `growth${rows}`);
  // Not yet the caller's to drop when seeding fails.
  return fill(engine, rows).catch(async (err) => {
    await engine.drop();
    throw err;
  });
}

async function fill(engine: Engine, rows: number): Promise<Seeded> {
  const started = performance.now();
  const { store, services } = await open(engine);
  try {
    const customers = Math.max(40, Math.ceil(rows / PER_CUSTOMER));
    const platform = await makePlatform(services, 'growth', customers);
    const lifecycle = await captureLifecycle(store, services, platform.scope, platform.payers[0]!);
    await seedLifecycles(store, lifecycle, platform.payers, rows - 1, SPACING_MS);
    // As many quotes as payments: copies of one real one left to expire, which is then executed (the server's
    // worker settles it).
    const [payer] = platform.payers;
    const quote = await services.quotes.create(platform.scope, {
      source: { sourceType: 'ACCOUNT', accountId: payer!.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: payer!.destination },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 100,
    });
    await seedQuotes(store, quote.id, platform.payers, rows - 1, SPACING_MS);
    await services.quotes.execute(platform.scope, quote.id);
    await settle(store);
    return {
      engine,
      platform,
      rows,
      seedSeconds: (performance.now() - started) / 1000,
      midMs: Date.now() - (rows / 2) * SPACING_MS,
    };
  } finally {
    await store.close();
  }
}

/** One side of the comparison: a seeded database and its server. */
interface Side {
  seeded: Seeded;
  target: Target;
  server: ServerProcess;
}

interface Endpoint {
  name: string;
  /** Prepares the request on this side (a cursor to find, a session to open) and answers how to send it. */
  prepare: (side: Side) => Promise<() => Promise<void>>;
}

/** A GET of the API that must answer 200. */
const apiGet =
  (name: string, path: (side: Side) => Promise<string> | string) =>
  async (side: Side): Promise<() => Promise<void>> => {
    const url = await path(side);
    return async () => {
      const res = await call(side.target, 'GET', url);
      if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${res.text.slice(0, 200)}`);
    };
  };

const endpoint = (name: string, path: (side: Side) => Promise<string> | string): Endpoint => ({
  name,
  prepare: apiGet(name, path),
});

/** A list page filtered by one of the second payer's ids (the first made the captured lifecycle). */
const byPayer = (path: string, filter: string, field: keyof Payer, note = ''): Endpoint =>
  endpoint(
    `GET ${path}?${filter}=…${note}`,
    ({ seeded }) => `${path}?limit=20&${filter}=${encodeURIComponent(seeded.platform.payers[1]![field])}`,
  );

const ENDPOINTS: Endpoint[] = [
  endpoint('GET /transactions?limit=20', () => '/transactions?limit=20'),
  byPayer('/transactions', 'customerId', 'customerId'),
  // What a platform filters by: its own id for the customer, and an account on either side of a payment.
  byPayer('/transactions', 'platformCustomerId', 'platformCustomerId'),
  byPayer('/transactions', 'accountIdentifier', 'accountId', ' (internal)'),
  byPayer('/transactions', 'receiverAccountIdentifier', 'destination'),
  // No seeded payment failed: the page is empty at both sizes, and finding that out must not read them all.
  endpoint('GET /transactions?status=FAILED', () => '/transactions?limit=20&status=FAILED'),
  endpoint('GET /transactions, cursor half-way back', async ({ seeded, target: api }) => {
    const end = new Date(seeded.midMs).toISOString();
    const first = await call(api, 'GET', `/transactions?limit=1&endDate=${encodeURIComponent(end)}`);
    const cursor = (JSON.parse(first.text) as { nextCursor?: string }).nextCursor;
    if (!cursor) throw new Error(`no cursor half-way back: ${first.status} ${first.text.slice(0, 200)}`);
    return `/transactions?limit=20&cursor=${encodeURIComponent(cursor)}`;
  }),
  endpoint('GET /quotes?limit=20', () => '/quotes?limit=20'),
  byPayer('/quotes', 'customerId', 'customerId'),
  byPayer('/quotes', 'sendingAccountId', 'accountId'),
  // A quote's status is its payment's, read off the index of the quotes' payments (migration 023). None
  // failed; one completed, among a million completed transfer-outs that the index leaves out.
  endpoint('GET /quotes?status=FAILED', () => '/quotes?limit=20&status=FAILED'),
  endpoint('GET /quotes?status=COMPLETED', () => '/quotes?limit=20&status=COMPLETED'),
  endpoint('GET /customers?limit=20', () => '/customers?limit=20'),
  {
    // The operator's first screen: balances, payments in flight, the last failures, a chart of the last
    // fourteen days and the backlog, each summed over the platform's history.
    name: 'dashboard home',
    prepare: async ({ seeded, server }) => {
      const dashboard = dashboardClient(server.baseUrl);
      await dashboard.signIn(seeded.platform.credentials);
      return async () => {
        const res = await dashboard.get('/dashboard');
        if (res.status !== 200) throw new Error(`the dashboard home answered ${res.status}`);
      };
    },
  },
];

async function pageRatios(small: Side, large: Side): Promise<string[]> {
  const lines: string[] = [];
  for (const e of ENDPOINTS) {
    const send = [await e.prepare(small), await e.prepare(large)] as const;
    const smallMs: number[] = [];
    const largeMs: number[] = [];
    // Alternate, so whatever else the machine does falls on both sides alike.
    for (let r = 0; r < REPEATS; r++) {
      smallMs.push(await medianMs(SAMPLES, send[0]));
      largeMs.push(await medianMs(SAMPLES, send[1]));
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ms = (xs: number[]) => `${med(xs).toFixed(med(xs) < 10 ? 2 : 0)} ms`;
    lines.push(
      `  RATIO ${e.name.padEnd(50)} ${x(ratio(med(largeMs), med(smallMs)))}  (${ms(smallMs)} → ${ms(largeMs)})`,
    );
  }
  return lines;
}

async function transferRatio(small: Side, large: Side): Promise<string> {
  const rates: [number[], number[]] = [[], []];
  const monitors = [await open(small.seeded.engine), await open(large.seeded.engine)];
  try {
    for (let r = 0; r < REPEATS; r++) {
      for (const side of [0, 1] as const) {
        const { seeded: s, target: t } = side === 0 ? small : large;
        const result = await saturate(
          async (i) =>
            (await call(t, 'POST', '/transfer-out', transferBody(s.platform.payers[i % s.platform.payers.length]!)))
              .status === 201,
          SECONDS,
          CONCURRENCY,
        );
        rates[side].push(result.perSecond);
        // Each side's settlement work stays out of the other's measurement.
        const monitor = monitors[side]!;
        await waitFor(
          async () => (await unsettled(monitor.store, s.platform.scope)) === 0,
          'payments settled',
          120_000,
        );
      }
    }
  } finally {
    for (const m of monitors) await m.store.close();
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return `  RATIO POST /transfer-out throughput${' '.repeat(21)} ${x(ratio(mean(rates[1]), mean(rates[0])))}`;
}

async function benchEngine(label: Engine['label']): Promise<void> {
  const seeded: Seeded[] = [];
  const servers: ServerProcess[] = [];
  const targets: Target[] = [];
  try {
    for (const rows of [SMALL, LARGE]) seeded.push(await seed(label, rows));
    for (const s of seeded) {
      const server = await spawnServer({ ...s.engine.env, JOB_POLL_MS: '50' }, 120_000);
      servers.push(server);
      targets.push(target(server.baseUrl, CONCURRENCY, s.platform.auth));
    }
    const [small, large] = [0, 1].map((i) => ({ seeded: seeded[i]!, target: targets[i]!, server: servers[i]! }));
    if (!small || !large) throw new Error('two sides were started');
    const lines = [
      `\n${label}: ${LARGE.toLocaleString('en')} rows ÷ ${SMALL.toLocaleString('en')} rows ` +
        `(median of ${SAMPLES} sequential requests, ${REPEATS} alternations; 1.00× is flat)`,
      `  seeded ${LARGE.toLocaleString('en')} transactions in ${seeded[1]!.seedSeconds.toFixed(0)} s`,
      ...(await pageRatios(small, large)),
      await transferRatio(small, large),
    ];
    console.log(lines.join('\n'));
  } finally {
    for (const t of targets) await t.pool.close();
    for (const s of servers) await s.stop();
    for (const s of seeded) await s.engine.drop();
  }
}

console.log(`payouts growth bench — ${machine()}`);
for (const label of engineLabels()) await benchEngine(label);
if (!serverUrl()) console.log('\nPostgreSQL: skipped (set TEST_DATABASE_URL or BENCH_DATABASE_URL)');
