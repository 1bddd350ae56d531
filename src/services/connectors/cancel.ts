// The cancel of a payment an HTTP connector holds, asked for by POST /transactions/{id}/cancel: the call out
// is made outside any database transaction, and its answer goes through the one transition path
// (events.ts, takeRailEvent), like any other word of the rail. Only the rail's own "cancelled" fails the
// payment: a refusal (too late, no such payout, no cancel at all) changes nothing, and a cancel whose outcome
// is unknown leaves the payment PROCESSING, to be settled by the rail's next answer or by an operator.
import { AppError } from '../../domain/errors.ts';
import { CancelRefused, type RailAnswer } from '../../rails/connector.ts';
import { type Ctx, type Scope, wallNowMs } from '../../context.ts';
import type { Failure } from '../transactions/lifecycle.ts';
import { type CallDeps, handed, timed } from './calls.ts';
import { takeRailEvent } from './events.ts';

/** Why a cancel changed nothing, in the 409's details.reason. */
export type CancelRefusal =
  | 'CONNECTOR_CANNOT_CANCEL'
  | 'CONNECTOR_NOT_CONFIGURED'
  | 'CONNECTOR_BUSY'
  | 'RAIL_REFUSED_CANCEL'
  | 'CANCEL_OUTCOME_UNKNOWN'
  | 'NO_LONGER_PROCESSING';

export function notCancellable(id: string, connector: string, reason: CancelRefusal, message: string): AppError {
  return new AppError('TRANSACTION_NOT_CANCELLABLE', `Transaction ${id} was not cancelled: ${message}`, {
    reason,
    connector,
  });
}

/** Keeps why the cancel's outcome is unknown on the rail row, where the attention list shows errors. */
async function keepError(ctx: Ctx, id: string, why: string): Promise<void> {
  await ctx.store.db
    .updateTable('rail_payments')
    .set({ last_error: why.slice(0, 500), updated_at: BigInt(wallNowMs(ctx)) })
    .where('transaction_id', '=', id)
    .execute();
}

/**
 * Asks the payment's connector to cancel it and takes the answer. Returns when the payment is FAILED and
 * refunded as `failure` says; raises TRANSACTION_NOT_CANCELLABLE (409) naming why otherwise.
 */
export async function cancelAtRail(deps: CallDeps, scope: Scope, id: string, failure: Failure): Promise<void> {
  const { ctx } = deps;
  const h = await handed(ctx, scope, id);
  const name = h?.rail.connector ?? 'unknown';
  if (!h || h.payment.status !== 'PROCESSING' || h.rail.state === 'DONE')
    throw notCancellable(id, name, 'NO_LONGER_PROCESSING', `it is ${h?.payment.status ?? 'not with a connector'}`);
  const connector = deps.connectors.get(name);
  if (!connector)
    throw notCancellable(id, name, 'CONNECTOR_NOT_CONFIGURED', `its connector ${name} is not configured here`);
  if (!connector.capabilities.cancel)
    throw notCancellable(id, name, 'CONNECTOR_CANNOT_CANCEL', `its connector ${name} cannot cancel a payment`);
  const bound = deps.bounds.get(name);
  const timeoutMs = ctx.config.connectors.byName[name]?.timeoutMs ?? 10_000;
  if (bound && !(await bound.take(timeoutMs)))
    throw notCancellable(id, name, 'CONNECTOR_BUSY', `its connector ${name} is busy; nothing was sent, try again`);
  let answer: RailAnswer;
  try {
    answer = await timed(deps, name, 'cancel', () =>
      connector.cancel(h.instruction, h.rail.rail_reference ?? undefined),
    );
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    if (err instanceof CancelRefused) throw notCancellable(id, name, 'RAIL_REFUSED_CANCEL', why);
    await keepError(ctx, id, `cancel: ${why}`);
    throw notCancellable(
      id,
      name,
      'CANCEL_OUTCOME_UNKNOWN',
      `the outcome of the cancel at ${name} is unknown (${why}); the payment stays PROCESSING until its rail ` +
        'answers or an operator settles or fails it',
    );
  } finally {
    bound?.give();
  }
  const event = {
    messageId: `cancel:${id}:${answer.status}`,
    transactionId: id,
    railReference: answer.railReference,
    status: answer.status,
    occurredAtMs: wallNowMs(ctx),
  };
  if (answer.status === 'PENDING')
    throw notCancellable(id, name, 'RAIL_REFUSED_CANCEL', `${name} answered that the payment is still PENDING`);
  // The rail's answer is news either way: a payment it settled completes, even though it was not cancelled.
  const taken = await takeRailEvent(ctx, name, { ...event, reason: failure.reason }, failure);
  deps.metrics.event(name, answer.status, taken.result);
  if (answer.status === 'COMPLETED')
    throw notCancellable(id, name, 'RAIL_REFUSED_CANCEL', `${name} answered that the payment settled`);
}
