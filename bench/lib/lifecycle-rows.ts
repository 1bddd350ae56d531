/**
 * The rows one transfer-out lifecycle writes, found by running one through the services and diffing every
 * table before and after each phase, and a way to write the same rows again with fresh ids. The raw-SQL
 * bounds (bench/run.ts, bench/lab/transfer-out.ts) and the growth seeder (bench/lab/growth.ts) all replay
 * them, so none can drift from what the service really writes: change the lifecycle and all follow.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { v7 as uuidv7 } from 'uuid';
import type { Scope } from '../../src/context.ts';
import type { Services } from '../../src/services/index.ts';
import type { Store } from '../../src/store/db.ts';
import { transferBody, type Payer } from './setup.ts';

type Value = string | number | bigint | null;
type Row = Record<string, Value>;

export interface RowChange {
  table: string;
  /** Inserted rows carry every column; updated rows the primary key and the columns that changed. */
  kind: 'insert' | 'update';
  row: Row;
  /** For updates: the columns that changed, with how much a counter moved (balance) where it is one. */
  changed: string[];
  deltas: Record<string, bigint>;
}

export interface Phase {
  name: string;
  changes: RowChange[];
}

export interface Lifecycle {
  phases: Phase[];
  /** Ids that name rows the lifecycle made: each replay gets new ones. */
  newIds: string[];
  payer: Payer;
}

// Columns that count: a replay moves them by the same amount rather than setting them.
const COUNTERS = new Set(['balance']);

async function snapshot(store: Store): Promise<Map<string, Map<string, Row>>> {
  const tables = (await store.db.introspection.getTables()).map((t) => t.name).filter((n) => !n.startsWith('kysely'));
  const out = new Map<string, Map<string, Row>>();
  for (const table of tables) {
    const rows = (await store.db
      .selectFrom(table as 'jobs')
      .selectAll()
      .execute()) as unknown as Row[];
    const byKey = new Map<string, Row>();
    for (const row of rows) byKey.set(typeof row.id === 'string' ? row.id : JSON.stringify(row, jsonBig), row);
    out.set(table, byKey);
  }
  return out;
}

const jsonBig = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
const same = (a: Value, b: Value) => (a === null || b === null ? a === b : String(a) === String(b));

function diff(before: Map<string, Map<string, Row>>, after: Map<string, Map<string, Row>>): RowChange[] {
  const changes: RowChange[] = [];
  for (const [table, rows] of after) {
    const old = before.get(table) ?? new Map<string, Row>();
    for (const [key, row] of rows) {
      const was = old.get(key);
      if (!was) {
        changes.push({ table, kind: 'insert', row, changed: [], deltas: {} });
        continue;
      }
      const changed = Object.keys(row).filter((c) => !same(row[c]!, was[c]!));
      if (changed.length === 0) continue;
      const deltas: Record<string, bigint> = {};
      for (const c of changed) if (COUNTERS.has(c)) deltas[c] = BigInt(row[c]!) - BigInt(was[c]!);
      changes.push({ table, kind: 'update', row, changed, deltas });
    }
    for (const key of old.keys())
      if (!rows.has(key)) throw new Error(`one lifecycle deleted a row of ${table}: the replay cannot do that`);
  }
  return changes;
}

/**
 * Runs one transfer-out through the services on a store whose worker does not run by itself, and
 * records what each phase wrote: the request (POST /transfer-out) and then each round of due jobs (the
 * rail step that moves it to PROCESSING and settles it, then any webhook deliveries).
 */
export async function captureLifecycle(store: Store, services: Services, scope: Scope, payer: Payer) {
  let id = '';
  const lifecycle = await capturePhases(store, services, payer, async (step) => {
    await step('request', async () => {
      id = (await services.transfers.transferOut(scope, transferBody(payer))).id;
    });
    for (let round = 1; round <= 5; round++)
      await step(`jobs round ${round}`, () => services.worker.drain({ platformId: scope.platformId }, 1));
  });
  const payment = await services.transactions.get(scope, id);
  if (payment.status !== 'COMPLETED') throw new Error(`the captured lifecycle ended ${payment.status}`);
  return lifecycle;
}

/**
 * What the steps `run` takes wrote, phase by phase (each `step` is a phase): the rows of any flow, not only
 * the sandbox's transfer-out (bench/lab/bank.ts captures a production payout up to its bank file's batch).
 */
export async function capturePhases(
  store: Store,
  services: Services,
  payer: Payer,
  run: (step: (name: string, work: () => Promise<unknown>) => Promise<void>) => Promise<void>,
): Promise<Lifecycle> {
  const phases: Phase[] = [];
  // Whatever other platforms left queued runs first, so the diff holds this lifecycle alone.
  await services.worker.drain();
  let before = await snapshot(store);
  await run(async (name, work) => {
    await work();
    const after = await snapshot(store);
    const changes = diff(before, after);
    if (changes.length > 0) phases.push({ name, changes });
    before = after;
  });
  const newIds = phases.flatMap((p) =>
    p.changes.filter((c) => c.kind === 'insert' && typeof c.row.id === 'string').map((c) => c.row.id as string),
  );
  return { phases, newIds, payer } satisfies Lifecycle;
}

/** One line per phase: `request: transactions +1, postings +2, ledger_accounts ~2 …` (+ inserted, ~ updated). */
export function describeLifecycle(l: Lifecycle): string[] {
  return l.phases.map((p) => {
    const counts = new Map<string, number>();
    for (const c of p.changes) {
      const key = `${c.table} ${c.kind === 'insert' ? '+' : '~'}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return `${p.name}: ${[...counts].map(([k, n]) => `${k}${n}`).join(', ')}`;
  });
}

const COMPACT_UUID = /^[0-9a-f]{32}$/;
const compact = (id: string) => id.slice(id.indexOf(':') + 1).replaceAll('-', '');

/**
 * The same rows with new ids, for another payer, with every time column moved by `shiftMs`: a map from
 * each old id to its new one (time-ordered, as the service's are) is applied to every text column (JSON
 * payloads and event data name ids too).
 */
export function remap(l: Lifecycle, payer: Payer, shiftMs = 0) {
  const map = new Map<string, string>();
  // Matched whole only (a column that is the compact form), so that the search inside text stays as it was.
  const compacts = new Map<string, string>();
  for (const id of l.newIds) {
    const fresh = `${id.slice(0, id.indexOf(':') + 1)}${uuidv7()}`;
    map.set(id, fresh);
    // The compact form a bank file names a payment by (rails/iso20022/ids.ts: the uuid's 32 hex digits), as
    // rail_payments.rail_reference holds it: each copy gets its own EndToEndId.
    const [from, to] = [compact(id), compact(fresh)];
    if (COMPACT_UUID.test(from)) compacts.set(from, to);
  }
  map.set(l.payer.accountId, payer.accountId);
  map.set(l.payer.destination, payer.destination);
  map.set(l.payer.customerId, payer.customerId);
  map.set(l.payer.platformCustomerId, payer.platformCustomerId);
  const shift = BigInt(shiftMs);
  const value = (column: string, v: Value): Value => {
    if (typeof v === 'string') {
      const exact = map.get(v) ?? compacts.get(v);
      if (exact) return exact;
      if (!v.includes(':')) return v;
      let out = v;
      for (const [from, to] of map) if (out.includes(from)) out = out.replaceAll(from, to);
      return out;
    }
    if (shift !== 0n && v !== null && (column.endsWith('_at') || column === 'run_at')) return BigInt(v) + shift;
    return v;
  };
  return (change: RowChange): RowChange => {
    const row: Row = {};
    for (const [k, v] of Object.entries(change.row)) row[k] = value(k, v);
    return { ...change, row };
  };
}

/** A captured lifecycle and the payers to replay it for, as a file another process reads (bigints kept). */
export function saveLifecycle(file: string, lifecycle: Lifecycle, payers: Payer[]): void {
  const text = JSON.stringify({ lifecycle, payers }, (_k, v: unknown) =>
    typeof v === 'bigint' ? { bigint: v.toString() } : v,
  );
  writeFileSync(file, text);
}

export function loadLifecycle(file: string): { lifecycle: Lifecycle; payers: Payer[] } {
  return JSON.parse(readFileSync(file, 'utf8'), (_k, v: unknown) =>
    v !== null && typeof v === 'object' && 'bigint' in v && Object.keys(v).length === 1
      ? BigInt((v as { bigint: string }).bigint)
      : v,
  );
}
