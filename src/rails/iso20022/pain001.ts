// The pain.001.001.09 writer: a customer credit transfer initiation, streamed to a file a batch of transfers
// at a time, so that memory stays flat however many payments a file holds. Plain text through one escape
// function (text.ts) rather than an XML library: the document's shape is fixed, each element sits on a line
// of its own (a schema error's line then names the payment it is in), and the bytes are hashed as they are
// written. The group header comes first and carries NbOfTxs and CtrlSum, so the caller counts them before
// writing, and the writer checks that what it wrote adds up to them exactly.
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { currency as currencyOf } from '../../domain/currencies.ts';
import type { Iso20022Variant } from '../../domain/connector-routes.ts';
import { NAMESPACES } from './xsd.ts';
import { escapeXml, fitText } from './text.ts';

/** A name's length: Max140Text in the ISO schema, 70 in the EPC's (the shorter, so a file fits both). */
export const NAME_MAX = 70;
/** Unstructured remittance: Max140Text in both. */
export const REMITTANCE_MAX = 140;

export interface PostalAddress {
  line1?: string | undefined;
  line2?: string | undefined;
  city?: string | undefined;
  state?: string | undefined;
  postalCode?: string | undefined;
  country?: string | undefined;
}

/** One payment of the file. */
export interface CreditTransfer {
  /** At most 35 characters, naming exactly one of our payments (ids.ts). */
  endToEndId: string;
  /** Minor units of the file's currency. */
  amount: bigint;
  creditor: {
    name: string;
    /** The creditor's IBAN, or else its account number (`accountNumber`). */
    iban?: string | undefined;
    accountNumber?: string | undefined;
    bic?: string | undefined;
    address?: PostalAddress | undefined;
  };
  remittance?: string | undefined;
}

/** What the group header and the one payment information block say. */
export interface Pain001Group {
  msgId: string;
  createdAtMs: number;
  /** The requested execution date, YYYY-MM-DD. */
  executionDate: string;
  debtor: { name: string; iban: string; bic: string };
  currency: string;
  nbOfTxs: number;
  /** Minor units of `currency`. */
  ctrlSum: bigint;
  pmtInfId: string;
  variant: Iso20022Variant;
}

export interface WrittenPain001 {
  bytes: number;
  sha256: string;
  nbOfTxs: number;
  ctrlSum: bigint;
  /** The first line of each transfer, in order (a schema error's line maps back to its payment). */
  transferLines: number[];
  /** The line the first transfer starts on: errors above it are the header's. */
  firstTransferLine: number;
}

/** Minor units as the decimal amount the currency's decimals say: 12550n, 2 → "125.50". */
export function formatAmount(minor: bigint, decimals: number): string {
  if (minor < 0n) throw new Error('an amount in a bank file is never negative');
  if (decimals === 0) return minor.toString();
  const digits = minor.toString().padStart(decimals + 1, '0');
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** xs:dateTime in UTC without milliseconds: what every bank reads. */
function dateTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** Bytes held before a write: the file is written in chunks of about this size. */
const CHUNK_BYTES = 64 * 1024;

/** Lines out to a file: counted, hashed and written in chunks. */
class Lines {
  private pending: string[] = [];
  private pendingLength = 0;
  private readonly hash = createHash('sha256');
  bytes = 0;
  /** The number of the next line written (1-based). */
  next = 1;

  constructor(private readonly handle: FileHandle) {}

  add(depth: number, text: string): void {
    const line = `${'  '.repeat(depth)}${text}\n`;
    this.pending.push(line);
    this.pendingLength += line.length;
    this.next++;
  }

  /** `<Tag>value</Tag>`, the value escaped. */
  leaf(depth: number, tag: string, value: string, attributes = ''): void {
    this.add(depth, `<${tag}${attributes}>${escapeXml(value)}</${tag}>`);
  }

  async flushIfFull(): Promise<void> {
    if (this.pendingLength >= CHUNK_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const buffer = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingLength = 0;
    this.hash.update(buffer);
    this.bytes += buffer.length;
    let at = 0;
    while (at < buffer.length) at += (await this.handle.write(buffer, at)).bytesWritten;
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

function party(out: Lines, depth: number, tag: string, name: string, address?: PostalAddress): void {
  out.add(depth, `<${tag}>`);
  out.leaf(depth + 1, 'Nm', fitText(name, NAME_MAX) || 'UNKNOWN');
  const a = address;
  const fitted = a && {
    street: fitText([a.line1, a.line2].filter(Boolean).join(' '), 70),
    postalCode: fitText(a.postalCode ?? '', 16),
    town: fitText(a.city ?? '', 35),
    state: fitText(a.state ?? '', 35),
    country: /^[A-Z]{2}$/.test(a.country ?? '') ? (a.country as string) : '',
  };
  if (fitted && Object.values(fitted).some(Boolean)) {
    // Structured, in the schema's order (the EPC forbids mixing structured fields with address lines).
    out.add(depth + 1, '<PstlAdr>');
    if (fitted.street) out.leaf(depth + 2, 'StrtNm', fitted.street);
    if (fitted.postalCode) out.leaf(depth + 2, 'PstCd', fitted.postalCode);
    if (fitted.town) out.leaf(depth + 2, 'TwnNm', fitted.town);
    if (fitted.state) out.leaf(depth + 2, 'CtrySubDvsn', fitted.state);
    if (fitted.country) out.leaf(depth + 2, 'Ctry', fitted.country);
    out.add(depth + 1, '</PstlAdr>');
  }
  out.add(depth, `</${tag}>`);
}

function account(out: Lines, depth: number, tag: string, iban: string | undefined, other: string | undefined): void {
  out.add(depth, `<${tag}>`);
  out.add(depth + 1, '<Id>');
  if (iban) out.leaf(depth + 2, 'IBAN', iban);
  else {
    out.add(depth + 2, '<Othr>');
    out.leaf(depth + 3, 'Id', other ?? '');
    out.add(depth + 2, '</Othr>');
  }
  out.add(depth + 1, '</Id>');
  out.add(depth, `</${tag}>`);
}

function agent(out: Lines, depth: number, tag: string, bic: string): void {
  out.add(depth, `<${tag}>`);
  out.add(depth + 1, '<FinInstnId>');
  out.leaf(depth + 2, 'BICFI', bic);
  out.add(depth + 1, '</FinInstnId>');
  out.add(depth, `</${tag}>`);
}

function header(out: Lines, group: Pain001Group, decimals: number): void {
  const ctrlSum = formatAmount(group.ctrlSum, decimals);
  out.add(0, '<?xml version="1.0" encoding="UTF-8"?>');
  out.add(0, `<Document xmlns="${NAMESPACES['pain.001']}">`);
  out.add(1, '<CstmrCdtTrfInitn>');
  out.add(2, '<GrpHdr>');
  out.leaf(3, 'MsgId', group.msgId);
  out.leaf(3, 'CreDtTm', dateTime(group.createdAtMs));
  out.leaf(3, 'NbOfTxs', String(group.nbOfTxs));
  out.leaf(3, 'CtrlSum', ctrlSum);
  party(out, 3, 'InitgPty', group.debtor.name);
  out.add(2, '</GrpHdr>');
  out.add(2, '<PmtInf>');
  out.leaf(3, 'PmtInfId', group.pmtInfId);
  out.leaf(3, 'PmtMtd', 'TRF');
  out.leaf(3, 'NbOfTxs', String(group.nbOfTxs));
  out.leaf(3, 'CtrlSum', ctrlSum);
  if (group.currency === 'EUR') {
    // A euro transfer within SEPA: the service level the SEPA scheme asks for, charges shared (SLEV).
    out.add(3, '<PmtTpInf>');
    out.add(4, '<SvcLvl>');
    out.leaf(5, 'Cd', 'SEPA');
    out.add(4, '</SvcLvl>');
    out.add(3, '</PmtTpInf>');
  }
  out.add(3, '<ReqdExctnDt>');
  out.leaf(4, 'Dt', group.executionDate);
  out.add(3, '</ReqdExctnDt>');
  party(out, 3, 'Dbtr', group.debtor.name);
  account(out, 3, 'DbtrAcct', group.debtor.iban, undefined);
  agent(out, 3, 'DbtrAgt', group.debtor.bic);
  out.leaf(3, 'ChrgBr', group.currency === 'EUR' ? 'SLEV' : 'SHAR');
}

function transfer(out: Lines, t: CreditTransfer, currency: string, decimals: number): void {
  out.add(3, '<CdtTrfTxInf>');
  out.add(4, '<PmtId>');
  out.leaf(5, 'EndToEndId', t.endToEndId);
  out.add(4, '</PmtId>');
  out.add(4, '<Amt>');
  out.leaf(5, 'InstdAmt', formatAmount(t.amount, decimals), ` Ccy="${escapeXml(currency)}"`);
  out.add(4, '</Amt>');
  if (t.creditor.bic) agent(out, 4, 'CdtrAgt', t.creditor.bic);
  party(out, 4, 'Cdtr', t.creditor.name, t.creditor.address);
  account(out, 4, 'CdtrAcct', t.creditor.iban, t.creditor.accountNumber);
  const remittance = t.remittance === undefined ? '' : fitText(t.remittance, REMITTANCE_MAX);
  if (remittance) {
    out.add(4, '<RmtInf>');
    out.leaf(5, 'Ustrd', remittance);
    out.add(4, '</RmtInf>');
  }
  out.add(3, '</CdtTrfTxInf>');
}

/**
 * Writes the whole file to `handle`, the transfers batch by batch as `batches` yields them. Throws, having
 * written a partial file, when the transfers do not add up to the header's NbOfTxs and CtrlSum.
 */
export async function writePain001(
  handle: FileHandle,
  group: Pain001Group,
  batches: AsyncIterable<readonly CreditTransfer[]>,
): Promise<WrittenPain001> {
  const { decimals } = currencyOf(group.currency);
  const out = new Lines(handle);
  header(out, group, decimals);
  const firstTransferLine = out.next;
  const transferLines: number[] = [];
  let nbOfTxs = 0;
  let ctrlSum = 0n;
  for await (const batch of batches) {
    for (const t of batch) {
      transferLines.push(out.next);
      transfer(out, t, group.currency, decimals);
      nbOfTxs++;
      ctrlSum += t.amount;
    }
    await out.flushIfFull();
  }
  out.add(2, '</PmtInf>');
  out.add(1, '</CstmrCdtTrfInitn>');
  out.add(0, '</Document>');
  await out.flush();
  if (nbOfTxs !== group.nbOfTxs || ctrlSum !== group.ctrlSum)
    throw new Error(
      `pain.001 ${group.msgId}: wrote ${nbOfTxs} transfers for ${ctrlSum}, ` +
        `the header says ${group.nbOfTxs} for ${group.ctrlSum}`,
    );
  return { bytes: out.bytes, sha256: out.digest(), nbOfTxs, ctrlSum, transferLines, firstTransferLine };
}

/** The index of the transfer a line falls in, or undefined when it is above the first (the header's). */
export function transferAtLine(written: Pick<WrittenPain001, 'transferLines'>, line: number): number | undefined {
  const lines = written.transferLines;
  if (lines.length === 0 || line < (lines[0] ?? 0)) return undefined;
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((lines[mid] ?? 0) <= line) low = mid;
    else high = mid - 1;
  }
  return low;
}
