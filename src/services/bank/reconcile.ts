// The reconciliation report's reads: the payments a connector holds that were made in the span, with their
// files; what the bank said of each (rail_events, with the file it came in); the entries it booked for no
// payment of ours; the credits that funded nothing. What they mean is domain/reconciliation.ts's to say.
import {
  creditDifference,
  reconcileLine,
  totalsOf,
  unknownEntry,
  type Difference,
  type ReconEvent,
  type ReconLine,
  type Reconciliation,
} from '../../domain/reconciliation.ts';
import type { Ctx } from '../../context.ts';

export interface ReconcileQuery {
  from: number;
  to: number;
  /** One connector; all of them when undefined. */
  connector?: string | undefined;
  /** Only this platform's payments (the dashboard); the connector's own entries and credits still come. */
  platformId?: string | undefined;
}

/** Payments read a page at a time, and their events a page at a time: statements stay small. */
const PAGE = 500;

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** The rail events with the name of the file each came in: what a reconciliation line shows of an event. */
const eventRows = (ctx: Ctx) =>
  ctx.store.db
    .selectFrom('rail_events')
    .leftJoin('bank_files', 'bank_files.id', 'rail_events.bank_file_id')
    .select([
      'rail_events.transaction_id',
      'rail_events.connector',
      'rail_events.kind',
      'rail_events.status',
      'rail_events.result',
      'rail_events.failure_reason',
      'rail_events.amount',
      'rail_events.currency',
      'rail_events.rail_reference',
      'rail_events.occurred_at',
      'rail_events.received_at',
      'bank_files.name as file_name',
    ]);

async function eventsOf(ctx: Ctx, ids: string[]): Promise<Map<string, ReconEvent[]>> {
  const rows = await eventRows(ctx)
    .where('rail_events.transaction_id', 'in', ids)
    .orderBy('rail_events.received_at')
    .execute();
  const byPayment = new Map<string, ReconEvent[]>();
  for (const r of rows) {
    const id = r.transaction_id ?? '';
    const list = byPayment.get(id) ?? [];
    list.push(eventOf(r));
    byPayment.set(id, list);
  }
  return byPayment;
}

function eventOf(r: {
  transaction_id: string | null;
  connector: string;
  kind: ReconEvent['kind'];
  status: string;
  result: string;
  failure_reason: string | null;
  amount: bigint | null;
  currency: string | null;
  rail_reference: string | null;
  occurred_at: bigint;
  received_at: bigint;
  file_name: string | null;
}): ReconEvent {
  return {
    transactionId: opt(r.transaction_id),
    connector: r.connector,
    kind: r.kind,
    status: r.status,
    result: r.result,
    failureReason: opt(r.failure_reason),
    amount: opt(r.amount),
    currency: opt(r.currency),
    railReference: opt(r.rail_reference),
    fileName: opt(r.file_name),
    at: Number(r.occurred_at),
  };
}

async function paymentLines(ctx: Ctx, q: ReconcileQuery, differences: Difference[]): Promise<ReconLine[]> {
  const lines: ReconLine[] = [];
  let after: { at: bigint; id: string } | undefined;
  for (;;) {
    let query = ctx.store.db
      .selectFrom('rail_payments')
      .innerJoin('transactions', 'transactions.id', 'rail_payments.transaction_id')
      .leftJoin('bank_files', 'bank_files.id', 'rail_payments.bank_file_id')
      .select([
        'transactions.id',
        'transactions.platform_id',
        'transactions.created_at',
        'transactions.status',
        'transactions.received_amount',
        'transactions.received_currency',
        'rail_payments.connector',
        'bank_files.id as file_id',
        'bank_files.name as file_name',
        'bank_files.msg_id as file_msg_id',
        'bank_files.created_at as file_at',
      ])
      .where('transactions.created_at', '>=', BigInt(q.from))
      .where('transactions.created_at', '<', BigInt(q.to));
    if (q.connector !== undefined) query = query.where('rail_payments.connector', '=', q.connector);
    if (q.platformId !== undefined) query = query.where('rail_payments.platform_id', '=', q.platformId);
    if (after) {
      const { at, id } = after;
      query = query.where((eb) =>
        eb.or([
          eb('transactions.created_at', '>', at),
          eb.and([eb('transactions.created_at', '=', at), eb('transactions.id', '>', id)]),
        ]),
      );
    }
    const rows = await query.orderBy('transactions.created_at').orderBy('transactions.id').limit(PAGE).execute();
    if (rows.length === 0) break;
    const events = await eventsOf(
      ctx,
      rows.map((r) => r.id),
    );
    for (const r of rows) {
      const file =
        r.file_id === null
          ? undefined
          : { id: r.file_id, name: r.file_name ?? '', msgId: r.file_msg_id ?? '', at: Number(r.file_at ?? 0) };
      const payment = {
        transactionId: r.id,
        platformId: r.platform_id,
        connector: r.connector,
        createdAt: Number(r.created_at),
        status: r.status,
        amount: r.received_amount,
        currency: r.received_currency,
        file,
      };
      const { line, found } = reconcileLine(payment, events.get(r.id) ?? []);
      lines.push(line);
      differences.push(...found);
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < PAGE) break;
    after = { at: last.created_at, id: last.id };
  }
  return lines;
}

async function unknownEntries(ctx: Ctx, q: ReconcileQuery): Promise<Difference[]> {
  let query = eventRows(ctx)
    .where('rail_events.result', '=', 'UNKNOWN_PAYMENT')
    .where('rail_events.kind', '=', 'ENTRY')
    // By when the bank booked it, as the bank's own statement lists it.
    .where('rail_events.occurred_at', '>=', BigInt(q.from))
    .where('rail_events.occurred_at', '<', BigInt(q.to));
  if (q.connector !== undefined) query = query.where('rail_events.connector', '=', q.connector);
  const rows = await query.orderBy('rail_events.occurred_at').execute();
  return rows.map((r) => unknownEntry(eventOf(r)));
}

async function creditDifferences(ctx: Ctx, q: ReconcileQuery): Promise<Difference[]> {
  let query = ctx.store.db
    .selectFrom('bank_credits')
    .leftJoin('bank_files', 'bank_files.id', 'bank_credits.bank_file_id')
    .select([
      'bank_credits.id',
      'bank_credits.connector',
      'bank_credits.reference',
      'bank_credits.amount',
      'bank_credits.currency',
      'bank_credits.result',
      'bank_credits.quote_id',
      'bank_credits.booked_at',
      'bank_files.name as file_name',
    ])
    .where('bank_credits.result', '!=', 'FUNDED')
    .where('bank_credits.booked_at', '>=', BigInt(q.from))
    .where('bank_credits.booked_at', '<', BigInt(q.to));
  if (q.connector !== undefined) query = query.where('bank_credits.connector', '=', q.connector);
  const rows = await query.orderBy('bank_credits.booked_at').execute();
  return rows.flatMap((r) => {
    const d = creditDifference({
      id: r.id,
      connector: r.connector,
      reference: opt(r.reference),
      amount: r.amount,
      currency: r.currency,
      result: r.result,
      quoteId: opt(r.quote_id),
      fileName: opt(r.file_name),
      bookedAt: Number(r.booked_at),
    });
    return d ? [d] : [];
  });
}

/** The report for a span (created_at of the payments, booking time of the bank's own entries). */
export async function reconcile(ctx: Ctx, q: ReconcileQuery): Promise<Reconciliation> {
  const differences: Difference[] = [];
  const lines = await paymentLines(ctx, q, differences);
  differences.push(...(await unknownEntries(ctx, q)), ...(await creditDifferences(ctx, q)));
  return { from: q.from, to: q.to, connector: q.connector, lines, differences, totals: totalsOf(lines, differences) };
}
