// The fake bank: reads the service's pain.001 files from its outbox and answers into its inbox, as a bank
// does host to host: a pain.002 status report per file, a camt.054 debit notification for what it booked,
// and later what it owes (a payment booked or rejected after a delay, a return after the booking). Each
// payment's fate is the sandbox's for the creditor's account number (fates.ts). Usable as a module (tests,
// the benchmark) and through `payouts bank fake`.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Clock, systemClock } from '../../domain/clock.ts';
import { Camt054Writer, Pain002Writer } from './answers.ts';
import { fateOf, type FakeBankRules, type Fate, type FateTimes, RETURN_CODE } from './fates.ts';
import { readPain001, Pain001Error, type Pain001Payment } from './pain001-reader.ts';
import { FakeBankState, fileSha256, type LaterHeader, type LaterPayment, type OwedAnswer, sha256Hex } from './state.ts';
import { publishReady } from './xml-file.ts';

export interface FakeBankOptions extends FateTimes {
  outbox: string;
  inbox: string;
  /** Where the bank keeps what it has read and what it owes; default <outbox>/.fake-bank. */
  state?: string | undefined;
  rules?: FakeBankRules | undefined;
  clock?: Clock | undefined;
}

export interface FileAnswered {
  name: string;
  msgId: string;
  payments: number;
  /** Why the file was refused whole (duplicate MsgId, unreadable), when it was. */
  refused?: string | undefined;
}

export interface TickReport {
  read: FileAnswered[];
  /** Names of the files put into the inbox, in order. */
  written: string[];
}

/** Refused whole: ISO's DuplicateMessageID (the MsgId was in a file read before) and InvalidFileFormat. */
export const DUPLICATE_CODE = 'DU01';
export const UNREADABLE_CODE = 'FF01';

/** `20261202T061500123Z`: an answer's name starts with when it was made, so the inbox sorts in order. */
function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, '');
}

/** An id of at most 35 characters, the same for the same inputs (a rerun after a crash writes the same file). */
function idOf(prefix: string, key: string): string {
  return `${prefix}${sha256Hex(key).slice(0, 32)}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A pain.001 as the first pass reads it: its header, and how many payments fare how. */
interface FileHead {
  msgId: string;
  nbOfTxs: string;
  ctrlSum?: string | undefined;
  payments: number;
  accepted: number;
  rejected: number;
  codes: Set<string>;
  booked: number;
}

export class FakeBank {
  readonly state: FakeBankState;
  private readonly rules: FakeBankRules;
  private readonly clock: Clock;

  constructor(private readonly options: FakeBankOptions) {
    this.state = new FakeBankState(options.state ?? join(options.outbox, '.fake-bank'));
    this.rules = options.rules ?? 'transfer-out';
    this.clock = options.clock ?? systemClock;
  }

  private fate(payment: Pain001Payment): Fate {
    return fateOf(payment.creditorAccount, this.rules, this.options);
  }

  private answerName(at: number, order: number, kind: string, msgId: string): string {
    return `${stamp(at)}-${order}-${kind}-${msgId}.xml`;
  }

  /** Reads what is new in the outbox, writes what is due; one pass. */
  async tick(): Promise<TickReport> {
    const report: TickReport = { read: [], written: [] };
    // What a crash left ready is handed over first.
    report.written.push(...(await publishReady(this.options.inbox)));
    const seen = this.state.seen();
    const seenFiles = new Set(seen.map((f) => `${f.name}\n${f.sha256}`));
    const seenMsgIds = new Set(seen.filter((f) => !f.refused).map((f) => f.msgId));
    let names: string[];
    try {
      names = readdirSync(this.options.outbox)
        .filter((n) => n.endsWith('.xml'))
        .sort();
    } catch {
      names = [];
    }
    for (const name of names) {
      const path = join(this.options.outbox, name);
      const sha256 = await fileSha256(path);
      if (seenFiles.has(`${name}\n${sha256}`)) continue;
      const answered = await this.answer(path, name, sha256, seenMsgIds);
      if (!answered.refused) seenMsgIds.add(answered.msgId);
      report.read.push(answered);
    }
    await this.payWhatIsDue();
    report.written.push(...(await publishReady(this.options.inbox)));
    return report;
  }

  /** Ticks until `signal` aborts, every `pollMs`. */
  async run(signal: AbortSignal, pollMs: number, onTick?: (report: TickReport) => void): Promise<void> {
    while (!signal.aborted) {
      const report = await this.tick();
      onTick?.(report);
      await sleep(pollMs, undefined, { signal }).catch(() => undefined);
    }
  }

  private async answer(path: string, name: string, sha256: string, seenMsgIds: Set<string>): Promise<FileAnswered> {
    const receivedAt = statSync(path).mtimeMs;
    let head: FileHead;
    try {
      head = await this.headOf(path, seenMsgIds);
    } catch (err) {
      if (!(err instanceof Pain001Error)) throw err;
      const original = (err.msgId ?? name.replace(/\.xml$/, '')).slice(0, 35);
      const why = `not a pain.001 the bank can read: ${err.message}`;
      return this.refuse(name, sha256, original, receivedAt, UNREADABLE_CODE, why);
    }
    const { msgId } = head;
    if (seenMsgIds.has(msgId))
      return this.refuse(name, sha256, msgId, receivedAt, DUPLICATE_CODE, `MsgId ${msgId} was in a file read before`);
    await this.answerPayments(path, sha256, head, receivedAt);
    await this.state.remember({ name, sha256, msgId });
    return { name, msgId, payments: head.payments };
  }

  /** The first pass: the header and how the file fares as a whole (a report's group status comes first). */
  private async headOf(path: string, seenMsgIds: Set<string>): Promise<FileHead> {
    const head: FileHead = {
      msgId: '',
      nbOfTxs: '',
      payments: 0,
      accepted: 0,
      rejected: 0,
      codes: new Set(),
      booked: 0,
    };
    for await (const item of readPain001(path)) {
      if (item.kind === 'GROUP') {
        Object.assign(head, { msgId: item.msgId, nbOfTxs: item.nbOfTxs, ctrlSum: item.ctrlSum });
        if (seenMsgIds.has(item.msgId)) break;
      } else if (item.kind === 'PAYMENT') {
        head.payments += 1;
        const fate = this.fate(item);
        if (fate.status === 'RJCT') {
          head.rejected += 1;
          if (fate.code) head.codes.add(fate.code);
        } else head.accepted += 1;
        if (fate.bookNow) head.booked += 1;
      }
    }
    return head;
  }

  /** The second pass: the status report, the debit notification of what is booked now, and what is owed later. */
  private async answerPayments(path: string, sha256: string, head: FileHead, receivedAt: number): Promise<void> {
    const { msgId, codes } = head;
    const groupStatus = head.rejected === 0 ? 'ACCP' : head.accepted > 0 || codes.size !== 1 ? 'PART' : 'RJCT';
    const reportId = idOf('R', `pain.002:${msgId}:${sha256}`);
    const pain002 = await Pain002Writer.start(
      this.options.inbox,
      this.answerName(receivedAt, 1, 'pain.002', reportId),
      {
        msgId: reportId,
        createdAt: iso(receivedAt),
        originalMsgId: msgId,
        originalNbOfTxs: head.nbOfTxs,
        originalCtrlSum: head.ctrlSum,
        groupStatus,
        groupCode: groupStatus === 'RJCT' ? [...codes][0] : undefined,
      },
    );
    const noticeId = idOf('N', `camt.054:${msgId}:${sha256}`);
    const noticeName = this.answerName(receivedAt, 2, 'camt.054', noticeId);
    const header = { msgId: noticeId, createdAt: iso(receivedAt) };
    const camt054 = head.booked > 0 ? await Camt054Writer.start(this.options.inbox, noticeName, header) : undefined;
    const owed = new Map<string, OwedAnswer>();
    let notifiedBatch: string | undefined;
    let n = 0;
    for await (const item of readPain001(path)) {
      if (item.kind === 'BATCH') await pain002.batch(item.pmtInfId);
      if (item.kind !== 'PAYMENT') continue;
      n += 1;
      const fate = this.fate(item);
      await pain002.tx({ statusId: String(n), ...item, status: fate.status, code: fate.code });
      if (fate.bookNow && camt054) {
        if (notifiedBatch !== item.pmtInfId) await camt054.account(item.debtorIban);
        notifiedBatch = item.pmtInfId;
        await camt054.entry(this.debit(msgId, item, receivedAt));
      }
      if (!fate.later) continue;
      const dueAt = receivedAt + fate.later.afterMs;
      const code = fate.later.what === 'BOOK' ? undefined : fate.later.code;
      const key = `${fate.later.what}:${dueAt}:${code ?? ''}`;
      let answer = owed.get(key);
      if (!answer) {
        answer = await this.state.owe({ what: fate.later.what, dueAt, originalMsgId: msgId, code });
        owed.set(key, answer);
      }
      const { kind: _kind, ...payment } = item;
      await answer.add(payment);
    }
    await pain002.end();
    await camt054?.end();
    for (const answer of owed.values()) await answer.close();
  }

  private debit(msgId: string, payment: LaterPayment, at: number) {
    return {
      direction: 'DBIT' as const,
      amount: payment.amount,
      currency: payment.currency,
      bookedAt: iso(at),
      acctSvcrRef: idOf('B', `BOOK:${msgId}:${payment.endToEndId}`),
      code: 'ICDT/ESCT' as const,
      refs: { msgId, pmtInfId: payment.pmtInfId, instrId: payment.instrId, endToEndId: payment.endToEndId },
      party: {
        role: 'Cdtr' as const,
        name: payment.creditorName,
        account: payment.creditorAccount,
        isIban: payment.creditorIsIban,
      },
    };
  }

  /** A file refused whole: a pain.002 rejecting its group with the reason, nothing booked. */
  private async refuse(
    name: string,
    sha256: string,
    originalMsgId: string,
    receivedAt: number,
    code: string,
    why: string,
  ): Promise<FileAnswered> {
    const reportId = idOf('R', `pain.002:${originalMsgId}:${sha256}`);
    const pain002 = await Pain002Writer.start(
      this.options.inbox,
      this.answerName(receivedAt, 1, 'pain.002', reportId),
      {
        msgId: reportId,
        createdAt: iso(receivedAt),
        originalMsgId,
        groupStatus: 'RJCT',
        groupCode: code,
      },
    );
    await pain002.end();
    await this.state.remember({ name, sha256, msgId: originalMsgId, refused: why });
    return { name, msgId: originalMsgId, payments: 0, refused: why };
  }

  /** The answers owed by now: bookings and rejections after a delay, returns after a booking. */
  private async payWhatIsDue(): Promise<void> {
    for (const path of this.state.due(this.clock.nowMs())) {
      let header: LaterHeader | undefined;
      let pain002: Pain002Writer | undefined;
      let camt054: Camt054Writer | undefined;
      let batch: string | undefined;
      let n = 0;
      for await (const line of this.state.read(path)) {
        if (!header) {
          header = line as LaterHeader;
          const key = `${header.what}:${header.originalMsgId}:${header.dueAt}:${header.code ?? ''}`;
          if (header.what === 'REJECT') {
            const id = idOf('R', key);
            pain002 = await Pain002Writer.start(this.options.inbox, this.answerName(header.dueAt, 3, 'pain.002', id), {
              msgId: id,
              createdAt: iso(header.dueAt),
              originalMsgId: header.originalMsgId,
            });
          } else {
            const id = idOf('N', key);
            camt054 = await Camt054Writer.start(this.options.inbox, this.answerName(header.dueAt, 3, 'camt.054', id), {
              msgId: id,
              createdAt: iso(header.dueAt),
            });
          }
          continue;
        }
        const payment = line as LaterPayment;
        n += 1;
        if (pain002) {
          if (batch !== payment.pmtInfId) await pain002.batch(payment.pmtInfId);
          await pain002.tx({ statusId: String(n), ...payment, status: 'RJCT', code: header.code });
        } else if (camt054) {
          if (batch !== payment.pmtInfId) await camt054.account(payment.debtorIban);
          const debit = this.debit(header.originalMsgId, payment, header.dueAt);
          await camt054.entry(
            header.what === 'RETURN'
              ? {
                  ...debit,
                  direction: 'CRDT',
                  code: 'ICDT/RRTN',
                  acctSvcrRef: idOf('B', `RETURN:${header.originalMsgId}:${payment.endToEndId}`),
                  returnCode: header.code ?? RETURN_CODE,
                }
              : debit,
          );
        }
        batch = payment.pmtInfId;
      }
      await pain002?.end();
      await camt054?.end();
      this.state.settled(path);
    }
  }
}
