// The fake bank's reading of a pain.001.001.09 file: streamed with saxes, one item per group header, payment
// information block and transaction, so a file of 100,000 payments is read in flat memory. Only what a bank
// answers from is kept: ids, amounts as written (decimal text, echoed back unchanged), the accounts.
import { createReadStream } from 'node:fs';
import { SaxesParser, type SaxesTagNS } from 'saxes';

export const PAIN001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';

export interface Pain001Group {
  kind: 'GROUP';
  msgId: string;
  nbOfTxs: string;
  ctrlSum?: string | undefined;
}

export interface Pain001Batch {
  kind: 'BATCH';
  pmtInfId: string;
  debtorIban?: string | undefined;
  debtorName?: string | undefined;
}

export interface Pain001Payment {
  kind: 'PAYMENT';
  pmtInfId: string;
  debtorIban?: string | undefined;
  instrId?: string | undefined;
  endToEndId: string;
  /** InstdAmt as the file writes it: decimal text in `currency`. */
  amount: string;
  currency: string;
  creditorName?: string | undefined;
  /** CdtrAcct/Id/IBAN, else CdtrAcct/Id/Othr/Id: what the suffix rules read. */
  creditorAccount: string;
  creditorIsIban: boolean;
}

export type Pain001Item = Pain001Group | Pain001Batch | Pain001Payment;

/** A file that is no pain.001.001.09 the bank can read: the element and line where it stopped. */
export class Pain001Error extends Error {
  constructor(
    readonly line: number,
    message: string,
    /** The MsgId, when the header was read before the fault. */
    readonly msgId?: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

function tail(path: readonly string[], n: number): string {
  return path.slice(-n).join('/');
}

/** The parser's handlers: the path open so far and the group, batch and payment being read. */
class Reader {
  readonly parser = new SaxesParser({ xmlns: true, position: true });
  readonly ready: Pain001Item[] = [];
  failure: Pain001Error | undefined;
  groupDone = false;
  private readonly path: string[] = [];
  private text = '';
  private readonly group: Partial<Pain001Group> = {};
  private batch: Partial<Pain001Batch> = {};
  private batchDone = false;
  private payment: Partial<Pain001Payment> = {};

  constructor() {
    this.parser.on('error', (err) => this.fail(err.message.replace(/^\d+:\d+: /, '')));
    this.parser.on('opentag', (tag) => this.open(tag));
    this.parser.on('text', (chunk) => {
      this.text += chunk;
    });
    this.parser.on('closetag', (tag) => this.close(tag));
  }

  fail(message: string): void {
    this.failure ??= new Pain001Error(this.parser.line, message, this.group.msgId);
  }

  private open(tag: SaxesTagNS): void {
    if (this.path.length === 0 && (tag.local !== 'Document' || tag.uri !== PAIN001_NAMESPACE))
      this.fail(`the document is {${tag.uri}}${tag.local}, not a pain.001.001.09 Document`);
    this.path.push(tag.local);
    this.text = '';
    const where = tail(this.path, 2);
    if (where === 'CstmrCdtTrfInitn/PmtInf') {
      this.batch = {};
      this.batchDone = false;
    } else if (where === 'PmtInf/CdtTrfTxInf') this.payment = {};
    else if (where === 'Amt/InstdAmt') {
      const ccy = tag.attributes.Ccy;
      this.payment.currency = typeof ccy === 'string' ? ccy : (ccy?.value ?? '');
    }
  }

  private close(tag: SaxesTagNS): void {
    const value = this.text.trim();
    this.text = '';
    const where3 = tail(this.path, 3);
    const { group, batch } = this;
    if (where3 === 'CstmrCdtTrfInitn/GrpHdr/MsgId') group.msgId = value;
    else if (where3 === 'CstmrCdtTrfInitn/GrpHdr/NbOfTxs') group.nbOfTxs = value;
    else if (where3 === 'CstmrCdtTrfInitn/GrpHdr/CtrlSum') group.ctrlSum = value;
    else if (tail(this.path, 2) === 'CstmrCdtTrfInitn/GrpHdr') this.closeGroup();
    else if (where3 === 'CstmrCdtTrfInitn/PmtInf/PmtInfId') batch.pmtInfId = value;
    else if (where3 === 'PmtInf/Dbtr/Nm') batch.debtorName = value;
    else if (tail(this.path, 4) === 'PmtInf/DbtrAcct/Id/IBAN') batch.debtorIban = value;
    else if (tail(this.path, 2) === 'PmtInf/CdtTrfTxInf') this.closePayment();
    else if (this.path.includes('CdtTrfTxInf')) this.closeInPayment(value);
    if (tag.local !== this.path.pop()) this.fail(`unexpected </${tag.local}>`);
  }

  private closeGroup(): void {
    const { msgId, nbOfTxs, ctrlSum } = this.group;
    if (!msgId || !nbOfTxs) return this.fail('the group header has no MsgId or NbOfTxs');
    this.ready.push({ kind: 'GROUP', msgId, nbOfTxs, ctrlSum });
    this.groupDone = true;
  }

  private closePayment(): void {
    const { batch, payment } = this;
    if (!this.batchDone) {
      this.ready.push({ kind: 'BATCH', pmtInfId: batch.pmtInfId ?? '', ...batch });
      this.batchDone = true;
    }
    if (!payment.endToEndId || payment.amount === undefined || !payment.creditorAccount)
      return this.fail('a CdtTrfTxInf has no EndToEndId, InstdAmt or creditor account');
    this.ready.push({
      kind: 'PAYMENT',
      pmtInfId: batch.pmtInfId ?? '',
      debtorIban: batch.debtorIban,
      instrId: payment.instrId,
      endToEndId: payment.endToEndId,
      amount: payment.amount,
      currency: payment.currency ?? '',
      creditorName: payment.creditorName,
      creditorAccount: payment.creditorAccount,
      creditorIsIban: payment.creditorIsIban ?? false,
    });
  }

  private closeInPayment(value: string): void {
    const where3 = tail(this.path, 3);
    const payment = this.payment;
    if (where3 === 'CdtTrfTxInf/PmtId/EndToEndId') payment.endToEndId = value;
    else if (where3 === 'CdtTrfTxInf/PmtId/InstrId') payment.instrId = value;
    else if (where3 === 'CdtTrfTxInf/Amt/InstdAmt') payment.amount = value;
    else if (where3 === 'CdtTrfTxInf/Cdtr/Nm') payment.creditorName = value;
    else if (tail(this.path, 4) === 'CdtTrfTxInf/CdtrAcct/Id/IBAN') {
      payment.creditorAccount = value;
      payment.creditorIsIban = true;
    } else if (tail(this.path, 5) === 'CdtTrfTxInf/CdtrAcct/Id/Othr/Id') payment.creditorAccount = value;
  }
}

/** The file's items, in document order (the group first, each batch before its payments). */
export async function* readPain001(filePath: string): AsyncGenerator<Pain001Item> {
  const reader = new Reader();
  const stream = createReadStream(filePath, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  try {
    for await (const chunk of stream) {
      reader.parser.write(chunk as string);
      if (reader.failure) break;
      yield* reader.ready.splice(0);
    }
    if (!reader.failure) reader.parser.close();
  } finally {
    stream.destroy();
  }
  if (!reader.failure && !reader.groupDone) reader.fail('the file holds no group header');
  if (reader.failure) throw reader.failure;
  yield* reader.ready.splice(0);
}
