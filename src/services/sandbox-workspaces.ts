// Sandbox workspaces: a platform made over HTTP for one test (or one suite), emptied with reset, saved and
// brought back with snapshots. Every statement here is scoped to one platform's sandbox: no reset or
// restore can reach another platform's rows, or any production row.
import { iso } from '../domain/clock.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import type { Tx, TxOptions } from '../store/db.ts';
import type { Database } from '../store/schema.ts';
import { assert } from '../domain/assert.ts';
import { insertPlatform, type Credentials } from './platforms.ts';

/** A reset and a restore delete the whole workspace: a transaction of their own (see TxOptions). */
const BULK: TxOptions = { bulk: true };

export interface Workspace extends Credentials {
  platformId: string;
  name: string;
}

export interface SnapshotSummary {
  id: string;
  name: string | null;
  rows: number;
  createdAt: string;
}

/** Tables whose rows carry the scope themselves, in an order where every row's parents come first. */
const SCOPED_TABLES = [
  'customers',
  'ledger_accounts',
  'external_accounts',
  'transactions',
  'quotes',
  'invitations',
  'beneficial_owners',
  'documents',
  'verifications',
  'receiver_lookups',
  'idempotency_keys',
  'jobs',
  'events',
  'journal_entries',
] as const satisfies ReadonlyArray<keyof Database>;

/**
 * What resetWorkspace deletes and what it keeps, in words, for the people about to press it (the dashboard's
 * Reset section). Kept next to the code it describes so the two change together.
 */
export const RESET_DELETES = [
  'customers, their internal and external accounts, beneficial owners, documents and verifications',
  'transactions, quotes and invitations',
  'ledger entries and postings (the platform accounts stay, at a zero balance)',
  'webhook events and their delivery attempts, queued jobs, idempotency keys and receiver lookups',
  'the sandbox clock’s offset: it goes back to real time',
  'the request log and the fault rules',
] as const;
export const RESET_KEEPS = [
  'API tokens and their secrets: every session and integration keeps working',
  'the configuration: webhook endpoint, envelope, currencies and the webhook signing keys',
  'the platform’s own internal accounts (same ids)',
  'the saved snapshots',
] as const;

type ScopedTable = (typeof SCOPED_TABLES)[number];
/** The state of a workspace: its rows by table (postings and webhook attempts are read through their parent). */
type Rows = Record<ScopedTable | 'postings' | 'webhook_attempts', Record<string, unknown>[]>;

const INSERT_BATCH = 100;

/** A new platform whose sandbox is the workspace; its sandbox credentials are the answer (shown only now). */
export async function createWorkspace(ctx: Ctx, name: string | undefined): Promise<Workspace> {
  const label = name ?? 'workspace';
  const created = await ctx.store.tx((trx) => insertPlatform(trx, ctx, label));
  return { platformId: created.platformId, name: label, ...created.sandbox };
}

/** The ids the scope-less child tables (postings, webhook attempts) hang from, as subqueries of this scope. */
function idsOfChildTables(trx: Tx, { platformId, environment }: Scope) {
  const ofScope = (table: 'journal_entries' | 'events') =>
    trx.selectFrom(table).select('id').where('platform_id', '=', platformId).where('environment', '=', environment);
  return { entries: ofScope('journal_entries'), events: ofScope('events') };
}

async function deleteScoped(trx: Tx, scope: Scope, keepPlatformAccounts: boolean): Promise<number> {
  const { platformId, environment } = scope;
  const { entries, events } = idsOfChildTables(trx, scope);
  let deleted = 0;
  const count = (result: { numDeletedRows: bigint }) => {
    deleted += Number(result.numDeletedRows);
  };
  count(await trx.deleteFrom('webhook_attempts').where('event_id', 'in', events).executeTakeFirst());
  count(await trx.deleteFrom('postings').where('entry_id', 'in', entries).executeTakeFirst());
  // The last ledger check spoke of the ledger being replaced: the worker checks the new one afresh.
  await trx
    .deleteFrom('ledger_checks')
    .where('platform_id', '=', platformId)
    .where('environment', '=', environment)
    .execute();
  for (const table of [...SCOPED_TABLES].reverse()) {
    let query = trx.deleteFrom(table).where('platform_id', '=', platformId).where('environment', '=', environment);
    // The platform's own accounts (system and internal) keep their ids; with no postings left, a zero balance.
    if (table === 'ledger_accounts' && keepPlatformAccounts) query = query.where('owner', '<>', 'platform');
    count(await query.executeTakeFirst());
  }
  if (keepPlatformAccounts) {
    await trx
      .updateTable('ledger_accounts')
      .set({ balance: 0n })
      .where('platform_id', '=', platformId)
      .where('environment', '=', environment)
      .execute();
  }
  return deleted;
}

function sandboxOf(scope: Scope): Scope {
  if (scope.environment !== 'sandbox') throw new AppError('FORBIDDEN', 'Only a sandbox workspace can be reset');
  return scope;
}

async function setClockOffset(trx: Tx, scope: Scope, offsetMs: bigint): Promise<void> {
  await trx
    .updateTable('platform_configs')
    .set({ clock_offset_ms: offsetMs })
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .execute();
}

/** Empties the workspace (data, clock, request log, fault rules); its credentials, configuration and keys stay. */
/** What a reset also empties that lives beside the tables: the log a process still holds, the rules it caches. */
export interface SandboxDiagnostics {
  sandboxRequests: { flush(): Promise<void> };
  sandboxFaults: { forget(scope: Scope): void };
}

/** The one reset the API and the dashboard call: the request log this process holds is written first, so
 *  the reset removes it too, and the fault rules kept in memory go with the stored ones. */
export async function resetSandbox(ctx: Ctx, scope: Scope, diagnostics: SandboxDiagnostics) {
  await diagnostics.sandboxRequests.flush();
  const reset = await resetWorkspace(ctx, scope);
  diagnostics.sandboxFaults.forget(scope);
  return reset;
}

export async function resetWorkspace(ctx: Ctx, scope: Scope): Promise<{ deletedRows: number; resetAt: string }> {
  const sandbox = sandboxOf(scope);
  const deletedRows = await ctx.store.tx(async (trx) => {
    const deleted = await deleteScoped(trx, sandbox, true);
    await setClockOffset(trx, sandbox, 0n);
    // The request log and fault rules are the workspace's too, though no snapshot holds them (they say what
    // was done to it, not what it is): a reset empties them, a restore leaves them.
    for (const table of ['sandbox_requests', 'sandbox_faults'] as const) {
      await trx
        .deleteFrom(table)
        .where('platform_id', '=', sandbox.platformId)
        .where('environment', '=', sandbox.environment)
        .execute();
    }
    return deleted;
  }, BULK);
  // The clock is back at real time: the scope's time without its old offset.
  return { deletedRows, resetAt: iso(BigInt(scopeNowMs(ctx, { ...sandbox, clockOffsetMs: 0 }))) };
}

async function readRows(trx: Tx, scope: Scope): Promise<Rows> {
  const { platformId, environment } = scope;
  const rows = {} as Rows;
  for (const table of SCOPED_TABLES) {
    rows[table] = await trx
      .selectFrom(table)
      .selectAll()
      .where('platform_id', '=', platformId)
      .where('environment', '=', environment)
      .execute();
  }
  const { entries: entryIds, events: eventIds } = idsOfChildTables(trx, scope);
  rows.postings = await trx.selectFrom('postings').selectAll().where('entry_id', 'in', entryIds).execute();
  rows.webhook_attempts = await trx
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('event_id', 'in', eventIds)
    .execute();
  return rows;
}

// Every integer column is a bigint on both engines; JSON has no bigint, so each is tagged and read back exact.
const encode = (_key: string, value: unknown) => (typeof value === 'bigint' ? { $bigint: value.toString() } : value);
const decode = (_key: string, value: unknown) =>
  value !== null && typeof value === 'object' && '$bigint' in value && typeof value.$bigint === 'string'
    ? BigInt(value.$bigint)
    : value;

const countRows = (rows: Rows) => Object.values(rows).reduce((n, list) => n + list.length, 0);

/** Saves every row of the workspace, and its clock, as one stored document. */
export async function saveSnapshot(ctx: Ctx, scope: Scope, name: string | undefined): Promise<SnapshotSummary> {
  const sandbox = sandboxOf(scope);
  return ctx.store.tx(async (trx) => {
    const rows = await readRows(trx, sandbox);
    const config = await trx
      .selectFrom('platform_configs')
      .select('clock_offset_ms')
      .where('platform_id', '=', sandbox.platformId)
      .where('environment', '=', sandbox.environment)
      .executeTakeFirstOrThrow();
    const id = newId('Snapshot');
    const createdAt = BigInt(scopeNowMs(ctx, sandbox));
    const rowCount = countRows(rows);
    const data = JSON.stringify({ version: 1, clockOffsetMs: config.clock_offset_ms, rows }, encode);
    await trx
      .insertInto('sandbox_snapshots')
      .values({
        id,
        platform_id: sandbox.platformId,
        environment: sandbox.environment,
        name: name ?? null,
        data,
        row_count: BigInt(rowCount),
        created_at: createdAt,
      })
      .execute();
    return { id, name: name ?? null, rows: rowCount, createdAt: iso(createdAt) };
  });
}

/** Keeps only the rows of a document whose stored content still exists (one deleted since is not restored). */
async function withContent(trx: Tx, documents: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const wanted = [...new Set(documents.map((d) => String(d.sha256)))];
  if (wanted.length === 0) return documents;
  const present = await trx.selectFrom('document_files').select('sha256').where('sha256', 'in', wanted).execute();
  const kept = new Set(present.map((p) => p.sha256));
  return documents.filter((d) => kept.has(String(d.sha256)));
}

/**
 * Brings the workspace back to a snapshot of its own, in one transaction: everything it holds now goes,
 * the snapshot's rows and clock come back. Jobs that were running then are pending again.
 */
export async function restoreSnapshot(ctx: Ctx, scope: Scope, snapshotId: string): Promise<SnapshotSummary> {
  const sandbox = sandboxOf(scope);
  return ctx.store.tx(async (trx) => {
    const stored = await trx
      .selectFrom('sandbox_snapshots')
      .selectAll()
      .where('id', '=', snapshotId)
      .where('platform_id', '=', sandbox.platformId)
      .where('environment', '=', sandbox.environment)
      .executeTakeFirst();
    if (!stored) throw notFound('Snapshot', snapshotId, 'REFERENCE_NOT_FOUND');
    const saved = JSON.parse(stored.data, decode) as { clockOffsetMs: bigint; rows: Rows };
    await deleteScoped(trx, sandbox, false);
    saved.rows.documents = await withContent(trx, saved.rows.documents);
    saved.rows.jobs = saved.rows.jobs.map((job) =>
      job.status === 'running' ? { ...job, status: 'pending', lease_until: null } : job,
    );
    for (const table of [...SCOPED_TABLES, 'postings', 'webhook_attempts'] as const) {
      const rows = saved.rows[table];
      if (table !== 'postings' && table !== 'webhook_attempts') {
        const foreign = rows.find((r) => r.platform_id !== sandbox.platformId || r.environment !== 'sandbox');
        assert(foreign === undefined, `snapshot ${snapshotId} holds only rows of its own workspace`);
      }
      for (let i = 0; i < rows.length; i += INSERT_BATCH) {
        // Rows come back exactly as this scope stored them (their scope checked above), in parent-first order.
        const batch = rows.slice(i, i + INSERT_BATCH) as never[];
        await trx.insertInto(table).values(batch).execute();
      }
    }
    await setClockOffset(trx, sandbox, saved.clockOffsetMs);
    return { id: stored.id, name: stored.name, rows: countRows(saved.rows), createdAt: iso(stored.created_at) };
  }, BULK);
}

/** The workspace's snapshots, newest first. */
export async function listSnapshots(ctx: Ctx, scope: Scope): Promise<SnapshotSummary[]> {
  const rows = await ctx.store.db
    .selectFrom('sandbox_snapshots')
    .select(['id', 'name', 'row_count', 'created_at'])
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, rows: Number(r.row_count), createdAt: iso(r.created_at) }));
}

/** A platform's sandbox as a workspace to reset, save and restore. */
export interface SandboxWorkspaceService {
  /** A new platform whose sandbox is the workspace, with its sandbox credentials (shown only now). */
  create(name: string | undefined): Promise<Workspace>;
  /** Empties the workspace (data, clock, request log, fault rules). Raises FORBIDDEN (production). */
  reset(scope: Scope): Promise<{ deletedRows: number; resetAt: string }>;
  /** Saves every row of the workspace, and its clock. Raises FORBIDDEN (production). */
  save(scope: Scope, name: string | undefined): Promise<SnapshotSummary>;
  /** Puts a saved snapshot's rows and clock back. Raises FORBIDDEN (production), REFERENCE_NOT_FOUND. */
  restore(scope: Scope, snapshotId: string): Promise<SnapshotSummary>;
  /** The workspace's snapshots, newest first. */
  list(scope: Scope): Promise<SnapshotSummary[]>;
}

export function makeSandboxWorkspaceService(ctx: Ctx, diagnostics: SandboxDiagnostics): SandboxWorkspaceService {
  return {
    create: (name) => createWorkspace(ctx, name),
    reset: (scope) => resetSandbox(ctx, scope, diagnostics),
    save: (scope, name) => saveSnapshot(ctx, scope, name),
    restore: (scope, snapshotId) => restoreSnapshot(ctx, scope, snapshotId),
    list: (scope) => listSnapshots(ctx, scope),
  };
}
