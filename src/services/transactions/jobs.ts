// The rail steps that run later, as jobs: processing a funded payment, a delayed outcome, a bank return.
// Each handler re-reads the payment under lock and leaves it alone if another step already moved it.
import type { JobWorker } from '../../jobs/worker.ts';
import type { Tx } from '../../store/db.ts';
import type { Ctx } from '../../context.ts';
import { complete, fail, process, RAIL_FAILURE, returnPayment } from './lifecycle.ts';
import { loadForUpdate, lockTogether } from './queries.ts';

export function registerTransactionJobs(ctx: Ctx, worker: JobWorker): void {
  // A group of steps locks its payments in one statement instead of one each.
  const together = (trx: Tx, steps: { id: string }[]) =>
    lockTogether(
      trx,
      steps.map((s) => s.id),
    );
  worker.registerInTransaction(
    'transaction.process',
    async (trx, { id }, _job, scope) => {
      const payment = await loadForUpdate(trx, scope, id);
      if (payment) await process(ctx, trx, scope, payment);
    },
    together,
  );
  worker.registerInTransaction(
    'transaction.finish',
    async (trx, step, _job, scope) => {
      const payment = await loadForUpdate(trx, scope, step.id);
      if (!payment || payment.status !== 'PROCESSING') return;
      if (step.result === 'COMPLETE') await complete(ctx, trx, scope, payment);
      else
        await fail(ctx, trx, scope, payment, {
          reason: step.reason ?? RAIL_FAILURE.reason,
          refund: 'COMPLETED',
          refundReason: step.refundReason ?? RAIL_FAILURE.refundReason,
        });
    },
    together,
  );
  worker.registerInTransaction(
    'transaction.return',
    async (trx, step, _job, scope) => {
      const payment = await loadForUpdate(trx, scope, step.id);
      if (payment) await returnPayment(ctx, trx, scope, payment, step.reason);
    },
    together,
  );
}
