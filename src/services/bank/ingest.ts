// What the bank sends back, applied: pain.002 status reports and camt.054 debit and credit notifications,
// from the connector's inbox or `payouts bank ingest FILE…`. A file is applied once (by its content's hash),
// whole, in one database transaction: every status it reports becomes a RailEvent taken by the one path
// (services/connectors/events.ts), every credit it books funds the quote its reference names, or waits on
// the unmatched list. A file that cannot be read, that its schema refuses, or that is another debtor's, is
// refused whole with the element and line named, and nothing of it is applied.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { bankReasonNote, refusesDuplicate, rejectionReason, returnReason } from '../../domain/bank-reasons.ts';
import type { Iso20022ConnectorSettings } from '../../domain/connector-routes.ts';
import { newId } from '../../domain/ids.ts';
import type { RailEvent } from '../../rails/connector.ts';
import { CAMT054_NAMESPACE, type Camt054Entry, readCamt054 } from '../../rails/iso20022/camt054.ts';
import { bankFileIdOfMsgId, transactionIdOfEndToEnd } from '../../rails/iso20022/ids.ts';
import { PAIN002_NAMESPACE, type Pain002Item, readPain002 } from '../../rails/iso20022/pain002.ts';
import { BankFileError, rootOf } from '../../rails/iso20022/reader.ts';
import { type BankFileKind, describeErrors, schemaPathOf, validateFile } from '../../rails/iso20022/xsd.ts';
import { isUniqueViolation, type Tx, withinTransaction } from '../../store/db.ts';
import type { BankCreditsTable, BankFilesTable } from '../../store/schema.ts';
import { type Ctx, wallNowMs } from '../../context.ts';
import type { JobWorker } from '../../jobs/worker.ts';
import { takeRailEventIn, type EventResult } from '../connectors/events.ts';
import { fundQuoteByReference } from '../quotes/execution.ts';
import type { TransactionService } from '../transactions/index.ts';

export interface IngestDeps {
  ctx: Ctx;
  worker: JobWorker;
  transactions: TransactionService;
}

/** What a file's items did. */
export interface IngestCounts {
  /** Statuses and entries read. */
  items: number;
  /** Events that moved a payment. */
  applied: number;
  /** Events recorded that changed nothing (an acceptance, a late or repeated status). */
  unchanged: number;
  /** Events naming a payment this connector never sent, recorded as UNKNOWN_PAYMENT. */
  unknown: number;
  /** Events and credits taken before, from another file. */
  replays: number;
  funded: number;
  mismatched: number;
  unmatched: number;
  /** Credits not booked yet (PDNG, INFO): not money yet; their booked notification comes later. */
  notBooked: number;
}

export type IngestOutcome =
  | { outcome: 'APPLIED'; file: string; bankFileId: string; kind: BankFileKind; msgId: string; counts: IngestCounts }
  | { outcome: 'ALREADY_APPLIED'; file: string; bankFileId: string; kind: BankFileKind; msgId: string }
  | { outcome: 'REFUSED'; file: string; bankFileId: string; error: string };

/** Why a file is refused whole: thrown inside its transaction, so that nothing of it is applied. */
class Refusal extends Error {}

const zeroCounts = (): IngestCounts => ({
  items: 0,
  applied: 0,
  unchanged: 0,
  unknown: 0,
  replays: 0,
  funded: 0,
  mismatched: 0,
  unmatched: 0,
  notBooked: 0,
});

/** The file's SHA-256, streamed. */
async function sha256Of(filePath: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(filePath)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const compactIban = (iban: string) => iban.replace(/\s+/g, '').toUpperCase();

/** The message a file is, from its root element's namespace; a Refusal for any other document. */
async function kindOf(filePath: string): Promise<Extract<BankFileKind, 'pain.002' | 'camt.054'>> {
  const root = await rootOf(filePath);
  if (root.local === 'Document' && root.uri === PAIN002_NAMESPACE) return 'pain.002';
  if (root.local === 'Document' && root.uri === CAMT054_NAMESPACE) return 'camt.054';
  throw new BankFileError(
    root.local,
    root.line,
    `the root is <${root.local}> in namespace "${root.uri}": not a status report (${PAIN002_NAMESPACE}) ` +
      `or a debit and credit notification (${CAMT054_NAMESPACE})`,
  );
}

/** How a payment status of a pain.002 moves it: a rejection fails it; anything else is an acceptance. */
function statusEvent(status: string, reason: { code?: string | undefined } | undefined) {
  if (status === 'RJCT') return { status: 'FAILED' as const, reason: rejectionReason(reason?.code) };
  return { status: 'PENDING' as const, reason: undefined };
}

/** One file's application, inside its transaction: the items read, each one taken. */
class Application {
  readonly counts = zeroCounts();
  msgId = '';
  private createdAtMs: number | undefined;
  private readonly nowMs: number;

  constructor(
    private readonly deps: IngestDeps,
    private readonly trx: Tx,
    private readonly settings: Iso20022ConnectorSettings,
    readonly bankFileId: string,
    private readonly file: { name: string; sha256: string; kind: BankFileKind },
  ) {
    this.nowMs = wallNowMs(deps.ctx);
  }

  /** The file's own row, first: a second process applying the same bytes meets its unique key at once. */
  async recordFile(msgId: string, createdAt: string): Promise<void> {
    this.msgId = msgId;
    const ms = Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(createdAt) ? createdAt : `${createdAt}Z`);
    this.createdAtMs = Number.isNaN(ms) ? undefined : ms;
    await this.trx
      .insertInto('bank_files')
      .values({
        id: this.bankFileId,
        connector: this.settings.name,
        direction: 'IN',
        kind: this.file.kind,
        msg_id: msgId,
        name: this.file.name,
        sha256: this.file.sha256,
        currency: null,
        nb_of_txs: 0n,
        ctrl_sum: null,
        state: 'APPLIED',
        error: null,
        created_at: BigInt(this.nowMs),
        applied_at: BigInt(this.nowMs),
      })
      .execute();
  }

  async finish(): Promise<void> {
    await this.trx
      .updateTable('bank_files')
      .set({ nb_of_txs: BigInt(this.counts.items) })
      .where('id', '=', this.bankFileId)
      .execute();
  }

  async take(
    event: Omit<RailEvent, 'bankFileId' | 'occurredAtMs'> & { occurredAtMs?: number | undefined },
  ): Promise<void> {
    const { ctx } = this.deps;
    const taken = await takeRailEventIn(ctx, this.trx, this.settings.name, {
      ...event,
      bankFileId: this.bankFileId,
      occurredAtMs: event.occurredAtMs ?? this.createdAtMs ?? this.nowMs,
    });
    this.count(taken.result);
  }

  private count(result: EventResult) {
    if (result === 'APPLIED') this.counts.applied += 1;
    else if (result === 'NO_CHANGE') this.counts.unchanged += 1;
    else if (result === 'UNKNOWN_PAYMENT') this.counts.unknown += 1;
    else this.counts.replays += 1;
  }

  /** The debtor the file says it is about must be the connector's: another's file is refused whole. */
  checkDebtor(iban: string | undefined, element: string, line: number): void {
    const ours = compactIban(this.settings.debtor.iban);
    if (iban !== undefined && compactIban(iban) === ours) return;
    throw new Refusal(
      `line ${line}, <${element}>: the account ${iban ?? '(none named by IBAN)'} is not this connector's ` +
        `debtor account ${ours}: another debtor's file`,
    );
  }

  // pain.002

  /** The original file a report is about: one this connector released, or the report is not ours. */
  async originalFile(originalMsgId: string, line: number): Promise<BankFilesTable> {
    const id = bankFileIdOfMsgId(originalMsgId);
    const row = id
      ? await this.trx
          .selectFrom('bank_files')
          .selectAll()
          .where('id', '=', id)
          .where('connector', '=', this.settings.name)
          .where('direction', '=', 'OUT')
          .executeTakeFirst()
      : undefined;
    if (!row)
      throw new Refusal(
        `line ${line}, <OrgnlMsgId>: ${originalMsgId} names no pain.001 this connector (${this.settings.name}) sent`,
      );
    return row;
  }

  /** The payments of an original file, a page at a time, by transaction id. */
  async *paymentsOf(bankFileId: string): AsyncGenerator<{ transaction_id: string; rail_reference: string | null }> {
    let after = '';
    for (;;) {
      const page = await this.trx
        .selectFrom('rail_payments')
        .select(['transaction_id', 'rail_reference'])
        .where('connector', '=', this.settings.name)
        .where('bank_file_id', '=', bankFileId)
        .where('transaction_id', '>', after)
        .orderBy('transaction_id')
        .limit(500)
        .execute();
      yield* page;
      const last = page.at(-1);
      if (!last || page.length < 500) return;
      after = last.transaction_id;
    }
  }

  /** A status for a whole file or batch: one event for each of its payments, each with an id of its own. */
  async statusForAll(original: BankFilesTable, status: string, reason: Pain002Item['reason'], tag: string) {
    const moved = statusEvent(status, reason);
    for await (const payment of this.paymentsOf(original.id)) {
      await this.take({
        messageId: `${this.msgId}/${tag}/${payment.transaction_id}`,
        transactionId: payment.transaction_id,
        railReference: payment.rail_reference ?? undefined,
        ...moved,
        kind: 'STATUS_REPORT',
        note: bankReasonNote(reason),
      });
    }
  }

  // camt.054

  /** A debit booked or pending, or a payment sent back: an event for the payment its EndToEndId names. */
  async entry(entry: Camt054Entry): Promise<void> {
    const returned = entry.returnInfo !== undefined || (entry.reversal && entry.direction === 'CRDT');
    if (entry.direction === 'CRDT' && !returned) return this.credit(entry);
    const booked = entry.status === 'BOOK';
    const e2e = entry.endToEndId;
    const status = !booked ? 'PENDING' : returned ? 'RETURNED' : 'COMPLETED';
    await this.take({
      // The bank's identity of the entry: the same entry in another notification is a replay.
      messageId: `${entry.entryKey}/${status}`,
      transactionId: e2e === undefined ? undefined : transactionIdOfEndToEnd(e2e),
      railReference: e2e,
      status,
      reason: status === 'RETURNED' ? returnReason(entry.returnInfo?.code) : undefined,
      note: bankReasonNote(entry.returnInfo),
      occurredAtMs: entry.bookedAtMs,
      amount: entry.amount,
      currency: entry.currency,
      kind: 'ENTRY',
    });
  }

  /** A credit: the quote its reference names is funded, or it waits on the unmatched list; never lost. */
  private async credit(entry: Camt054Entry): Promise<void> {
    if (entry.status !== 'BOOK') {
      this.counts.notBooked += 1;
      return;
    }
    const { trx, settings } = this;
    const seen = await trx
      .selectFrom('bank_credits')
      .select('id')
      .where('connector', '=', settings.name)
      .where('entry_key', '=', entry.entryKey)
      .executeTakeFirst();
    if (seen) {
      this.counts.replays += 1;
      return;
    }
    const reference = referenceOf(entry);
    const match = reference
      ? await fundQuoteByReference(this.deps, trx, reference, { currency: entry.currency, amount: entry.amount })
      : { result: 'UNMATCHED' as const };
    if (match.result === 'FUNDED') this.counts.funded += 1;
    else if (match.result === 'MISMATCH') this.counts.mismatched += 1;
    else this.counts.unmatched += 1;
    await trx
      .insertInto('bank_credits')
      .values({
        id: newId('BankCredit'),
        connector: settings.name,
        bank_file_id: this.bankFileId,
        entry_key: entry.entryKey,
        reference: reference ?? entry.reference ?? null,
        amount: entry.amount,
        currency: entry.currency,
        booked_at: BigInt(entry.bookedAtMs ?? this.createdAtMs ?? this.nowMs),
        result: match.result,
        quote_id: match.quoteId ?? null,
        transaction_id: match.transactionId ?? null,
        created_at: BigInt(this.nowMs),
      })
      .execute();
  }
}

/** The quote references this service gives out (services/quotes/pricing.ts): found anywhere in the remittance. */
const QUOTE_REFERENCE = /\bPAY-[0-9A-F]{12}\b/i;

/** The reference a credit names: its structured one, else one of ours found in its remittance lines. */
function referenceOf(entry: Camt054Entry): string | undefined {
  const found = QUOTE_REFERENCE.exec(entry.reference ?? '') ?? QUOTE_REFERENCE.exec(entry.remittance ?? '');
  return found ? found[0].toUpperCase() : entry.reference;
}

async function applyPain002(app: Application, filePath: string): Promise<void> {
  let original: BankFilesTable | undefined;
  for await (const item of readPain002(filePath)) {
    if (item.kind === 'GROUP') {
      await app.recordFile(item.msgId, item.createdAt);
      original = await app.originalFile(item.originalMsgId, item.line);
      // PART says "see each batch and payment"; any other group status holds for every payment of the file,
      // but for a refused second copy (a file placed again after a crash): the first copy's payments stand.
      const duplicate = item.status === 'RJCT' && refusesDuplicate(item.reason?.code);
      if (item.status && item.status !== 'PART' && !duplicate)
        await app.statusForAll(original, item.status, item.reason, 'G');
      continue;
    }
    if (!original) throw new BankFileError(item.kind, item.line, 'a status before the original group');
    app.counts.items += 1;
    if (item.kind === 'BATCH') {
      if (!item.originalPmtInfId.startsWith(`${original.msg_id}-`))
        throw new Refusal(
          `line ${item.line}, <OrgnlPmtInfId>: ${item.originalPmtInfId} is not a batch of ${original.msg_id}`,
        );
      // A batch's status, its payments not listed: it holds for each of them. The export writes one batch per
      // file (one currency, one execution date), so the batch's payments are the file's.
      if (!item.listsPayments && item.status)
        await app.statusForAll(original, item.status, item.reason, `B/${item.originalPmtInfId}`);
      continue;
    }
    if (item.debtorIban !== undefined) app.checkDebtor(item.debtorIban, 'DbtrAcct', item.line);
    const e2e = item.originalEndToEndId;
    await app.take({
      messageId: `${app.msgId}/T/${item.index}`,
      transactionId: e2e === undefined ? undefined : transactionIdOfEndToEnd(e2e),
      railReference: e2e,
      ...statusEvent(item.status ?? 'PDNG', item.reason),
      kind: 'STATUS_REPORT',
      note: bankReasonNote(item.reason),
    });
  }
}

async function applyCamt054(app: Application, filePath: string): Promise<void> {
  for await (const item of readCamt054(filePath)) {
    if (item.kind === 'HEADER') await app.recordFile(item.msgId, item.createdAt);
    else if (item.kind === 'ACCOUNT') app.checkDebtor(item.iban, 'Acct', item.line);
    else {
      app.counts.items += 1;
      await app.entry(item);
    }
  }
}

/** Reads a file to its end, applying nothing: throws its BankFileError if it is not well-formed. */
async function readWhole(kind: 'pain.002' | 'camt.054', filePath: string): Promise<void> {
  const items: AsyncIterable<unknown> = kind === 'pain.002' ? readPain002(filePath) : readCamt054(filePath);
  for await (const item of items) void item;
}

const priorOf = (ctx: Ctx, connector: string, sha256: string) =>
  ctx.store.db
    .selectFrom('bank_files')
    .selectAll()
    .where('connector', '=', connector)
    .where('direction', '=', 'IN')
    .where('sha256', '=', sha256)
    .executeTakeFirst();

/** The answer for bytes seen before: applied once already, or refused already (the same bytes, the same no). */
function answerFor(prior: BankFilesTable, file: string): IngestOutcome {
  if (prior.state === 'APPLIED')
    return { outcome: 'ALREADY_APPLIED', file, bankFileId: prior.id, kind: prior.kind, msgId: prior.msg_id };
  return { outcome: 'REFUSED', file, bankFileId: prior.id, error: prior.error ?? 'refused' };
}

/** Records a refused file (the same bytes are refused again without being read), and answers its refusal. */
async function refuse(
  ctx: Ctx,
  settings: Iso20022ConnectorSettings,
  file: { path: string; sha256: string; kind: BankFileKind | undefined },
  error: string,
): Promise<IngestOutcome> {
  const nowMs = BigInt(wallNowMs(ctx));
  const id = newId('BankFile');
  const stored = await ctx.store
    .tx((trx) =>
      trx
        .insertInto('bank_files')
        .values({
          id,
          connector: settings.name,
          direction: 'IN',
          kind: file.kind ?? 'camt.054',
          // Not the file's MsgId: a refused file may have none, or one a good file has. 65 characters, so
          // never a MsgId (Max35Text).
          msg_id: `!${file.sha256}`,
          name: basename(file.path),
          sha256: file.sha256,
          currency: null,
          nb_of_txs: 0n,
          ctrl_sum: null,
          state: 'REFUSED',
          error,
          created_at: nowMs,
          applied_at: null,
        })
        // Refused before: the latest reason is kept.
        .onConflict((oc) => oc.columns(['connector', 'direction', 'sha256']).doUpdateSet({ error, created_at: nowMs }))
        .returning('id')
        .executeTakeFirst(),
    )
    .catch((err: unknown) => {
      if (!isUniqueViolation(err)) throw err;
      return undefined;
    });
  return { outcome: 'REFUSED', file: file.path, bankFileId: stored?.id ?? id, error };
}

/**
 * Ingests one file the bank sent to the connector: applied once and whole, already applied, or refused whole
 * (with why: the element and the line). Throws only for what is not the file's fault (the database, the disk).
 */
export async function ingestFile(
  deps: IngestDeps,
  settings: Iso20022ConnectorSettings,
  filePath: string,
): Promise<IngestOutcome> {
  const { ctx } = deps;
  const sha256 = await sha256Of(filePath);
  const prior = await priorOf(ctx, settings.name, sha256);
  // Applied bytes are never applied again. Refused ones are read again: what refused them may have been the
  // connector's settings (its debtor, its schemas), which an operator has put right since.
  if (prior?.state === 'APPLIED') return answerFor(prior, filePath);
  let kind: Awaited<ReturnType<typeof kindOf>> | undefined;
  try {
    kind = await kindOf(filePath);
    const validation = await validateFile(schemaPathOf(settings, kind), filePath);
    if (!validation.ok) {
      // xmllint's streaming reader names a file that is not well-formed poorly: ours names the element and line.
      await readWhole(kind, filePath);
      throw new Refusal(`not valid against ${kind}'s schema: ${describeErrors(validation.errors)}`);
    }
    const bankFileId = newId('BankFile');
    const name = basename(filePath);
    const counts = await ctx.store.tx(
      (trx) =>
        withinTransaction(trx, async () => {
          // Its refusal, if it had one, gives way to its application (the same bytes: the same unique hash).
          if (prior) await trx.deleteFrom('bank_files').where('id', '=', prior.id).execute();
          const app = new Application(deps, trx, settings, bankFileId, { name, sha256, kind: kind ?? 'camt.054' });
          await (kind === 'pain.002' ? applyPain002(app, filePath) : applyCamt054(app, filePath));
          await app.finish();
          return { counts: app.counts, msgId: app.msgId };
        }),
      // A file's transaction may touch a page of the database per entry: SQLite keeps what it may roll back to
      // on disk, not in memory, and commits it alone.
      { bulk: true },
    );
    deps.worker.kick();
    return { outcome: 'APPLIED', file: filePath, bankFileId, kind, ...counts };
  } catch (err) {
    if (err instanceof BankFileError || err instanceof Refusal)
      return refuse(ctx, settings, { path: filePath, sha256, kind }, err.message);
    if (!isUniqueViolation(err)) throw err;
    // Another process applied the same bytes meanwhile; or these bytes reuse the MsgId of a file applied before.
    const now = await priorOf(ctx, settings.name, sha256);
    if (now) return answerFor(now, filePath);
    return refuse(ctx, settings, { path: filePath, sha256, kind }, 'its MsgId is that of another file applied before');
  }
}

/** One line for an operator: what became of the file. */
export function describeOutcome(o: IngestOutcome): string {
  const name = basename(o.file);
  if (o.outcome === 'REFUSED') return `${name}: refused: ${o.error}`;
  if (o.outcome === 'ALREADY_APPLIED') return `${name}: already applied (${o.kind} ${o.msgId}, ${o.bankFileId})`;
  const c = o.counts;
  const parts = [
    `${c.items} items`,
    `${c.applied} applied`,
    `${c.unchanged} unchanged`,
    c.unknown ? `${c.unknown} unknown payments` : '',
    c.replays ? `${c.replays} seen before` : '',
    c.funded || c.mismatched || c.unmatched
      ? `credits: ${c.funded} funded, ${c.mismatched} amount mismatches, ${c.unmatched} unmatched`
      : '',
    c.notBooked ? `${c.notBooked} credits not booked yet` : '',
  ].filter(Boolean);
  return `${name}: applied (${o.kind} ${o.msgId}): ${parts.join(', ')}`;
}

export interface CreditFilter {
  result?: BankCreditsTable['result'] | undefined;
  connector?: string | undefined;
  limit: number;
}

/** The credits the bank's notifications booked, newest first: the unmatched list is `result: UNMATCHED`. */
export function listCredits(ctx: Ctx, filter: CreditFilter): Promise<BankCreditsTable[]> {
  let query = ctx.store.db.selectFrom('bank_credits').selectAll();
  if (filter.result) query = query.where('result', '=', filter.result);
  if (filter.connector) query = query.where('connector', '=', filter.connector);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}
