// The one path by which a rail's word moves a payment: a callback, a poll's answer and a submit's answer
// all become a RailEvent and come here. In one database transaction: the payment locked, the event
// recorded (unique per connector and message id, so a replay changes nothing), the lifecycle step the
// event's table (domain/rail-events.ts) asks for, with its postings and webhook events.
import { railEffect } from '../../domain/rail-events.ts';
import { newId } from '../../domain/ids.ts';
import type { RailEvent } from '../../rails/connector.ts';
import { type Tx, withinTransaction } from '../../store/db.ts';
import { withDeferredWrites } from '../../store/deferred-writes.ts';
import type { RailPaymentsTable } from '../../store/schema.ts';
import { loadScope } from '../../platforms.ts';
import { type Ctx, wallNowMs } from '../../context.ts';
import { complete, fail, returnPayment } from '../transactions/lifecycle.ts';
import { loadForUpdate } from '../transactions/queries.ts';

export type EventResult = 'APPLIED' | 'NO_CHANGE' | 'UNKNOWN_PAYMENT' | 'REPLAY';

export interface TakenEvent {
  result: EventResult;
  transactionId?: string;
}

/** The connector's payment the event names: by our id first, else by the rail's reference. */
export async function findRailPayment(
  ctx: Ctx,
  connector: string,
  event: Pick<RailEvent, 'transactionId' | 'railReference'>,
): Promise<RailPaymentsTable | undefined> {
  const { db } = ctx.store;
  const base = db.selectFrom('rail_payments').selectAll().where('connector', '=', connector);
  if (event.transactionId) {
    const byId = await base.where('transaction_id', '=', event.transactionId).executeTakeFirst();
    if (byId) return byId;
  }
  if (!event.railReference) return undefined;
  return base.where('rail_reference', '=', event.railReference).executeTakeFirst();
}

/** Records the event; false when its message id was recorded before (a replay). */
async function record(
  trx: Tx,
  connector: string,
  event: RailEvent,
  result: Exclude<EventResult, 'REPLAY'>,
  nowMs: number,
  transactionId: string | null,
): Promise<boolean> {
  const inserted = await trx
    .insertInto('rail_events')
    .values({
      id: newId('RailEvent'),
      connector,
      message_id: event.messageId,
      transaction_id: transactionId ?? event.transactionId ?? null,
      rail_reference: event.railReference ?? null,
      status: event.status,
      failure_reason: event.reason ?? null,
      occurred_at: BigInt(event.occurredAtMs),
      received_at: BigInt(nowMs),
      result,
      note: event.note ?? null,
      bank_file_id: event.bankFileId ?? null,
      amount: event.amount ?? null,
      currency: event.currency ?? null,
      kind: event.kind ?? null,
    })
    .onConflict((oc) => oc.columns(['connector', 'message_id']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Takes one event from a connector: applied, no change, a replay, or recorded for a payment we do not know. */
export function takeRailEvent(ctx: Ctx, connector: string, event: RailEvent): Promise<TakenEvent> {
  return ctx.store.tx((trx) => withinTransaction(trx, () => takeRailEventIn(ctx, trx, connector, event)));
}

/**
 * takeRailEvent's body, in the caller's transaction `trx`, which must be the ambient one (store/db.ts
 * withinTransaction: every read goes through it, so nothing waits for a connection it holds). A bank file's
 * events all ride in its one transaction this way, by the same path as a callback's: the file commits whole
 * or not at all. Each event's lifecycle step writes its deferred rows when it ends (withDeferredWrites, nested
 * in the transaction's own buffer): the next event may name the same payment and read it back (the store's
 * rule 2). No savepoint per event: a file's hundred thousand would each be a PostgreSQL subtransaction.
 */
export async function takeRailEventIn(ctx: Ctx, trx: Tx, connector: string, event: RailEvent): Promise<TakenEvent> {
  const rail = await findRailPayment(ctx, connector, event);
  const nowMs = wallNowMs(ctx);
  if (!rail) {
    const fresh = await record(trx, connector, event, 'UNKNOWN_PAYMENT', nowMs, null);
    return { result: fresh ? 'UNKNOWN_PAYMENT' : 'REPLAY' };
  }
  const scope = await loadScope(ctx, rail.platform_id, rail.environment);
  const transactionId = rail.transaction_id;
  return withDeferredWrites(trx, async (): Promise<TakenEvent> => {
    const payment = await loadForUpdate(trx, scope, transactionId);
    if (!payment) return { result: 'UNKNOWN_PAYMENT' };
    const effect = railEffect(payment.flow, payment.status, event.status);
    const applied = effect !== 'NONE';
    if (!(await record(trx, connector, event, applied ? 'APPLIED' : 'NO_CHANGE', nowMs, transactionId)))
      return { result: 'REPLAY', transactionId };
    // Written at once, before the lifecycle's deferred writes (the store's rule 1).
    await trx
      .updateTable('rail_payments')
      .set({
        rail_reference: rail.rail_reference ?? event.railReference ?? null,
        ...(applied ? { state: 'DONE' as const, attention: null, attention_since: null } : {}),
        updated_at: BigInt(nowMs),
      })
      .where('transaction_id', '=', transactionId)
      .execute();
    const reason = event.reason ?? (event.status === 'RETURNED' ? 'PAYOUT_RETURNED' : 'COUNTERPARTY_POST_TX_FAILED');
    if (effect === 'COMPLETE') await complete(ctx, trx, scope, payment);
    else if (effect === 'FAIL')
      await fail(ctx, trx, scope, payment, { reason, refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' });
    else if (effect === 'RETURN') await returnPayment(ctx, trx, scope, payment, reason);
    return { result: applied ? 'APPLIED' : 'NO_CHANGE', transactionId };
  });
}
