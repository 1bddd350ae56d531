import type { Environment } from '../domain/environments.ts';
import { AppError } from '../domain/errors.ts';
import type { FailureReason } from '../domain/failure-reasons.ts';
import { MANUAL_CONNECTOR } from '../domain/connector-routes.ts';
import type { Outcome } from '../rails/sandbox-outcomes.ts';
import { wallNowMs, type Ctx } from '../context.ts';
import { connectorNameOf } from './connectors/registry.ts';
import { RAIL_FAILURE, type TransactionService } from './transactions/index.ts';

/**
 * The production connector's operator step at scale: settle or fail many transactions at once, as the
 * rail reported them. One transaction per payment, so one refusal never holds back the others; every
 * payment gets a line in the report, in a dry run too.
 */

export type SettlementAction = 'settle' | 'fail';

/** Which payments: the ones named, or every one the production connector holds that matches the filter. */
export type Selection =
  | { ids: string[] }
  | {
      /** Only payments PROCESSING for at least this long (by their last change). */
      olderThanMs?: number | undefined;
      platformId?: string | undefined;
      /** Production unless given: sandbox payments are resolved by the sandbox's own outcomes. */
      environment?: Environment | undefined;
      /** At most this many are touched in one run. */
      limit: number;
    };

export interface SettlementRequest {
  action: SettlementAction;
  /** For `fail`: a public failure reason (COUNTERPARTY_POST_TX_FAILED when not given). */
  reason?: FailureReason | undefined;
  dryRun: boolean;
  selection: Selection;
}

/** One payment's line of the report. */
export interface SettlementLine {
  id: string;
  /** What happened, or in a dry run what would. */
  result: 'COMPLETED' | 'FAILED' | 'WOULD_COMPLETE' | 'WOULD_FAIL' | 'REFUSED';
  /** The payment's status after this run (before it, in a dry run). */
  status?: string;
  failureReason?: string;
  error?: { code: string; message: string };
}

/** Rows read per query while selecting by filter. */
const SELECT_PAGE = 500;

/** The ids a filter selects: PROCESSING, held by the connector (MANUAL outcome), old enough, oldest first. */
async function selectHeld(ctx: Ctx, selection: Exclude<Selection, { ids: string[] }>): Promise<string[]> {
  const ids: string[] = [];
  const cutoff = BigInt(wallNowMs(ctx) - (selection.olderThanMs ?? 0));
  let after = '';
  while (ids.length < selection.limit) {
    let q = ctx.store.db
      .selectFrom('transactions')
      .select(['id', 'outcome'])
      .where('status', '=', 'PROCESSING')
      .where('environment', '=', selection.environment ?? 'production')
      .where('updated_at', '<=', cutoff)
      .where('id', '>', after)
      .orderBy('id')
      .limit(SELECT_PAGE);
    if (selection.platformId) q = q.where('platform_id', '=', selection.platformId);
    const rows = await q.execute();
    for (const row of rows) {
      const connector = connectorNameOf(JSON.parse(row.outcome) as Outcome);
      if (connector === MANUAL_CONNECTOR && ids.length < selection.limit) ids.push(row.id);
    }
    const last = rows.at(-1);
    if (!last || rows.length < SELECT_PAGE) break;
    after = last.id;
  }
  return ids;
}

/** What a dry run says of one payment: what would happen, or why it would be refused. */
async function preview(ctx: Ctx, id: string, action: SettlementAction): Promise<SettlementLine> {
  const row = await ctx.store.db.selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirst();
  if (!row) return { id, result: 'REFUSED', error: { code: 'TRANSACTION_NOT_FOUND', message: `${id} not found` } };
  if (row.status !== 'PROCESSING') {
    const message = `Transaction ${id} is ${row.status}; only PROCESSING transactions can be settled or failed`;
    return { id, result: 'REFUSED', status: row.status, error: { code: 'CONFLICT', message } };
  }
  return { id, result: action === 'settle' ? 'WOULD_COMPLETE' : 'WOULD_FAIL', status: row.status };
}

async function resolve(transactions: TransactionService, id: string, request: SettlementRequest) {
  try {
    const failure = { ...RAIL_FAILURE, reason: request.reason ?? RAIL_FAILURE.reason };
    const tx = await transactions.resolveManually(id, request.action === 'settle' ? 'COMPLETE' : 'FAIL', failure);
    const line: SettlementLine = { id, result: tx.status === 'COMPLETED' ? 'COMPLETED' : 'FAILED', status: tx.status };
    if (tx.failureReason) line.failureReason = tx.failureReason;
    return line;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const line: SettlementLine = { id, result: 'REFUSED', error: { code: err.code, message: err.message } };
    return line;
  }
}

/** Runs the request and yields one line per selected payment, as each is done. */
export async function* settleMany(
  ctx: Ctx,
  transactions: TransactionService,
  request: SettlementRequest,
): AsyncGenerator<SettlementLine> {
  if (request.action === 'settle' && request.reason !== undefined)
    throw new AppError('INVALID_INPUT', 'reason goes with fail, not settle', {
      field: 'reason',
      rule: 'notApplicable',
    });
  const ids =
    'ids' in request.selection ? [...new Set(request.selection.ids)] : await selectHeld(ctx, request.selection);
  for (const id of ids) {
    yield request.dryRun ? await preview(ctx, id, request.action) : await resolve(transactions, id, request);
  }
}

/** The report's totals: how many payments ended in each result. */
export function summarize(lines: SettlementLine[]): Record<SettlementLine['result'], number> {
  const totals = { COMPLETED: 0, FAILED: 0, WOULD_COMPLETE: 0, WOULD_FAIL: 0, REFUSED: 0 };
  for (const line of lines) totals[line.result]++;
  return totals;
}
