/**
 * The raw-SQL ceiling behind HTTP: what any service writing a transfer-out's rows would reach on this machine
 * if it did nothing else. POST /transfer-out is validated as the service validates it (lib/baseline-http.ts);
 * its request phase is written before the answer, and the later phases (the rail step) after it, in order,
 * each as the service writes it (lib/raw-sql.ts): on PostgreSQL the request in one round trip and the rail
 * steps in groups of ten per transaction, as its worker runs them; on SQLite every phase through the group
 * commit. No auth, no account reads, no checks, no ORM, no logs: the payer is found by its source account,
 * and its captured rows are written again with fresh ids.
 *
 * Started by bench/run.ts and bench/lab/transfer-out.ts (lib/transfer-rounds.ts startRawHttp) with
 * BENCH_LIFECYCLE_FILE (lib/lifecycle-rows.ts saveLifecycle) and either DATABASE_URL (with BENCH_POOL_SIZE)
 * or DATA_DIR.
 */
import pg from 'pg';
import { loadLifecycle, remap } from './lib/lifecycle-rows.ts';
import { pgGroupWriter, pgPhaseWriter, sqliteGroupWriter, type PhaseWriter } from './lib/raw-sql.ts';
import { baselineApp, CANNED_TRANSACTION, listenForBench, transferOutRoute } from './lib/baseline-http.ts';

const { lifecycle, payers } = loadLifecycle(process.env.BENCH_LIFECYCLE_FILE ?? '');
/** The service's worker runs its rail steps in groups of this many per transaction (src/jobs/groups.ts). */
const RAIL_STEPS_PER_TRANSACTION = 10;

/** How the request's phase and the later ones are written, and how to let go of the database. */
function writers(): { request: PhaseWriter; later: PhaseWriter; close(): Promise<void> } {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const group = sqliteGroupWriter(process.env.DATA_DIR ?? '');
    return { request: group, later: group, close: async () => group.close() };
  }
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.BENCH_POOL_SIZE ?? 10) });
  const later = pgGroupWriter(pool, RAIL_STEPS_PER_TRANSACTION);
  return { request: pgPhaseWriter(pool), later, close: () => pool.end() };
}

const writer = writers();
const bySource = new Map(payers.map((p) => [p.accountId, p]));
const [request, ...later] = lifecycle.phases;
if (!request) throw new Error('the captured lifecycle has no phase');

/** The phases after the answer, in order; a failure is printed, and the bench's drain finds it unsettled. */
async function settle(fresh: ReturnType<typeof remap>, id: number): Promise<void> {
  try {
    for (const phase of later) await writer.later.write(phase.changes.map(fresh));
  } catch (err) {
    console.error(`lifecycle ${id}: a later phase failed: ${String(err)}`);
  }
}

let served = 0;
const app = baselineApp();
transferOutRoute(app, async (body) => {
  const payer = bySource.get(body.source.accountId ?? '');
  if (!payer) return { status: 404, body: { status: 404, code: 'REFERENCE_NOT_FOUND', message: 'no such payer' } };
  const fresh = remap(lifecycle, payer);
  await writer.request.write(request.changes.map(fresh));
  void settle(fresh, ++served);
  return { status: 201, body: CANNED_TRANSACTION };
});
await listenForBench(app, () => writer.close());
