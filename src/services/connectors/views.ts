// What the dashboard shows of the connectors, read for one scope (platform and environment): the payments
// that wait for an answer or a person, the rail events about its payments, counts per connector, and one
// payment's rail history. Every query names the scope, so no screen shows another tenant's payments; an
// event that names no payment at all is shown to the platforms the connector serves (nobody else owns it).
import { MANUAL_CONNECTOR } from '../../domain/connector-routes.ts';
import type { Outcome } from '../../rails/sandbox-outcomes.ts';
import type { RailEventsTable, RailPaymentsTable } from '../../store/schema.ts';
import type { Ctx, Scope } from '../../context.ts';

/** A payment on the attention list, with what a person deciding about it wants beside the reason. */
export interface AttentionRow extends RailPaymentsTable {
  amount: bigint;
  currency: string;
  flow: string;
}

/** What a connector did for the scope, counted from the database (so across processes and restarts). */
export interface ConnectorCounts {
  connector: string;
  /** Payments handed to it. */
  submitted: number;
  completed: number;
  failed: number;
  returned: number;
  /** Handed, not final yet. */
  waiting: number;
  /** Of those waiting, the ones on the attention list. */
  attention: number;
}

/** Sums and counts come back as number, bigint or numeric text depending on the engine. */
const n = (value: unknown): number => Number(BigInt(value as string | number | bigint));

/** The scope's payments a connector holds whose outcome is unknown, oldest first. */
export async function attentionOf(ctx: Ctx, scope: Scope, limit: number): Promise<AttentionRow[]> {
  const rows = await ctx.store.db
    .selectFrom('rail_payments')
    .innerJoin('transactions', 'transactions.id', 'rail_payments.transaction_id')
    .selectAll('rail_payments')
    .select(['transactions.sent_amount', 'transactions.sent_currency', 'transactions.flow'])
    .where('rail_payments.platform_id', '=', scope.platformId)
    .where('rail_payments.environment', '=', scope.environment)
    .where('transactions.status', '=', 'PROCESSING')
    .where('rail_payments.attention', 'is not', null)
    .where('rail_payments.state', '!=', 'DONE')
    .orderBy('rail_payments.attention_since')
    .limit(limit)
    .execute();
  return rows.map(({ sent_amount, sent_currency, flow, ...rail }) => ({
    ...rail,
    amount: sent_amount,
    currency: sent_currency,
    flow,
  }));
}

/**
 * The latest rail events about the scope's payments, newest first, and those that named no payment the
 * service knows from the connectors in `connectors` (the ones whose routes reach the scope).
 */
export async function recentEventsOf(
  ctx: Ctx,
  scope: Scope,
  connectors: readonly string[],
  limit: number,
): Promise<RailEventsTable[]> {
  return ctx.store.db
    .selectFrom('rail_events')
    .leftJoin('rail_payments', 'rail_payments.transaction_id', 'rail_events.transaction_id')
    .selectAll('rail_events')
    .where((eb) => {
      const mine = eb.and([
        eb('rail_payments.platform_id', '=', scope.platformId),
        eb('rail_payments.environment', '=', scope.environment),
      ]);
      if (connectors.length === 0) return mine;
      const unknown = eb.and([
        eb('rail_payments.transaction_id', 'is', null),
        eb('rail_events.result', '=', 'UNKNOWN_PAYMENT'),
        eb('rail_events.connector', 'in', [...connectors]),
      ]);
      return eb.or([mine, unknown]);
    })
    .orderBy('rail_events.received_at', 'desc')
    .orderBy('rail_events.id', 'desc')
    .limit(limit)
    .execute();
}

/** Per connector that served the scope: handed over, final by the rail's word, and still waiting. */
export async function countsOf(ctx: Ctx, scope: Scope): Promise<ConnectorCounts[]> {
  const { db } = ctx.store;
  const mine = () =>
    db
      .selectFrom('rail_payments')
      .where('rail_payments.platform_id', '=', scope.platformId)
      .where('rail_payments.environment', '=', scope.environment);
  const [handed, waiting, applied] = await Promise.all([
    mine()
      .select(['connector', (eb) => eb.fn.countAll().as('n')])
      .groupBy('connector')
      .execute(),
    mine()
      .innerJoin('transactions', 'transactions.id', 'rail_payments.transaction_id')
      .where('transactions.status', '=', 'PROCESSING')
      .where('rail_payments.state', '!=', 'DONE')
      .select(['connector', (eb) => eb.fn.countAll().as('n'), (eb) => eb.fn.count('attention').as('attention')])
      .groupBy('connector')
      .execute(),
    mine()
      .innerJoin('rail_events', 'rail_events.transaction_id', 'rail_payments.transaction_id')
      .where('rail_events.result', '=', 'APPLIED')
      .select(['rail_payments.connector', 'rail_events.status', (eb) => eb.fn.countAll().as('n')])
      .groupBy(['rail_payments.connector', 'rail_events.status'])
      .execute(),
  ]);
  const byName = new Map<string, ConnectorCounts>();
  const of = (connector: string) => {
    let counts = byName.get(connector);
    if (!counts) {
      counts = { connector, submitted: 0, completed: 0, failed: 0, returned: 0, waiting: 0, attention: 0 };
      byName.set(connector, counts);
    }
    return counts;
  };
  for (const row of handed) of(row.connector).submitted = n(row.n);
  for (const row of waiting) Object.assign(of(row.connector), { waiting: n(row.n), attention: n(row.attention) });
  for (const row of applied) {
    const counts = of(row.connector);
    if (row.status === 'COMPLETED') counts.completed += n(row.n);
    else if (row.status === 'FAILED') counts.failed += n(row.n);
    else if (row.status === 'RETURNED') counts.returned += n(row.n);
  }
  return [...byName.values()].sort((a, b) => a.connector.localeCompare(b.connector));
}

/** One payment's rail: the connector it went to, what the core keeps of it there, and every event about it. */
export interface RailHistory {
  /** `manual` for a production payment no connector calls out for; undefined for a sandbox one. */
  connector?: string;
  rail?: RailPaymentsTable;
  events: RailEventsTable[];
}

export async function railHistoryOf(ctx: Ctx, scope: Scope, transactionId: string): Promise<RailHistory> {
  const { db } = ctx.store;
  const [payment, rail] = await Promise.all([
    db
      .selectFrom('transactions')
      .select('outcome')
      .where('id', '=', transactionId)
      .where('platform_id', '=', scope.platformId)
      .where('environment', '=', scope.environment)
      .executeTakeFirst(),
    db
      .selectFrom('rail_payments')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .where('platform_id', '=', scope.platformId)
      .where('environment', '=', scope.environment)
      .executeTakeFirst(),
  ]);
  if (!payment) return { events: [] };
  if (rail) {
    const events = await db
      .selectFrom('rail_events')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .where('connector', '=', rail.connector)
      .orderBy('received_at')
      .orderBy('id')
      .execute();
    return { connector: rail.connector, rail, events };
  }
  const outcome = JSON.parse(payment.outcome) as Outcome;
  return outcome.kind === 'MANUAL' ? { connector: MANUAL_CONNECTOR, events: [] } : { events: [] };
}
