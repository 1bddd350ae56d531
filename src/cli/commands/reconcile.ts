// `payouts reconcile --from --to [--connector] [--csv]`: a bank connector's reconciliation report, read from
// the server's database: every payment of the span with its file, the bank's status report and entry, then
// the differences (released but never answered, booked but unknown to us, amounts that differ, credits that
// funded nothing). A table for a person, or CSV for a spreadsheet. Exits 1 when anything differs.
import type { Reconciliation } from '../../domain/reconciliation.ts';
import { stringOption, type CliCommand } from '../command.ts';
import { withServices } from '../services.ts';

const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString().slice(0, 19) + 'Z');

/** Columns padded to their widest cell. */
function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function printTable(report: Reconciliation): void {
  const rows = [['TRANSACTION', 'CREATED', 'STATUS', 'AMOUNT', 'FILE', 'REPORT', 'ENTRY', 'DIFFERENCES']];
  for (const l of report.lines)
    rows.push([
      l.transactionId,
      iso(l.createdAt),
      l.status,
      `${l.amount} ${l.currency}`,
      l.file?.name ?? '-',
      l.report?.status ?? '-',
      l.entry ? `${l.entry.status} ${l.entry.amount ?? ''} ${l.entry.currency ?? ''}`.trim() : '-',
      l.differences.join(' ') || '-',
    ]);
  process.stdout.write(`${table(rows)}\n`);
  if (report.differences.length > 0) {
    const diffs = [['DIFFERENCE', 'AT', 'TRANSACTION/REFERENCE', 'AMOUNT', 'FILE', 'NOTE']];
    for (const d of report.differences)
      diffs.push([
        d.kind,
        iso(d.at),
        d.transactionId ?? d.reference ?? '-',
        d.amount === undefined ? '-' : `${d.amount} ${d.currency ?? ''}`.trim(),
        d.fileName ?? '-',
        d.note,
      ]);
    process.stdout.write(`\n${table(diffs)}\n`);
  }
  const { payments, matched, differences } = report.totals;
  process.stderr.write(`payouts: ${payments} payments, ${matched} matched, ${differences} differences\n`);
}

export const reconcileCommand: CliCommand = {
  path: ['reconcile'],
  summary:
    "A bank connector's reconciliation: each payment of the span with its file, the bank's report and entry, " +
    'and the differences (a table, or --csv); exits 1 when anything differs',
  options: [
    { flags: '--from <date>', description: 'from this date (YYYY-MM-DD, UTC) or RFC 3339 time', required: true },
    { flags: '--to <date>', description: 'to the end of this date, or to this RFC 3339 time', required: true },
    { flags: '--connector <name>', description: 'only this connector (default: all)' },
    { flags: '--csv', description: 'CSV on stdout: a row per payment, then a row per other difference' },
  ],
  database: 'uses',
  writes: false,
  async run(input) {
    const { parseSpan, csvLines } = await import('../../domain/reconciliation.ts');
    const span = parseSpan(stringOption(input.options, 'from') ?? '', stringOption(input.options, 'to') ?? '');
    if ('field' in span) return input.fail(`--${span.field}: ${span.message}`);
    const connector = stringOption(input.options, 'connector');
    const { reconcile } = await import('../../services/bank/reconcile.ts');
    const report = await withServices(input.config, ({ services }) => reconcile(services.ctx, { ...span, connector }));
    if (input.options.csv === true) for (const line of csvLines(report)) process.stdout.write(`${line}\r\n`);
    else printTable(report);
    return report.differences.length > 0 ? 1 : 0;
  },
};
