/**
 * Seeds a database with N settled transfer-outs, fast, through the store's own Kysely database: the rows
 * are those one real lifecycle wrote (lifecycle-rows.ts captures them from the services), copied with new
 * ids, spread back in time, spread over the platform's payers. Each copy is written in its final state (the
 * transaction COMPLETED, its job done and, past the keeping time, purged), in batched multi-row inserts,
 * and each payer's balance moves by the sum of its copies' postings at the end, so the ledger's invariants
 * hold as after N real payments.
 */
import { sql } from 'kysely';
import { newId } from '../../src/domain/ids.ts';
import { DONE_JOB_KEEP_MS } from '../../src/services/index.ts';
import { insertRows } from '../../src/store/deferred-writes.ts';
import type { Store } from '../../src/store/db.ts';
import type { EventsTable, QuotesTable, TransactionsTable } from '../../src/store/schema.ts';
import { present } from '../../src/domain/assert.ts';
import { eventTypeOf } from '../../src/domain/transactions.ts';
import { toTransaction } from '../../src/services/transactions/queries.ts';
import type { Lifecycle, RowChange } from './lifecycle-rows.ts';
import { remap } from './lifecycle-rows.ts';
import type { Payer } from './setup.ts';

type Row = RowChange['row'];

/** The lifecycle's inserted rows with every later update applied, and the counter moves of pre-existing rows. */
function finalRows(l: Lifecycle): { inserts: RowChange[]; moves: RowChange[] } {
  const inserts: RowChange[] = [];
  const byId = new Map<string, RowChange>();
  const moves: RowChange[] = [];
  for (const phase of l.phases) {
    for (const c of phase.changes) {
      if (c.kind === 'insert') {
        const copy = { ...c, row: { ...c.row } };
        inserts.push(copy);
        if (typeof c.row.id === 'string') byId.set(c.row.id, copy);
        continue;
      }
      const made = byId.get(c.row.id as string);
      if (made) for (const col of c.changed) made.row[col] = c.row[col]!;
      else if (Object.keys(c.deltas).length > 0) moves.push(c);
    }
  }
  return { inserts, moves };
}

// Bound parameters per statement stay well under both engines' limits (SQLite 32766, PostgreSQL 65535).
const MAX_PARAMS = 30_000;

/** One batch of copies, parents before children (postings reference journal_entries), in one transaction. */
async function insertBatch(store: Store, tables: Map<string, Row[]>): Promise<void> {
  const order = ['transactions', 'journal_entries', 'postings', 'events', 'jobs', 'webhook_attempts'];
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const names = [...tables.keys()].sort((a, b) => rank(a) - rank(b));
  await store.tx(async (trx) => {
    for (const table of names) {
      const rows = tables.get(table)!;
      const per = Math.max(1, Math.floor(MAX_PARAMS / Object.keys(rows[0]!).length));
      for (let i = 0; i < rows.length; i += per)
        await trx
          .insertInto(table as 'jobs')
          .values(rows.slice(i, i + per) as never)
          .execute();
    }
  });
}

/**
 * Writes `count` copies of the lifecycle, the newest `spacingMs` before the captured one and each older
 * one `spacingMs` earlier, in batches of `batch` lifecycles (one database transaction per table per batch).
 */
export async function seedLifecycles(
  store: Store,
  l: Lifecycle,
  payers: Payer[],
  count: number,
  spacingMs = 1000,
  batch = 2000,
): Promise<void> {
  const { inserts, moves } = finalRows(l);
  // A larger page cache for this connection only: the index B-trees of a million rows stay in memory.
  if (store.engine === 'sqlite') await sql`pragma cache_size = -262144`.execute(store.db);
  const template: Lifecycle = { ...l, phases: [{ name: 'final', changes: inserts }] };
  const deltas = new Map<string, bigint>();
  // PostgreSQL takes two batches at once (a backend each, one per core); SQLite has one writer anyway.
  const inFlight: Promise<void>[] = [];
  const parallel = store.engine === 'postgres' ? 2 : 1;
  for (let start = 0; start < count; start += batch) {
    const tables = new Map<string, Row[]>();
    for (let k = start; k < Math.min(count, start + batch); k++) {
      const payer = payers[k % payers.length]!;
      const ageMs = (count - k) * spacingMs;
      const fresh = remap(template, payer, -ageMs);
      for (const c of inserts) {
        const { table, row } = fresh(c);
        // The worker purges done jobs past their keeping time: a database that grew over months holds only
        // the last hour's. Seeding them all would have the served database purge millions while measured.
        if (table === 'jobs' && ageMs > DONE_JOB_KEEP_MS) continue;
        let rows = tables.get(table);
        if (!rows) tables.set(table, (rows = []));
        rows.push(row);
      }
      for (const m of moves) {
        const id = fresh(m).row.id as string;
        deltas.set(id, (deltas.get(id) ?? 0n) + (m.deltas.balance ?? 0n));
      }
    }
    inFlight.push(insertBatch(store, tables));
    if (inFlight.length >= parallel) await inFlight.shift();
  }
  await Promise.all(inFlight);
  await store.tx(async (trx) => {
    for (const [id, delta] of deltas)
      await trx
        .updateTable('ledger_accounts')
        .set((eb) => ({ balance: eb('balance', '+', delta) }))
        .where('id', '=', id)
        .execute();
  });
}

/**
 * Once seeding is done: a database that grew over months has been vacuumed and analysed by autovacuum long
 * since; one seeded in minutes has not, and would answer with stale statistics and a visibility map that
 * sends every index-only scan back to the table. Its pages have long been written out too: a checkpoint now,
 * rather than one spread over the minutes the measurements take. PostgreSQL only.
 */
export async function settle(store: Store): Promise<void> {
  if (store.engine !== 'postgres') return;
  await sql`vacuum analyze`.execute(store.db);
  await sql`checkpoint`.execute(store.db);
}

/**
 * Writes `count` copies of the PENDING quote `quoteId`, each of the next payer's accounts and each `spacingMs`
 * older than the next, the newest `spacingMs` before the quote itself. Each copy is a quote left to expire: the
 * quote, its transaction EXPIRED, which moved no money (no ledger rows, no balance), and the expiry's event.
 */
export async function seedQuotes(
  store: Store,
  quoteId: string,
  payers: Pick<Payer, 'customerId' | 'accountId' | 'destination'>[],
  count: number,
  spacingMs = 1000,
): Promise<void> {
  const quote = await store.db.selectFrom('quotes').selectAll().where('id', '=', quoteId).executeTakeFirstOrThrow();
  const payment = await store.db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', quote.transaction_id)
    .executeTakeFirstOrThrow();
  if (payment.status !== 'PENDING')
    throw new Error(`seedQuotes copies a PENDING quote; ${quoteId} is ${payment.status}`);
  const BATCH = 500;
  for (let from = 0; from < count; from += BATCH) {
    const copies = Array.from({ length: Math.min(BATCH, count - from) }, (_, i) => {
      const k = from + i;
      return expiredCopy(
        quote,
        payment,
        payers[k % payers.length]!,
        quote.created_at - BigInt((count - k) * spacingMs),
      );
    });
    await store.tx(async (trx) => {
      await insertRows(
        trx,
        'transactions',
        copies.map((c) => c.payment),
      );
      await insertRows(
        trx,
        'quotes',
        copies.map((c) => c.quote),
      );
      await insertRows(
        trx,
        'events',
        copies.map((c) => c.event),
      );
    });
  }
}

/** A copy of `quote`, created at `at` by `payer`, that expired: its quote, its payment and the expiry's event. */
function expiredCopy(
  quote: QuotesTable,
  payment: TransactionsTable,
  payer: Pick<Payer, 'customerId' | 'accountId' | 'destination'>,
  at: bigint,
): { quote: QuotesTable; payment: TransactionsTable; event: EventsTable } {
  const expiresAt = at + (quote.expires_at - quote.created_at);
  const ids = { quote: newId('Quote'), payment: newId('Transaction') };
  const expired: TransactionsTable = {
    ...payment,
    customer_id: payer.customerId,
    source_account_id: payer.accountId,
    destination_account_id: payer.destination,
    id: ids.payment,
    quote_id: ids.quote,
    status: 'EXPIRED',
    created_at: at,
    updated_at: expiresAt,
  };
  return {
    quote: {
      ...quote,
      id: ids.quote,
      customer_id: payer.customerId,
      sending_account_id: payer.accountId,
      transaction_id: ids.payment,
      receiving_account_id: payer.destination,
      created_at: at,
      updated_at: at,
      expires_at: expiresAt,
    },
    payment: expired,
    // As the expiry recorded it: the ledger's checks want every change's event.
    event: {
      id: newId('Webhook'),
      platform_id: expired.platform_id,
      environment: expired.environment,
      type: present(eventTypeOf(expired, 'EXPIRED'), 'an expiry has its event'),
      object_id: expired.id,
      data: JSON.stringify(toTransaction(expired)),
      created_at: expiresAt,
      delivery_state: 'NO_ENDPOINT',
      delivery_run: 1n,
      delivery_updated_at: expiresAt,
    },
  };
}
