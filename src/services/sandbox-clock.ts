import { AppError } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import type { JobWorker } from '../jobs/worker.ts';
import type { Tx } from '../store/db.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import { loadScope } from '../platforms.ts';
import { bindDeps } from './bind.ts';

/** Longest single step, so a typo cannot throw a sandbox years ahead. */
export const MAX_ADVANCE_MS = 30 * 24 * 3600_000;

export interface SandboxClock {
  now: string;
  offsetMs: number;
}

/**
 * Moves a platform's sandbox clock forward in the caller's transaction: the offset grows and that platform's
 * pending jobs fall due earlier by the same amount. Running what became due is the caller's business.
 */
export async function moveSandboxClock(trx: Tx, scope: Scope, byMs: number): Promise<void> {
  await trx
    .updateTable('platform_configs')
    .set((eb) => ({ clock_offset_ms: eb('clock_offset_ms', '+', BigInt(byMs)) }))
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', 'sandbox')
    .execute();
  await trx
    .updateTable('jobs')
    .set((eb) => ({ run_at: eb('run_at', '-', BigInt(byMs)) }))
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', 'sandbox')
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Each platform's sandbox has its own clock: real time plus an offset. Advancing it adds to the offset
 * and pulls that platform's pending jobs earlier by the same amount, then runs whatever became due, so
 * the 30-second and 6-minute outcomes, quote expiry and webhook retries happen before the call returns.
 */
export interface SandboxClockService {
  /** The scope's clock as it reads now, and its offset from real time. */
  get(scope: Scope): Promise<SandboxClock>;
  /** Moves the sandbox clock forward and runs what fell due. Raises FORBIDDEN (production), INVALID_INPUT. */
  advance(scope: Scope, byMs: number): Promise<SandboxClock>;
  /** Runs the sandbox's jobs that are due now, as advance does once the clock has moved. */
  runDue(scope: Scope): Promise<void>;
}

interface SandboxClockDeps {
  ctx: Ctx;
  worker: JobWorker;
}

async function get(deps: SandboxClockDeps, scope: Scope): Promise<SandboxClock> {
  const { ctx } = deps;
  const fresh = await loadScope(ctx, scope.platformId, scope.environment);
  return { now: iso(scopeNowMs(ctx, fresh)), offsetMs: fresh.clockOffsetMs ?? 0 };
}

async function advance(deps: SandboxClockDeps, scope: Scope, byMs: number): Promise<SandboxClock> {
  const { ctx } = deps;
  if (scope.environment !== 'sandbox') throw new AppError('FORBIDDEN', 'Only the sandbox clock can be moved');
  if (!Number.isSafeInteger(byMs) || byMs <= 0 || byMs > MAX_ADVANCE_MS) {
    throw new AppError('INVALID_INPUT', `advance by 1 ms to ${MAX_ADVANCE_MS} ms at a time`, {
      field: 'milliseconds',
    });
  }
  await ctx.store.tx((trx) => moveSandboxClock(trx, scope, byMs));
  await runDue(deps, scope);
  return get(deps, scope);
}

async function runDue(deps: SandboxClockDeps, scope: Scope): Promise<void> {
  await deps.worker.drain({ platformId: scope.platformId, environment: 'sandbox' });
}

export function makeSandboxClockService(ctx: Ctx, worker: JobWorker): SandboxClockService {
  const deps: SandboxClockDeps = { ctx, worker };
  return { get: bindDeps(deps, get), advance: bindDeps(deps, advance), runDue: bindDeps(deps, runDue) };
}
