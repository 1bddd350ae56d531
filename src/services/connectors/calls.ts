// The calls out to a connector, as durable jobs of the outside lane: never inside a database transaction,
// retried with a growing pause, and never failed by guesswork. A submit whose outcome is unknown (a timeout,
// a 5xx, an adapter that is down) keeps its payment PROCESSING and, after a few tries, on the attention list;
// the same instruction (same id, so the rail never pays twice) goes again until the rail answers or an
// operator settles or fails the payment.
import { runAgainAt, type RunAgainAt } from '../../jobs/kinds.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import {
  CancelRefused,
  RailRefused,
  type RailAnswer,
  type RailConnector,
  type RailInstruction,
} from '../../rails/connector.ts';
import { everyColumnOf, prefixedColumns, splitPrefixed } from '../../store/joined-rows.ts';
import type { RailPaymentsTable, TransactionsTable } from '../../store/schema.ts';
import { type Ctx, type Scope, wallNowMs } from '../../context.ts';
import type { ConnectorMetrics } from './metrics.ts';
import { takeRailEvent } from './events.ts';
import { BUSY_JITTER_MS, BUSY_RETRY_MS, type InFlightBound } from './in-flight.ts';

/** Unknown outcomes before a payment goes on the attention list. */
export const ATTENTION_AFTER_CALLS = 3;
/** Polls that found the payment still pending before it goes on the attention list (it is still polled). */
export const ATTENTION_AFTER_POLLS = 100;

/** The pause before trying an unknown outcome again: 1 s, 2 s, 4 s … at most a minute. */
export function backoffMs(calls: number): number {
  return Math.min(1000 * 2 ** Math.max(0, calls - 1), 60_000);
}

export interface CallDeps {
  ctx: Ctx;
  connectors: ReadonlyMap<string, RailConnector>;
  pollIntervalMs: (connector: string) => number;
  metrics: ConnectorMetrics;
  /** Each HTTP connector's bound on calls at once (maxInFlight). */
  bounds: ReadonlyMap<string, InFlightBound>;
}

export interface Handed {
  rail: RailPaymentsTable;
  payment: TransactionsTable;
  instruction: RailInstruction;
}

/** The rail row's columns, under a prefix in the joined read (both tables have platform_id, created_at …). */
const RAIL = 'rail__';
const RAIL_COLUMNS = everyColumnOf<RailPaymentsTable>()([
  'transaction_id',
  'platform_id',
  'environment',
  'connector',
  'rail_reference',
  'state',
  'calls',
  'last_error',
  'attention',
  'attention_since',
  'created_at',
  'updated_at',
  'bank_file_id',
]);
const ACCOUNT = 'account__';

/**
 * What a connector needs to know of a payment: ours, its amount, and the external account at the other end
 * (the source of a pull, the destination of a payout). One statement: the rail row, the payment and the
 * account joined.
 */
export async function handed(ctx: Ctx, scope: Scope, id: string): Promise<Handed | undefined> {
  const row = await ctx.store.db
    .selectFrom('rail_payments')
    .innerJoin('transactions', 'transactions.id', 'rail_payments.transaction_id')
    .innerJoin('external_accounts', (join) =>
      join.on((eb) =>
        eb(
          'external_accounts.id',
          '=',
          eb
            .case()
            .when('transactions.flow', '=', 'TRANSFER_IN')
            .then(eb.ref('transactions.source_account_id'))
            .else(eb.ref('transactions.destination_account_id'))
            .end(),
        ),
      ),
    )
    .selectAll('transactions')
    .select(prefixedColumns('rail_payments', RAIL_COLUMNS, RAIL))
    .select(prefixedColumns('external_accounts', ['id', 'account_type', 'account_info'], ACCOUNT))
    .where('rail_payments.transaction_id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { plain, prefixed: account } = splitPrefixed(row, ACCOUNT);
  const { plain: payment, prefixed: rail } = splitPrefixed(plain, RAIL);
  if (payment.platform_id !== scope.platformId) return undefined;
  const pull = payment.flow === 'TRANSFER_IN';
  const instruction: RailInstruction = {
    id,
    direction: pull ? 'PULL' : 'PAYOUT',
    amount: pull ? payment.sent_amount : payment.received_amount,
    currency: pull ? payment.sent_currency : payment.received_currency,
    account: {
      id: account.id,
      accountType: account.account_type,
      accountInfo: JSON.parse(account.account_info) as Record<string, unknown>,
    },
    reference: payment.reference ?? payment.remittance_information ?? undefined,
    createdAtMs: Number(payment.created_at),
  };
  return { rail, payment, instruction };
}

/** Runs a call within its connector's bound; undefined when the bound is full (the caller waits its turn). */
async function withinBound<T>(deps: CallDeps, connector: string, run: () => Promise<T>) {
  const bound = deps.bounds.get(connector);
  return bound ? bound.tryRun(run) : { value: await run() };
}

/** A job whose connector has its bound of calls in flight runs again shortly: it waits, it never fails. */
const busy = (deps: CallDeps) =>
  runAgainAt(wallNowMs(deps.ctx) + BUSY_RETRY_MS + Math.floor(Math.random() * BUSY_JITTER_MS));

/** Counts the call, keeps its error, and puts the payment on the attention list once the calls say so. */
async function unknownOutcome(deps: CallDeps, rail: RailPaymentsTable, why: string, attentionAfter: number) {
  const calls = rail.calls + 1n;
  const now = BigInt(wallNowMs(deps.ctx));
  const attention = calls >= BigInt(attentionAfter) ? why : rail.attention;
  await deps.ctx.store.db
    .updateTable('rail_payments')
    .set({
      calls,
      last_error: why.slice(0, 500),
      attention,
      attention_since: attention ? (rail.attention_since ?? now) : null,
      updated_at: now,
    })
    .where('transaction_id', '=', rail.transaction_id)
    .execute();
  return Number(calls);
}

/** A final answer goes through the one transition path; a pending one is followed by polling. */
async function answered(deps: CallDeps, scope: Scope, h: Handed, answer: RailAnswer, kind: 'submit' | 'poll') {
  const { ctx } = deps;
  if (answer.status === 'PENDING') {
    const now = wallNowMs(ctx);
    const polls = kind === 'poll' ? h.rail.calls + 1n : 0n;
    const stuck = polls >= BigInt(ATTENTION_AFTER_POLLS) ? `no final answer after ${polls} polls` : null;
    await ctx.store.tx(async (trx) => {
      await trx
        .updateTable('rail_payments')
        .set({
          state: 'PENDING',
          rail_reference: h.rail.rail_reference ?? answer.railReference ?? null,
          calls: polls,
          last_error: null,
          attention: stuck,
          attention_since: stuck ? (h.rail.attention_since ?? BigInt(now)) : null,
          updated_at: BigInt(now),
        })
        .where('transaction_id', '=', h.rail.transaction_id)
        // A callback that settled it while the call was out has the last word.
        .where('state', '!=', 'DONE')
        .execute();
      if (kind === 'submit' && deps.connectors.get(h.rail.connector)?.capabilities.poll)
        await enqueueJob(
          trx,
          scope,
          'connector.poll',
          { id: h.rail.transaction_id },
          now,
          deps.pollIntervalMs(h.rail.connector),
        );
    });
    return kind === 'poll' ? runAgainAt(now + deps.pollIntervalMs(h.rail.connector)) : undefined;
  }
  await takeRailEvent(ctx, h.rail.connector, {
    // One final answer per payment and kind: asking again and hearing the same is a replay.
    messageId: `${kind}:${h.rail.transaction_id}:${answer.status}`,
    transactionId: h.rail.transaction_id,
    railReference: answer.railReference,
    status: answer.status,
    reason: answer.status === 'FAILED' ? answer.reason : undefined,
    occurredAtMs: wallNowMs(ctx),
  });
  return undefined;
}

export async function timed<T>(deps: CallDeps, connector: string, call: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await run();
    deps.metrics.call(connector, call, 'answered', performance.now() - started);
    return result;
  } catch (err) {
    deps.metrics.call(
      connector,
      call,
      err instanceof RailRefused || err instanceof CancelRefused ? 'refused' : 'unknown',
      performance.now() - started,
    );
    throw err;
  }
}

/** `connector.submit`: hands the instruction over; a refusal fails the payment, anything unknown is tried again. */
export async function submitJob(deps: CallDeps, id: string, scope: Scope): Promise<void | RunAgainAt> {
  const h = await handed(deps.ctx, scope, id);
  if (!h || h.rail.state !== 'SUBMITTING' || h.payment.status !== 'PROCESSING') return;
  const connector = deps.connectors.get(h.rail.connector);
  if (!connector) {
    const calls = await unknownOutcome(deps, h.rail, `connector ${h.rail.connector} is not configured`, 1);
    return runAgainAt(wallNowMs(deps.ctx) + backoffMs(calls));
  }
  try {
    const call = () => timed(deps, connector.name, 'submit', () => connector.submit(h.instruction));
    const ran = await withinBound(deps, connector.name, call);
    if (!ran) return busy(deps);
    return await answered(deps, scope, h, ran.value, 'submit');
  } catch (err) {
    if (err instanceof RailRefused) {
      await takeRailEvent(deps.ctx, connector.name, {
        messageId: `submit:${id}:REFUSED`,
        transactionId: id,
        status: 'FAILED',
        reason: err.reason,
        occurredAtMs: wallNowMs(deps.ctx),
      });
      return;
    }
    const why = `submit: ${err instanceof Error ? err.message : String(err)}`;
    const calls = await unknownOutcome(deps, h.rail, why, ATTENTION_AFTER_CALLS);
    return runAgainAt(wallNowMs(deps.ctx) + backoffMs(calls));
  }
}

/** `connector.poll`: asks where the payment stands until it is final; a payment the rail never got goes again. */
export async function pollJob(deps: CallDeps, id: string, scope: Scope): Promise<void | RunAgainAt> {
  const h = await handed(deps.ctx, scope, id);
  if (!h || h.rail.state !== 'PENDING' || h.payment.status !== 'PROCESSING') return;
  const connector = deps.connectors.get(h.rail.connector);
  if (!connector) return runAgainAt(wallNowMs(deps.ctx) + deps.pollIntervalMs(h.rail.connector));
  try {
    const call = () =>
      timed(deps, connector.name, 'poll', () => connector.poll(h.instruction, h.rail.rail_reference ?? undefined));
    const ran = await withinBound(deps, connector.name, call);
    if (!ran) return busy(deps);
    const answer = ran.value;
    if (answer) return await answered(deps, scope, h, answer, 'poll');
    // The rail says it never received it: submit it again (the same id, so it can never be paid twice).
    await deps.ctx.store.tx(async (trx) => {
      await trx.updateTable('rail_payments').set({ state: 'SUBMITTING' }).where('transaction_id', '=', id).execute();
      await enqueueJob(trx, scope, 'connector.submit', { id }, wallNowMs(deps.ctx));
    });
    return;
  } catch (err) {
    const why = `poll: ${err instanceof Error ? err.message : String(err)}`;
    const calls = await unknownOutcome(deps, h.rail, why, ATTENTION_AFTER_CALLS);
    return runAgainAt(wallNowMs(deps.ctx) + Math.max(backoffMs(calls), deps.pollIntervalMs(h.rail.connector)));
  }
}
