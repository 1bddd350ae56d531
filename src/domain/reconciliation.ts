// Reconciliation of a bank connector: every payment of a span with its file, the bank's status report on it
// and the bank's entry for it, and the differences a treasury team chases. Pure: the service
// (services/bank/reconcile.ts) reads the rows, this says what they mean, as a report and as CSV.
import { isCalendarDate, parseTimestamp } from './clock.ts';

export interface ReconFile {
  id: string;
  name: string;
  msgId: string;
  at: number;
}

/** One payment the connector holds, with its amount as we sent it. */
export interface ReconPayment {
  transactionId: string;
  platformId: string;
  connector: string;
  createdAt: number;
  status: string;
  amount: bigint;
  currency: string;
  /** The pain.001 it left in; undefined while it waits for its file. */
  file?: ReconFile | undefined;
}

/** Something the bank said, as recorded (rail_events). */
export interface ReconEvent {
  transactionId?: string | undefined;
  connector: string;
  kind: 'STATUS_REPORT' | 'ENTRY' | null;
  status: string;
  result: string;
  failureReason?: string | undefined;
  amount?: bigint | undefined;
  currency?: string | undefined;
  railReference?: string | undefined;
  fileName?: string | undefined;
  at: number;
}

/** A credit on our account (bank_credits). */
export interface ReconCredit {
  id: string;
  connector: string;
  reference?: string | undefined;
  amount: bigint;
  currency: string;
  result: 'FUNDED' | 'MISMATCH' | 'UNMATCHED';
  quoteId?: string | undefined;
  fileName?: string | undefined;
  bookedAt: number;
}

export type DifferenceKind =
  /** In a released file, and the bank has said nothing of it. */
  | 'NEVER_ANSWERED'
  /** The bank booked or reported an amount or currency other than ours. */
  | 'AMOUNT_DIFFERS'
  /** The bank booked it (and did not send it back), and we do not hold it as completed. */
  | 'BOOKED_NOT_COMPLETED'
  /** A booked entry that names no payment of ours. */
  | 'BOOKED_UNKNOWN'
  /** A credit that matched no quote, or a quote for another amount. */
  | 'UNMATCHED_CREDIT'
  | 'CREDIT_AMOUNT_MISMATCH';

export interface Difference {
  kind: DifferenceKind;
  connector: string;
  transactionId?: string | undefined;
  reference?: string | undefined;
  amount?: bigint | undefined;
  currency?: string | undefined;
  /** Ours, where the bank's differs. */
  expectedAmount?: bigint | undefined;
  expectedCurrency?: string | undefined;
  fileName?: string | undefined;
  at: number;
  note: string;
}

export interface ReconLine extends ReconPayment {
  /** The bank's latest status report on it. */
  report?: ReconEvent | undefined;
  /** The bank's latest booked entry for it (a debit, or the return). */
  entry?: ReconEvent | undefined;
  differences: DifferenceKind[];
}

export interface Reconciliation {
  from: number;
  to: number;
  connector?: string | undefined;
  lines: ReconLine[];
  differences: Difference[];
  totals: { payments: number; matched: number; differences: number };
}

/**
 * The span of a report from what an operator types: a date (YYYY-MM-DD, UTC) or an RFC 3339 time. A date as
 * `to` means the whole of that day. An error names the field.
 */
export function parseSpan(
  from: string,
  to: string,
): { from: number; to: number } | { field: 'from' | 'to'; message: string } {
  const at = (text: string, end: boolean): number | undefined => {
    if (isCalendarDate(text)) return Date.parse(`${text}T00:00:00Z`) + (end ? 86_400_000 : 0);
    return parseTimestamp(text);
  };
  const start = at(from, false);
  if (start === undefined)
    return { field: 'from', message: `"${from}" is not a date (YYYY-MM-DD) or an RFC 3339 time` };
  const end = at(to, true);
  if (end === undefined) return { field: 'to', message: `"${to}" is not a date (YYYY-MM-DD) or an RFC 3339 time` };
  if (end <= start) return { field: 'to', message: 'must be after from' };
  return { from: start, to: end };
}

const latest = (events: ReconEvent[], kind: ReconEvent['kind']) =>
  events.filter((e) => e.kind === kind).reduce<ReconEvent | undefined>((a, e) => (a && a.at > e.at ? a : e), undefined);

/** A payment's line: what the bank said of it, and what does not agree. */
export function reconcileLine(payment: ReconPayment, events: ReconEvent[]): { line: ReconLine; found: Difference[] } {
  const found: Difference[] = [];
  const base = { connector: payment.connector, transactionId: payment.transactionId, fileName: payment.file?.name };
  if (payment.file && events.length === 0)
    found.push({ kind: 'NEVER_ANSWERED', ...base, at: payment.file.at, note: `released in ${payment.file.name}` });
  for (const e of events) {
    if (e.amount === undefined) continue;
    if (e.amount === payment.amount && (e.currency === undefined || e.currency === payment.currency)) continue;
    found.push({
      kind: 'AMOUNT_DIFFERS',
      ...base,
      amount: e.amount,
      currency: e.currency,
      expectedAmount: payment.amount,
      expectedCurrency: payment.currency,
      fileName: e.fileName,
      at: e.at,
      note: `the bank's ${e.kind === 'ENTRY' ? 'entry' : 'report'} says ${e.amount} ${e.currency ?? ''}`.trim(),
    });
  }
  const entries = events.filter((e) => e.kind === 'ENTRY');
  const booked = entries.find((e) => e.status === 'COMPLETED');
  const returned = entries.some((e) => e.status === 'RETURNED');
  if (booked && !returned && payment.status !== 'COMPLETED')
    found.push({
      kind: 'BOOKED_NOT_COMPLETED',
      ...base,
      fileName: booked.fileName,
      at: booked.at,
      note: `booked by the bank, ${payment.status} here`,
    });
  const line: ReconLine = {
    ...payment,
    report: latest(events, 'STATUS_REPORT'),
    entry: latest(events, 'ENTRY'),
    differences: [...new Set(found.map((d) => d.kind))],
  };
  return { line, found };
}

/** A booked entry for no payment of ours (rail_events UNKNOWN_PAYMENT of kind ENTRY). */
export function unknownEntry(e: ReconEvent): Difference {
  return {
    kind: 'BOOKED_UNKNOWN',
    connector: e.connector,
    reference: e.railReference,
    amount: e.amount,
    currency: e.currency,
    fileName: e.fileName,
    at: e.at,
    note: `an entry for EndToEndId ${e.railReference ?? '(none)'}, which names no payment of ours`,
  };
}

/** A credit that funded nothing: matched no quote, or a quote for another amount. */
export function creditDifference(c: ReconCredit): Difference | undefined {
  if (c.result === 'FUNDED') return undefined;
  return {
    kind: c.result === 'MISMATCH' ? 'CREDIT_AMOUNT_MISMATCH' : 'UNMATCHED_CREDIT',
    connector: c.connector,
    reference: c.reference,
    amount: c.amount,
    currency: c.currency,
    fileName: c.fileName,
    at: c.bookedAt,
    note:
      c.result === 'MISMATCH'
        ? `credited for quote ${c.quoteId ?? ''}, whose amount differs`
        : `reference "${c.reference ?? ''}" matches no quote`,
  };
}

/** The report's totals: a payment is matched when nothing about it differs and the bank has answered it. */
export function totalsOf(lines: ReconLine[], differences: Difference[]): Reconciliation['totals'] {
  return {
    payments: lines.length,
    matched: lines.filter((l) => l.differences.length === 0 && (l.report || l.entry)).length,
    differences: differences.length,
  };
}

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180); a formula is defused. */
export function csvField(value: string | number | bigint | undefined): string {
  if (value === undefined) return '';
  let text = String(value);
  // A spreadsheet would run "=…", "+…", "-…", "@…" as a formula: a bank reference is no formula.
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const CSV_HEADER = [
  'row',
  'transaction_id',
  'connector',
  'created_at',
  'status',
  'amount_minor',
  'currency',
  'file',
  'report_status',
  'report_file',
  'entry_status',
  'entry_amount_minor',
  'entry_currency',
  'entry_file',
  'difference',
  'reference',
  'note',
];

const isoOf = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The report as CSV lines (header first): a row per payment, then a row per difference not tied to one. */
export function* csvLines(report: Reconciliation): Generator<string> {
  yield CSV_HEADER.join(',');
  const row = (fields: (string | number | bigint | undefined)[]) => fields.map(csvField).join(',');
  for (const l of report.lines)
    yield row([
      'PAYMENT',
      l.transactionId,
      l.connector,
      isoOf(l.createdAt),
      l.status,
      l.amount,
      l.currency,
      l.file?.name,
      l.report?.status,
      l.report?.fileName,
      l.entry?.status,
      l.entry?.amount,
      l.entry?.currency,
      l.entry?.fileName,
      l.differences.join(' '),
      undefined,
      undefined,
    ]);
  for (const d of report.differences) {
    if (d.transactionId) continue;
    yield row([
      'DIFFERENCE',
      undefined,
      d.connector,
      isoOf(d.at),
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      d.amount,
      d.currency,
      d.fileName,
      d.kind,
      d.reference,
      d.note,
    ]);
  }
}

const num = (v: bigint | undefined) => (v === undefined ? undefined : Number(v));

function eventJson(e: ReconEvent | undefined) {
  if (!e) return undefined;
  return {
    status: e.status,
    result: e.result,
    failureReason: e.failureReason,
    amount: num(e.amount),
    currency: e.currency,
    file: e.fileName,
    at: isoOf(e.at),
  };
}

/** The report as the operator API gives it: amounts in minor units, times in RFC 3339. */
export function reconciliationJson(report: Reconciliation) {
  return {
    from: isoOf(report.from),
    to: isoOf(report.to),
    connector: report.connector,
    totals: report.totals,
    data: report.lines.map((l) => ({
      transactionId: l.transactionId,
      platformId: l.platformId,
      connector: l.connector,
      createdAt: isoOf(l.createdAt),
      status: l.status,
      amount: Number(l.amount),
      currency: l.currency,
      file: l.file
        ? { id: l.file.id, name: l.file.name, msgId: l.file.msgId, releasedAt: isoOf(l.file.at) }
        : undefined,
      statusReport: eventJson(l.report),
      entry: eventJson(l.entry),
      differences: l.differences,
    })),
    differences: report.differences.map((d) => ({
      kind: d.kind,
      connector: d.connector,
      transactionId: d.transactionId,
      reference: d.reference,
      amount: num(d.amount),
      currency: d.currency,
      expectedAmount: num(d.expectedAmount),
      expectedCurrency: d.expectedCurrency,
      file: d.fileName,
      at: isoOf(d.at),
      note: d.note,
    })),
  };
}
