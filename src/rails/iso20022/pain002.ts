// pain.002.001.10, the bank's status report on a pain.001 we sent, read as a stream of normalized items: the
// group's status (the whole original file), each batch's (an original PmtInf) and each payment's (by the
// EndToEndId we gave it). A payment's item carries its effective status: its own, else its batch's, else the
// group's, as the message's rules say a status at a level above holds for what it does not list.
import { BankFileError, type Cursor, type MessageHandler, readMessage, tail } from './reader.ts';

export const PAIN002_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.002.001.10';

/** Why the bank gave a status: its ISO external code, or a proprietary one, and its words. */
export interface StatusReason {
  code?: string | undefined;
  proprietary?: string | undefined;
  info?: string | undefined;
}

/** The report itself and its status for the whole original file (OrgnlGrpInfAndSts). Comes first. */
export interface Pain002Group {
  kind: 'GROUP';
  msgId: string;
  createdAt: string;
  originalMsgId: string;
  originalMsgNameId: string;
  /** ACCP, ACSP, ACSC, ACWC, ACTC, RCVD, PDNG, PART, RJCT…; undefined when the group has none. */
  status?: string | undefined;
  reason?: StatusReason | undefined;
  line: number;
}

/** An original batch (OrgnlPmtInfAndSts), before its payments. */
export interface Pain002Batch {
  kind: 'BATCH';
  originalPmtInfId: string;
  status?: string | undefined;
  reason?: StatusReason | undefined;
  /** Whether the report lists the batch's payments one by one after this item (else the status is for all). */
  listsPayments: boolean;
  line: number;
}

/** One original payment (TxInfAndSts). */
export interface Pain002Payment {
  kind: 'PAYMENT';
  originalPmtInfId: string;
  originalEndToEndId?: string | undefined;
  /** Its own status, else its batch's, else the group's. */
  status?: string | undefined;
  reason?: StatusReason | undefined;
  /** The debtor account the bank quotes back (OrgnlTxRef/DbtrAcct), when it does. */
  debtorIban?: string | undefined;
  /** Its position in the report, from 1: with the report's MsgId, the status's own identity. */
  index: number;
  line: number;
}

export type Pain002Item = Pain002Group | Pain002Batch | Pain002Payment;

type Level = 'group' | 'batch' | 'payment';
const LEVEL_OF: Readonly<Record<string, Level>> = {
  OrgnlGrpInfAndSts: 'group',
  OrgnlPmtInfAndSts: 'batch',
  TxInfAndSts: 'payment',
};

interface Held {
  status?: string | undefined;
  reason?: StatusReason | undefined;
  /** How many StsRsnInf the level has had so far: only the first is read. */
  reasons?: number;
}

/** The report's state while it is read: the group and the current batch and payment, never more. */
class Pain002Reader implements MessageHandler<Pain002Item> {
  private msgId = '';
  private createdAt = '';
  private group: Omit<Pain002Group, 'kind' | 'msgId' | 'createdAt' | 'line'> & { done: boolean; reasons?: number } = {
    originalMsgId: '',
    originalMsgNameId: '',
    done: false,
  };
  private batch: (Held & { id: string; emitted: boolean }) | undefined;
  private payment: (Held & { e2e?: string; iban?: string; line: number }) | undefined;
  private payments = 0;

  open(name: string, _attrs: Readonly<Record<string, string>>, at: Cursor, emit: (item: Pain002Item) => void) {
    if (name === 'OrgnlPmtInfAndSts' && at.path.length === 3) {
      if (!this.group.done) throw new BankFileError(name, at.line, 'a batch before the original group information');
      this.batch = { id: '', emitted: false };
    } else if (name === 'TxInfAndSts' && this.batch) {
      this.emitBatch(true, at, emit);
      this.payment = { line: at.line };
    } else if (name === 'StsRsnInf') {
      // Only a level's first reason is kept: it is the one that says why, the others add to it.
      const held = this.held(at.path.at(-2));
      if (held) held.reasons = (held.reasons ?? 0) + 1;
      if (held?.reasons === 1) held.reason = {};
    }
  }

  close(name: string, text: string, at: Cursor, emit: (item: Pain002Item) => void) {
    const path = at.path;
    const where = tail(path, 3);
    if (where === 'CstmrPmtStsRpt/GrpHdr/MsgId') this.msgId = text;
    else if (where === 'CstmrPmtStsRpt/GrpHdr/CreDtTm') this.createdAt = text;
    else if (where === 'CstmrPmtStsRpt/OrgnlGrpInfAndSts/OrgnlMsgId') this.group.originalMsgId = text;
    else if (where === 'CstmrPmtStsRpt/OrgnlGrpInfAndSts/OrgnlMsgNmId') this.group.originalMsgNameId = text;
    else if (where === 'CstmrPmtStsRpt/OrgnlGrpInfAndSts/GrpSts') this.group.status = text;
    else if (where === 'CstmrPmtStsRpt/OrgnlPmtInfAndSts/OrgnlPmtInfId' && this.batch) this.batch.id = text;
    else if (where === 'CstmrPmtStsRpt/OrgnlPmtInfAndSts/PmtInfSts' && this.batch) this.batch.status = text;
    else if (where === 'OrgnlPmtInfAndSts/TxInfAndSts/OrgnlEndToEndId' && this.payment) this.payment.e2e = text;
    else if (where === 'OrgnlPmtInfAndSts/TxInfAndSts/TxSts' && this.payment) this.payment.status = text;
    else if (tail(path, 5) === 'TxInfAndSts/OrgnlTxRef/DbtrAcct/Id/IBAN' && this.payment) this.payment.iban = text;
    else if (tail(path, 3) === 'StsRsnInf/Rsn/Cd' || tail(path, 3) === 'StsRsnInf/Rsn/Prtry') {
      const held = this.held(path.at(-4));
      const reason = held?.reasons === 1 ? held.reason : undefined;
      if (reason && name === 'Cd') reason.code = text;
      else if (reason) reason.proprietary = text;
    } else if (tail(path, 2) === 'StsRsnInf/AddtlInf') {
      const held = this.held(path.at(-3));
      const reason = held?.reasons === 1 ? held.reason : undefined;
      if (reason) reason.info = reason.info ? `${reason.info} ${text}` : text;
    } else if (name === 'OrgnlGrpInfAndSts' && path.length === 3) this.closeGroup(at, emit);
    else if (name === 'TxInfAndSts' && this.payment) this.closePayment(emit);
    else if (name === 'OrgnlPmtInfAndSts' && this.batch) {
      this.emitBatch(false, at, emit);
      this.batch = undefined;
    }
  }

  end(at: Cursor) {
    if (!this.group.done) throw new BankFileError('OrgnlGrpInfAndSts', at.line, 'the report has no original group');
  }

  private held(owner: string | undefined): Held | undefined {
    const level = owner === undefined ? undefined : LEVEL_OF[owner];
    if (level === 'group') return this.group;
    if (level === 'batch') return this.batch;
    if (level === 'payment') return this.payment;
    return undefined;
  }

  private closeGroup(at: Cursor, emit: (item: Pain002Item) => void) {
    if (!this.msgId) throw new BankFileError('GrpHdr', at.line, 'the report has no MsgId');
    if (!this.group.originalMsgId) throw new BankFileError('OrgnlGrpInfAndSts', at.line, 'no OrgnlMsgId');
    this.group.done = true;
    const { done: _done, reasons: _reasons, ...group } = this.group;
    emit({ kind: 'GROUP', msgId: this.msgId, createdAt: this.createdAt, ...group, line: at.line });
  }

  private emitBatch(listsPayments: boolean, at: Cursor, emit: (item: Pain002Item) => void) {
    const batch = this.batch;
    if (!batch || batch.emitted) return;
    if (!batch.id) throw new BankFileError('OrgnlPmtInfAndSts', at.line, 'no OrgnlPmtInfId');
    batch.emitted = true;
    emit({
      kind: 'BATCH',
      originalPmtInfId: batch.id,
      status: batch.status,
      reason: batch.reason,
      listsPayments,
      line: at.line,
    });
  }

  private closePayment(emit: (item: Pain002Item) => void) {
    const payment = this.payment;
    const batch = this.batch;
    if (!payment || !batch) return;
    // A level's reason goes with its status: a payment that takes its batch's status takes its reason too.
    const from: Held = payment.status ? payment : batch.status ? batch : this.group;
    this.payments += 1;
    emit({
      kind: 'PAYMENT',
      originalPmtInfId: batch.id,
      originalEndToEndId: payment.e2e,
      status: from.status,
      reason: from.reason,
      debtorIban: payment.iban,
      index: this.payments,
      line: payment.line,
    });
    this.payment = undefined;
  }
}

/** The items of a pain.002 file, streamed; a BankFileError (element and line) for a file that cannot be one. */
export function readPain002(filePath: string): AsyncGenerator<Pain002Item> {
  return readMessage(filePath, PAIN002_NAMESPACE, new Pain002Reader());
}
