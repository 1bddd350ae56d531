/**
 * What a long load leaves behind: quote + execute flows in rounds on one server whose quotes live 10 s
 * (QUOTE_TTL_SECONDS's least), so that from the third round on the rounds also carry whatever the earlier
 * quotes queued for the end of their lifetime. A round that slows down against the first shows work that
 * grows with the load's age rather than its rate; `npm run bench` runs no quotes and stops long before a
 * quote's default lifetime (5 minutes) would show it.
 *
 *   npm run bench:lab:lifetimes
 *   BENCH_ROUNDS=8 BENCH_SECONDS=5 npm run bench:lab:lifetimes
 *   BENCH_SERVER=sources npm run bench:lab:lifetimes        # the sources through tsx instead of the build
 *
 * Per engine (SQLite; PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL names a server; BENCH_ENGINES
 * picks one), against `payouts serve` from the build. Prints each round against the first, and the expiry
 * jobs that ran: for a quote that was executed, one ran for nothing.
 */
import { spawnServer } from '../../test/helpers/processes.ts';
import { call, ratio, saturate, target, x, type Target } from '../lib/load.ts';
import { BENCH_SERVER, engineLabels, freshEngine, makePlatform, open, type BenchPlatform } from '../lib/setup.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const LIFETIME_S = 10;

async function quoteAndExecute(t: Target, p: BenchPlatform, i: number): Promise<boolean> {
  const payer = p.payers[i % p.payers.length]!;
  const quote = await call(t, 'POST', '/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
    destination: { destinationType: 'ACCOUNT', accountId: payer.destination },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1_000,
  });
  if (quote.status !== 201) return false;
  const id = (JSON.parse(quote.text) as { id: string }).id;
  return (await call(t, 'POST', `/quotes/${id}/execute`)).status === 200;
}

for (const label of engineLabels()) {
  const engine = await freshEngine(label, 'lifetimes');
  try {
    const setup = await open(engine);
    const platform = await makePlatform(setup.services, 'lifetimes', CONCURRENCY);
    const server = await spawnServer(
      { ...engine.env, QUOTE_TTL_SECONDS: String(LIFETIME_S) },
      60_000,
      BENCH_SERVER.options,
    );
    const rates: number[] = [];
    let errors = 0;
    try {
      const t = target(server.baseUrl, CONCURRENCY, platform.auth);
      for (let round = 0; round < ROUNDS; round++) {
        const r = await saturate((i) => quoteAndExecute(t, platform, i), SECONDS, CONCURRENCY);
        rates.push(r.perSecond);
        errors += r.errors;
      }
      await t.pool.close();
    } finally {
      await server.stop();
    }
    // An expiry job that ran (claimed at least once), and whether its quote had been executed by then.
    const ran = await setup.store.db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', 'quote.expire')
      .where('attempts', '>', 0n)
      .execute();
    const quotes = await setup.store.db
      .selectFrom('quotes')
      .innerJoin('transactions', 'transactions.id', 'quotes.transaction_id')
      .select(['quotes.id', 'transactions.status'])
      .execute();
    const statusOf = new Map(quotes.map((q) => [q.id, q.status]));
    const forNothing = ran.filter(
      (j) => statusOf.get((JSON.parse(j.payload) as { quoteId: string }).quoteId) !== 'EXPIRED',
    );
    await setup.store.close();
    const first = rates[0]!;
    console.log(
      `\n${label}  (quote + execute, ${CONCURRENCY} clients, ${ROUNDS} rounds of ${SECONDS} s, ` +
        `quotes live ${LIFETIME_S} s)`,
    );
    console.log(`  flows/s by round  ${rates.map((r) => r.toFixed(0)).join(' / ')}   (failed requests: ${errors})`);
    console.log(`  RATIO round ${ROUNDS} / round 1   ${x(ratio(rates[ROUNDS - 1]!, first))}`);
    console.log(`  RATIO worst round / round 1   ${x(ratio(Math.min(...rates), first))}`);
    console.log(`  expiry jobs run: ${ran.length}, of which for a quote already executed: ${forNothing.length}`);
  } finally {
    await engine.drop();
  }
}
