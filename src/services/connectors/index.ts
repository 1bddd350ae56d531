// The rail connectors of this process: the HTTP ones CONNECTORS_FILE names, their jobs, the callbacks they
// send, and what an operator reads of them (the attention list, recent rail events, reachability).
import type { Registry } from 'prom-client';
import { AppError, notFound } from '../../domain/errors.ts';
import type { JobWorker } from '../../jobs/worker.ts';
import { CallbackRefused, type InboundCallback, type RailConnector } from '../../rails/connector.ts';
import { makeHttpConnector } from '../../rails/http/connector.ts';
import type { RailEventsTable, RailPaymentsTable } from '../../store/schema.ts';
import { type Ctx, wallNowMs } from '../../context.ts';
import { pollJob, submitJob, type CallDeps } from './calls.ts';
import { takeRailEvent, type TakenEvent } from './events.ts';
import { makeConnectorMetrics } from './metrics.ts';

export interface ConnectorHealth {
  name: string;
  type: 'http';
  url: string;
  reachable: boolean;
  /** Why it is not, when it is not. */
  error?: string;
}

export interface ConnectorService {
  /** The connectors CONNECTORS_FILE names (the built-in `manual` and `sandbox` are not listed). */
  names(): string[];
  /**
   * Verifies and takes a connector's callback. Raises REFERENCE_NOT_FOUND (no such connector),
   * UNAUTHORIZED (unsigned, forged or stale) and INVALID_INPUT (not the protocol's shape).
   */
  receiveCallback(name: string, callback: InboundCallback): Promise<TakenEvent>;
  /** Payments handed to a connector that wait for an answer or a person, oldest first. */
  attention(limit: number): Promise<RailPaymentsTable[]>;
  /** The latest rail events, newest first, applied or not. */
  recentEvents(limit: number): Promise<RailEventsTable[]>;
  /** Whether each connector answers its health check (GET {url}/healthz). */
  check(): Promise<ConnectorHealth[]>;
}

export function makeConnectorService(ctx: Ctx, worker: JobWorker, registry: Registry): ConnectorService {
  const configured = ctx.config.connectors.byName;
  const connectors = new Map<string, RailConnector>(
    Object.values(configured).map((c) => [c.name, makeHttpConnector(c, () => wallNowMs(ctx))]),
  );
  const metrics = makeConnectorMetrics(ctx.store, registry);
  const deps: CallDeps = {
    ctx,
    connectors,
    metrics,
    pollIntervalMs: (name) => configured[name]?.pollIntervalMs ?? 60_000,
  };
  worker.register('connector.submit', ({ id }, _job, scope) => submitJob(deps, id, scope));
  worker.register('connector.poll', ({ id }, _job, scope) => pollJob(deps, id, scope));
  return {
    names: () => [...connectors.keys()],
    async receiveCallback(name, callback) {
      const connector = connectors.get(name);
      if (!connector?.capabilities.callbacks) throw notFound('Connector', name, 'REFERENCE_NOT_FOUND');
      let events;
      try {
        events = connector.verifyCallback(callback, wallNowMs(ctx));
      } catch (err) {
        if (!(err instanceof CallbackRefused)) throw err;
        if (err.status === 401) throw new AppError('UNAUTHORIZED', `Callback refused: ${err.message}`);
        throw new AppError('INVALID_INPUT', `Callback refused: ${err.message}`, {
          field: 'body',
          rule: 'connectorEvent',
        });
      }
      let taken: TakenEvent = { result: 'NO_CHANGE' };
      for (const event of events) {
        taken = await takeRailEvent(ctx, name, event);
        metrics.event(name, event.status, taken.result);
      }
      return taken;
    },
    attention: (limit) =>
      ctx.store.db
        .selectFrom('rail_payments')
        // Still waiting: one an operator settled or failed meanwhile has left the list. PENDING: a bank-file
        // connector's payment whose file its schema refused (services/bank/export.ts).
        .innerJoin('transactions', 'transactions.id', 'rail_payments.transaction_id')
        .selectAll('rail_payments')
        .where('transactions.status', 'in', ['PENDING', 'PROCESSING'])
        .where('attention', 'is not', null)
        .where('state', '!=', 'DONE')
        .orderBy('attention_since')
        .limit(limit)
        .execute(),
    recentEvents: (limit) =>
      ctx.store.db.selectFrom('rail_events').selectAll().orderBy('received_at', 'desc').limit(limit).execute(),
    async check() {
      return Promise.all(
        Object.values(configured).map(async (c): Promise<ConnectorHealth> => {
          try {
            const res = await fetch(`${c.url}/healthz`, { signal: AbortSignal.timeout(c.timeoutMs) });
            await res.body?.cancel();
            return res.ok
              ? { name: c.name, type: 'http', url: c.url, reachable: true }
              : { name: c.name, type: 'http', url: c.url, reachable: false, error: `answered ${res.status}` };
          } catch (err) {
            const error = err instanceof Error ? err.message : String(err);
            return { name: c.name, type: 'http', url: c.url, reachable: false, error };
          }
        }),
      );
    },
  };
}
