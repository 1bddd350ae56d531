// The export: payments routed to a bank-file connector (PENDING, rail_payments BATCHING) gathered into
// pain.001 files, one per currency at a time, each released whole or not at all.
//
// 1. Claim: a conditional UPDATE marks up to MAX_TXS_PER_FILE waiting payments with the new file's id (two
//    exporters can never claim the same payment), and one query counts them and sums their amounts.
// 2. Write the file to outbox/.tmp under its final name, streamed from the database, fsynced; validate it
//    against the connector's XSD.
// 3. Valid: ONE database transaction records the file RELEASED (msg id, sha256), sets its payments' rail
//    rows PENDING, and moves each payment PENDING → PROCESSING through the lifecycle's choke point (with its
//    webhook event). Then the file is renamed into the outbox, the folder fsynced, and the file marked placed
//    (applied_at). A crash anywhere leaves either nothing released (the claim is undone by recover.ts, the
//    payments go in the next file) or a released file that recover.ts places from its temp copy or writes
//    again from its rows, byte for byte (checked against the recorded sha256).
//    Not valid: the file is recorded REFUSED and kept in outbox/.refused with its errors; the payments the
//    schema's errors point at (all of them when the error is in the header) go on the attention list and out
//    of the batch until an operator settles or fails them; the others wait for the next file.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Iso20022ConnectorSettings } from '../../domain/connector-routes.ts';
import { newId } from '../../domain/ids.ts';
import { msgIdOf, pmtInfIdOf } from '../../rails/iso20022/ids.ts';
import { transferAtLine, writePain001, type Pain001Group, type WrittenPain001 } from '../../rails/iso20022/pain001.ts';
import { describeErrors, schemaPathOf, validateFile, type SchemaError } from '../../rails/iso20022/xsd.ts';
import { withDeferredWrites } from '../../store/deferred-writes.ts';
import type { BankFilesTable } from '../../store/schema.ts';
import { loadScope } from '../../platforms.ts';
import { type Ctx, type Scope, wallNowMs } from '../../context.ts';
import { moveTransaction } from '../transactions/lifecycle.ts';
import { loadForUpdate, lockTogether } from '../transactions/queries.ts';
import { filePages, type FilePayment } from './rows.ts';

/** Payments in one file at most: bounds a file's release transaction (a bank takes several files). */
export const MAX_TXS_PER_FILE = 10_000;
/** Files one export writes at most (a bound on its loop; the next export goes on). */
export const MAX_FILES_PER_EXPORT = 1_000;
/** Payments moved per nested write of the release transaction (a bound on one statement's size). */
const MOVES_PER_WRITE = 100;

/** What an export did with one file. */
export interface ExportedFile {
  connector: string;
  fileId: string;
  msgId: string;
  name: string;
  /** Where it is: the outbox for a released file, outbox/.refused for a refused one. */
  path: string;
  currency: string;
  nbOfTxs: number;
  /** Minor units of `currency`, as a decimal string (a bigint in JSON). */
  ctrlSum: string;
  state: 'RELEASED' | 'REFUSED';
  /** A refused file: why (its first schema error and line), and how many payments went on the attention list. */
  error?: string;
  heldBack?: number;
}

export const tmpDir = (settings: Iso20022ConnectorSettings) => join(settings.outbox, '.tmp');
export const refusedDir = (settings: Iso20022ConnectorSettings) => join(settings.outbox, '.refused');

/** The requested execution date of a file made at `ms`: that day, UTC. */
export const executionDateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The group a file's header says, from its recorded row (recover.ts writes a released file again with it). */
export function groupOf(
  settings: Iso20022ConnectorSettings,
  file: Pick<BankFilesTable, 'msg_id' | 'created_at'> & {
    currency: string;
    nbOfTxs: number;
    ctrlSum: bigint;
  },
): Pain001Group {
  const createdAtMs = Number(file.created_at);
  return {
    msgId: file.msg_id,
    createdAtMs,
    executionDate: executionDateOf(createdAtMs),
    debtor: settings.debtor,
    currency: file.currency,
    nbOfTxs: file.nbOfTxs,
    ctrlSum: file.ctrlSum,
    pmtInfId: pmtInfIdOf(file.msg_id, 0),
    variant: settings.variant,
  };
}

/** Writes a file's payments to `path` (replaced), fsynced; answers what it wrote and the payments in order. */
export async function writeFileOf(
  ctx: Ctx,
  bankFileId: string,
  group: Pain001Group,
  path: string,
): Promise<{ written: WrittenPain001; payments: FilePayment[] }> {
  const payments: FilePayment[] = [];
  const handle = await open(path, 'w');
  try {
    const written = await writePain001(
      handle,
      group,
      filePages(ctx, bankFileId, (page) => payments.push(...page)),
    );
    await handle.sync();
    return { written, payments };
  } finally {
    await handle.close();
  }
}

/** fsync of a folder, so that a rename in it survives a power cut. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A file's sha256, read streamed. */
export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The currency of the oldest payment still waiting for a file of this connector, if any. */
async function nextCurrency(ctx: Ctx, connector: string, before: number): Promise<string | undefined> {
  const row = await waiting(ctx, connector, before)
    .select('transactions.received_currency')
    .orderBy('rail_payments.transaction_id')
    .limit(1)
    .executeTakeFirst();
  return row?.received_currency;
}

/** The connector's payments that wait for a file: BATCHING, unclaimed, not held back, still PENDING. */
function waiting(ctx: Ctx, connector: string, before: number) {
  return ctx.store.db
    .selectFrom('rail_payments')
    .innerJoin('transactions', 'transactions.id', 'rail_payments.transaction_id')
    .where('rail_payments.connector', '=', connector)
    .where('rail_payments.state', '=', 'BATCHING')
    .where('rail_payments.bank_file_id', 'is', null)
    .where('rail_payments.attention', 'is', null)
    .where('transactions.status', '=', 'PENDING')
    .where('rail_payments.created_at', '<=', BigInt(before));
}

/**
 * Claims up to maxPaymentsPerFile (at most MAX_TXS_PER_FILE) waiting payments of `currency` for the file;
 * answers their count and sum.
 */
async function claim(
  ctx: Ctx,
  settings: Iso20022ConnectorSettings,
  currency: string,
  bankFileId: string,
  before: number,
): Promise<{ nbOfTxs: number; ctrlSum: bigint }> {
  const { db } = ctx.store;
  const ids = waiting(ctx, settings.name, before)
    .select('rail_payments.transaction_id')
    .where('transactions.received_currency', '=', currency)
    .orderBy('rail_payments.transaction_id')
    .limit(Math.min(settings.maxPaymentsPerFile ?? MAX_TXS_PER_FILE, MAX_TXS_PER_FILE));
  await db
    .updateTable('rail_payments')
    .set({ bank_file_id: bankFileId, updated_at: BigInt(wallNowMs(ctx)) })
    .where('transaction_id', 'in', ids)
    // Claimed by no one else meanwhile: the claim is this condition, not the lock.
    .where('bank_file_id', 'is', null)
    .where('state', '=', 'BATCHING')
    .execute();
  const totals = await db
    .selectFrom('rail_payments')
    .innerJoin('transactions', 'transactions.id', 'rail_payments.transaction_id')
    .select([
      sql<bigint>`count(*)`.as('count'),
      sql<bigint | null>`cast(sum(transactions.received_amount) as bigint)`.as('sum'),
    ])
    .where('rail_payments.bank_file_id', '=', bankFileId)
    .executeTakeFirst();
  return { nbOfTxs: Number(totals?.count ?? 0n), ctrlSum: totals?.sum ?? 0n };
}

/** Gives a file's claimed payments back to the batch (the file was not released). */
async function unclaim(ctx: Ctx, bankFileId: string): Promise<void> {
  await ctx.store.db
    .updateTable('rail_payments')
    .set({ bank_file_id: null })
    .where('bank_file_id', '=', bankFileId)
    .where('state', '=', 'BATCHING')
    .execute();
}

/** A payment of the file moved (cancelled) before its file's release: the file is made again without it. */
class NoLongerPending extends Error {
  constructor(readonly transactionId: string) {
    super(`${transactionId} is no longer PENDING`);
  }
}

export interface Made {
  connector: string;
  settings: Iso20022ConnectorSettings;
  fileId: string;
  group: Pain001Group;
  name: string;
  tempPath: string;
  written: WrittenPain001;
  payments: FilePayment[];
}

/** The file as an export reports it. */
function reported(made: Made, state: ExportedFile['state'], path: string, extra: Partial<ExportedFile> = {}) {
  return {
    connector: made.connector,
    fileId: made.fileId,
    msgId: made.group.msgId,
    name: made.name,
    path,
    currency: made.group.currency,
    nbOfTxs: made.group.nbOfTxs,
    ctrlSum: made.group.ctrlSum.toString(),
    state,
    ...extra,
  } satisfies ExportedFile;
}

/** The release: one transaction records the file and moves every payment of it to PROCESSING. */
async function release(ctx: Ctx, made: Made, scopes: Map<string, Scope>): Promise<void> {
  const nowMs = wallNowMs(ctx);
  await ctx.store.tx(async (trx) => {
    await trx
      .insertInto('bank_files')
      .values({
        ...fileRow(made, 'RELEASED', null),
        created_at: BigInt(made.group.createdAtMs),
      })
      .execute();
    const updated = await trx
      .updateTable('rail_payments')
      .set({ state: 'PENDING', updated_at: BigInt(nowMs) })
      .where('bank_file_id', '=', made.fileId)
      .where('state', '=', 'BATCHING')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== made.payments.length)
      throw new Error(`file ${made.name}: ${updated.numUpdatedRows} of its ${made.payments.length} payments are its`);
    for (let at = 0; at < made.payments.length; at += MOVES_PER_WRITE) {
      const chunk = made.payments.slice(at, at + MOVES_PER_WRITE);
      // Each chunk's moves and events are written when it ends: no statement grows with the file.
      await withDeferredWrites(trx, async () => {
        await lockTogether(
          trx,
          chunk.map((p) => p.id),
        );
        for (const p of chunk) {
          const scope = scopes.get(`${p.platformId} ${p.environment}`);
          const payment = scope && (await loadForUpdate(trx, scope, p.id));
          if (!scope || payment?.status !== 'PENDING') throw new NoLongerPending(p.id);
          await moveTransaction(ctx, trx, scope, payment, { to: 'PROCESSING' });
        }
      });
    }
  });
}

function fileRow(made: Made, state: 'RELEASED' | 'REFUSED', error: string | null) {
  return {
    id: made.fileId,
    connector: made.connector,
    direction: 'OUT' as const,
    kind: 'pain.001' as const,
    msg_id: made.group.msgId,
    name: made.name,
    sha256: made.written.sha256,
    currency: made.group.currency,
    nb_of_txs: BigInt(made.group.nbOfTxs),
    ctrl_sum: made.group.ctrlSum,
    state,
    error,
    created_at: BigInt(made.group.createdAtMs),
    applied_at: null,
  };
}

/** Moves a released file's temp copy into the outbox and marks it placed. */
export async function place(ctx: Ctx, settings: Iso20022ConnectorSettings, fileId: string, name: string) {
  const finalPath = join(settings.outbox, name);
  await rename(join(tmpDir(settings), name), finalPath);
  await syncFolder(settings.outbox);
  await syncFolder(tmpDir(settings));
  await ctx.store.db
    .updateTable('bank_files')
    .set({ applied_at: BigInt(wallNowMs(ctx)) })
    .where('id', '=', fileId)
    .execute();
  return finalPath;
}

/** The payments a refused file's errors point at: those whose lines hold an error, or all of them. */
function culprits(made: Made, errors: readonly SchemaError[]): Map<string, SchemaError> {
  const byPayment = new Map<string, SchemaError>();
  for (const error of errors) {
    const index = error.line >= made.written.firstTransferLine ? transferAtLine(made.written, error.line) : undefined;
    const payment = index === undefined ? undefined : made.payments[index];
    // An error in the header (or without a line) is every payment's.
    if (!payment) return new Map(made.payments.map((p) => [p.id, error]));
    if (!byPayment.has(payment.id)) byPayment.set(payment.id, error);
  }
  return byPayment;
}

/** A file its schema refused: recorded, kept aside with its errors, its culprits on the attention list. */
async function refuse(ctx: Ctx, made: Made, errors: readonly SchemaError[]): Promise<ExportedFile> {
  const reason = describeErrors(errors);
  const held = culprits(made, errors);
  const now = BigInt(wallNowMs(ctx));
  await mkdir(refusedDir(made.settings), { recursive: true });
  const path = join(refusedDir(made.settings), made.name);
  await rename(made.tempPath, path);
  await writeFile(`${path}.error.txt`, `${errors.map((e) => `line ${e.line}: ${e.message}`).join('\n')}\n`);
  await ctx.store.tx(async (trx) => {
    await trx
      .insertInto('bank_files')
      .values(fileRow(made, 'REFUSED', reason.slice(0, 2000)))
      .execute();
    for (const [id, error] of held) {
      const why = `pain.001 ${made.name} refused by its schema: ${describeErrors([error])}`;
      await trx
        .updateTable('rail_payments')
        .set({ attention: why.slice(0, 500), attention_since: now, bank_file_id: null, updated_at: now })
        .where('transaction_id', '=', id)
        .execute();
    }
    await trx
      .updateTable('rail_payments')
      .set({ bank_file_id: null })
      .where('bank_file_id', '=', made.fileId)
      .where('state', '=', 'BATCHING')
      .execute();
  });
  return reported(made, 'REFUSED', path, { error: reason, heldBack: held.size });
}

/** The scopes of a file's payments, read before its release transaction (which reads nothing outside it). */
async function scopesOf(ctx: Ctx, payments: readonly FilePayment[]): Promise<Map<string, Scope>> {
  const scopes = new Map<string, Scope>();
  for (const p of payments) {
    const key = `${p.platformId} ${p.environment}`;
    if (!scopes.has(key)) scopes.set(key, await loadScope(ctx, p.platformId, p.environment));
  }
  return scopes;
}

/** Writes, validates and releases (or refuses) one file of `currency`; undefined when nothing was claimed. */
async function exportOne(
  ctx: Ctx,
  settings: Iso20022ConnectorSettings,
  currency: string,
  before: number,
): Promise<ExportedFile | undefined> {
  const connector = settings.name;
  const fileId = newId('BankFile');
  const totals = await claim(ctx, settings, currency, fileId, before);
  if (totals.nbOfTxs === 0) return undefined;
  const msgId = msgIdOf(fileId);
  const createdAtMs = wallNowMs(ctx);
  const group = groupOf(settings, { msg_id: msgId, created_at: BigInt(createdAtMs), currency, ...totals });
  const name = `${msgId}.xml`;
  const tempPath = join(tmpDir(settings), name);
  let made: Made | undefined;
  try {
    const { written, payments } = await writeFileOf(ctx, fileId, group, tempPath);
    made = { connector, settings, fileId, group, name, tempPath, written, payments };
    const validation = await validateFile(schemaPathOf(settings, 'pain.001'), tempPath);
    if (!validation.ok) return await refuse(ctx, made, validation.errors);
    await release(ctx, made, await scopesOf(ctx, payments));
  } catch (err) {
    // Nothing was released: the payments go back to the batch (one cancelled meanwhile is no longer PENDING).
    await rm(tempPath, { force: true });
    await unclaim(ctx, fileId);
    if (err instanceof NoLongerPending) return undefined;
    throw err;
  }
  return reported(made, 'RELEASED', await place(ctx, settings, fileId, name));
}

/**
 * Exports the payments of one connector routed to it by `before` (wall-clock ms; a cut-off's instant, or now)
 * into files; the caller holds the connector's export lock.
 */
export async function exportConnector(
  ctx: Ctx,
  settings: Iso20022ConnectorSettings,
  before: number,
): Promise<ExportedFile[]> {
  const files: ExportedFile[] = [];
  for (let round = 0; round < MAX_FILES_PER_EXPORT; round++) {
    const currency = await nextCurrency(ctx, settings.name, before);
    if (currency === undefined) break;
    const file = await exportOne(ctx, settings, currency, before);
    if (file) files.push(file);
  }
  return files;
}
