// camt.054.001.08, the bank's debit and credit notification, read as a stream of normalized items: each
// notification's account, then one item per booked movement. An entry the bank booked as a batch (one entry,
// many TxDtls) gives one item per transaction; an entry without details gives one. Only the entry being read
// is held, and of its transactions only the last: memory stays flat however many entries a file has.
import { minorUnitsOf } from './amounts.ts';
import { BankFileError, type Cursor, type MessageHandler, readMessage, tail } from './reader.ts';

export const CAMT054_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:camt.054.001.08';

/** The file's own identity (GrpHdr). Comes first. */
export interface Camt054Header {
  kind: 'HEADER';
  msgId: string;
  createdAt: string;
  line: number;
}

/** A notification's account (Ntfctn/Acct): its entries follow. */
export interface Camt054Account {
  kind: 'ACCOUNT';
  notificationId: string;
  iban?: string | undefined;
  /** An account named otherwise than by IBAN (Othr/Id). */
  otherId?: string | undefined;
  currency?: string | undefined;
  line: number;
}

/** Why the bank sent a payment back (RtrInf). */
export interface ReturnInfo {
  code?: string | undefined;
  proprietary?: string | undefined;
  info?: string | undefined;
}

/** One movement on the account. */
export interface Camt054Entry {
  kind: 'ENTRY';
  /** The movement's identity at the bank: AcctSvcrRef, else NtryRef, else the file's MsgId and its position. */
  entryKey: string;
  accountIban?: string | undefined;
  direction: 'CRDT' | 'DBIT';
  /** RvslInd: this entry undoes an earlier one. */
  reversal: boolean;
  /** BOOK, PDNG, INFO, or a proprietary status. */
  status: string;
  bookedAtMs?: number | undefined;
  /** Minor units of `currency`. */
  amount: bigint;
  currency: string;
  endToEndId?: string | undefined;
  /** The structured creditor reference, else the first unstructured line of remittance. */
  reference?: string | undefined;
  /** All the unstructured remittance lines, joined (bounded). */
  remittance?: string | undefined;
  /** Present when the bank says this is a payment sent back. */
  returnInfo?: ReturnInfo | undefined;
  /** Its position in the file, from 1. */
  index: number;
  line: number;
}

export type Camt054Item = Camt054Header | Camt054Account | Camt054Entry;

const MAX_REMITTANCE = 500;

interface Tx {
  acctSvcrRef?: string;
  e2e?: string;
  amountText?: string;
  amountLine?: number;
  currency?: string | undefined;
  direction?: string;
  directionLine?: number;
  structuredRef?: string;
  ustrd?: string;
  returnInfo?: ReturnInfo;
  line: number;
  /** Its place among its entry's transactions, from 1. */
  position?: number;
}

interface Entry {
  ntryRef?: string;
  acctSvcrRef?: string;
  amountText?: string;
  amountLine?: number;
  currency?: string | undefined;
  direction?: string;
  directionLine?: number;
  reversal: boolean;
  status?: string;
  bookedAtMs?: number;
  index: number;
  line: number;
  txs: number;
  held?: Tx;
}

/** ISODateTime may come without an offset: a bank's booking time is read as UTC then, never as local time. */
function timeOf(text: string, element: string, line: number): number {
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(text)
    ? `${text}T00:00:00Z`
    : /(Z|[+-]\d{2}:\d{2})$/.test(text)
      ? text
      : `${text}Z`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new BankFileError(element, line, `"${text}" is not a date`);
  return ms;
}

class Camt054Reader implements MessageHandler<Camt054Item> {
  private msgId = '';
  private createdAt = '';
  private headerDone = false;
  private account: Omit<Camt054Account, 'kind' | 'line'> = { notificationId: '' };
  private entry: Entry | undefined;
  private tx: Tx | undefined;
  private entries = 0;

  open(_name: string, attrs: Readonly<Record<string, string>>, at: Cursor, emit: (item: Camt054Item) => void) {
    const where = tail(at.path, 2);
    if (where === 'BkToCstmrDbtCdtNtfctn/Ntfctn') {
      this.emitHeader(at, emit);
      this.account = { notificationId: '' };
    } else if (where === 'Ntfctn/Ntry') {
      this.entries += 1;
      this.entry = { reversal: false, index: this.entries, line: at.line, txs: 0 };
    } else if (where === 'NtryDtls/TxDtls' && this.entry) this.tx = { line: at.line };
    else if (where === 'Ntry/Amt' && this.entry) this.entry.currency = attrs.Ccy;
    else if (where === 'TxDtls/Amt' && this.tx) this.tx.currency = attrs.Ccy;
    else if (where === 'TxDtls/RtrInf' && this.tx) this.tx.returnInfo = {};
  }

  close(name: string, text: string, at: Cursor, emit: (item: Camt054Item) => void) {
    const path = at.path;
    const where = tail(path, 2);
    if (tail(path, 3) === 'BkToCstmrDbtCdtNtfctn/GrpHdr/MsgId') this.msgId = text;
    else if (tail(path, 3) === 'BkToCstmrDbtCdtNtfctn/GrpHdr/CreDtTm') this.createdAt = text;
    else if (tail(path, 3) === 'BkToCstmrDbtCdtNtfctn/Ntfctn/Id') this.account.notificationId = text;
    else if (tail(path, 4) === 'Ntfctn/Acct/Id/IBAN') this.account.iban = text;
    else if (tail(path, 5) === 'Ntfctn/Acct/Id/Othr/Id') this.account.otherId = text;
    else if (tail(path, 3) === 'Ntfctn/Acct/Ccy') this.account.currency = text;
    else if (where === 'Ntfctn/Acct') emit({ kind: 'ACCOUNT', ...this.account, line: at.line });
    else if (this.tx && path.includes('TxDtls')) this.closeInTx(this.tx, name, text, at, emit);
    else if (this.entry) this.closeInEntry(this.entry, where, text, at, emit);
  }

  end(at: Cursor, emit: (item: Camt054Item) => void) {
    this.emitHeader(at, emit);
  }

  private emitHeader(at: Cursor, emit: (item: Camt054Item) => void) {
    if (this.headerDone) return;
    if (!this.msgId) throw new BankFileError('GrpHdr', at.line, 'the notification has no MsgId');
    this.headerDone = true;
    emit({ kind: 'HEADER', msgId: this.msgId, createdAt: this.createdAt, line: at.line });
  }

  private closeInEntry(entry: Entry, where: string, text: string, at: Cursor, emit: (item: Camt054Item) => void) {
    if (where === 'Ntry/NtryRef') entry.ntryRef = text;
    else if (where === 'Ntry/AcctSvcrRef') entry.acctSvcrRef = text;
    else if (where === 'Ntry/Amt') {
      entry.amountText = text;
      entry.amountLine = at.line;
    } else if (where === 'Ntry/CdtDbtInd') {
      entry.direction = text;
      entry.directionLine = at.line;
    } else if (where === 'Ntry/RvslInd') entry.reversal = text === 'true' || text === '1';
    else if (tail(at.path, 3) === 'Ntry/Sts/Cd' || tail(at.path, 3) === 'Ntry/Sts/Prtry') entry.status = text;
    else if (tail(at.path, 3) === 'Ntry/BookgDt/Dt' || tail(at.path, 3) === 'Ntry/BookgDt/DtTm')
      entry.bookedAtMs = timeOf(text, at.element, at.line);
    else if (where === 'Ntfctn/Ntry') {
      if (entry.held) this.emitTx(entry, entry.held, entry.txs === 1, emit);
      else this.emitEntry(entry, undefined, this.entryKey(entry), emit);
      this.entry = undefined;
    }
  }

  private closeInTx(tx: Tx, name: string, text: string, at: Cursor, emit: (item: Camt054Item) => void) {
    const where = tail(at.path, 3);
    if (where === 'TxDtls/Refs/EndToEndId') tx.e2e = text;
    else if (where === 'TxDtls/Refs/AcctSvcrRef') tx.acctSvcrRef = text;
    else if (tail(at.path, 2) === 'TxDtls/Amt') {
      tx.amountText = text;
      tx.amountLine = at.line;
    } else if (tail(at.path, 2) === 'TxDtls/CdtDbtInd') {
      tx.direction = text;
      tx.directionLine = at.line;
    } else if (where === 'TxDtls/RmtInf/Ustrd') {
      const joined = tx.ustrd ? `${tx.ustrd} ${text}` : text;
      tx.ustrd = joined.slice(0, MAX_REMITTANCE);
    } else if (tail(at.path, 3) === 'Strd/CdtrRefInf/Ref') tx.structuredRef ??= text;
    else if (where === 'RtrInf/Rsn/Cd' && tx.returnInfo) tx.returnInfo.code = text;
    else if (where === 'RtrInf/Rsn/Prtry' && tx.returnInfo) tx.returnInfo.proprietary = text;
    else if (tail(at.path, 2) === 'RtrInf/AddtlInf' && tx.returnInfo)
      tx.returnInfo.info = tx.returnInfo.info ? `${tx.returnInfo.info} ${text}` : text;
    else if (name === 'TxDtls' && tail(at.path, 2) === 'NtryDtls/TxDtls' && this.entry) {
      const entry = this.entry;
      entry.txs += 1;
      // The one before is not the entry's only transaction: it goes out with a key of its own.
      if (entry.held) this.emitTx(entry, entry.held, false, emit);
      tx.position = entry.txs;
      entry.held = tx;
      this.tx = undefined;
    }
  }

  private entryKey(entry: Entry): string {
    return entry.acctSvcrRef ?? entry.ntryRef ?? `${this.msgId}/${entry.index}`;
  }

  /** A transaction of an entry: the entry's key if it is its only one, else a key of its own. */
  private emitTx(entry: Entry, tx: Tx, only: boolean, emit: (item: Camt054Item) => void) {
    const key = only ? this.entryKey(entry) : (tx.acctSvcrRef ?? `${this.entryKey(entry)}/${tx.position ?? 0}`);
    if (!only && tx.amountText === undefined)
      throw new BankFileError('TxDtls', tx.line, 'a transaction of an entry of several has no Amt');
    this.emitEntry(entry, tx, key, emit);
  }

  private emitEntry(entry: Entry, tx: Tx | undefined, entryKey: string, emit: (item: Camt054Item) => void) {
    const direction = tx?.direction ?? entry.direction;
    const currency = (tx?.amountText === undefined ? entry.currency : tx.currency) ?? '';
    const amountText = tx?.amountText ?? entry.amountText ?? '';
    const amountLine = (tx?.amountText === undefined ? entry.amountLine : tx.amountLine) ?? entry.line;
    const line = tx?.line ?? entry.line;
    const directionLine = (tx?.direction === undefined ? entry.directionLine : tx.directionLine) ?? line;
    if (direction !== 'CRDT' && direction !== 'DBIT')
      throw new BankFileError('CdtDbtInd', directionLine, `"${direction ?? ''}" is neither CRDT nor DBIT`);
    if (!/^[A-Z]{3}$/.test(currency)) throw new BankFileError('Amt', amountLine, 'the amount has no currency (Ccy)');
    const amount = minorUnitsOf(amountText, currency);
    if (amount === undefined)
      throw new BankFileError('Amt', amountLine, `"${amountText}" is not an amount in ${currency}'s minor units`);
    if (!entry.status) throw new BankFileError('Sts', entry.line, 'the entry has no status');
    emit({
      kind: 'ENTRY',
      entryKey,
      accountIban: this.account.iban,
      direction,
      reversal: entry.reversal,
      status: entry.status,
      bookedAtMs: entry.bookedAtMs,
      amount,
      currency,
      endToEndId: tx?.e2e,
      reference: tx?.structuredRef ?? tx?.ustrd,
      remittance: tx?.ustrd,
      returnInfo: tx?.returnInfo,
      index: entry.index,
      line,
    });
  }
}

/** The items of a camt.054 file, streamed; a BankFileError (element and line) for a file that cannot be one. */
export function readCamt054(filePath: string): AsyncGenerator<Camt054Item> {
  return readMessage(filePath, CAMT054_NAMESPACE, new Camt054Reader());
}
