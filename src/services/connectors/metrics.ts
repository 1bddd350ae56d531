// Per-connector figures for an operator's dashboards: calls and their latency, events by what they did,
// and (read from the database at scrape time, since every process shares it) the payments waiting.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Store } from '../../store/db.ts';

export interface ConnectorMetrics {
  call(connector: string, call: string, outcome: 'answered' | 'refused' | 'unknown', ms: number): void;
  event(connector: string, status: string, result: string): void;
}

export function makeConnectorMetrics(store: Store, registry: Registry): ConnectorMetrics {
  const calls = new Counter({
    name: 'payouts_connector_calls_total',
    help: 'Calls to rail connectors by connector, call (submit, poll, cancel) and outcome (answered, refused, unknown)',
    labelNames: ['connector', 'call', 'outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'payouts_connector_call_duration_seconds',
    help: 'Time a rail connector took to answer a call, by connector and call',
    labelNames: ['connector', 'call'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const events = new Counter({
    name: 'payouts_connector_events_total',
    help: 'Rail events taken, by connector, status (COMPLETED, FAILED, RETURNED, PENDING) and result',
    labelNames: ['connector', 'status', 'result'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'payouts_connector_payments',
    help: 'Payments handed to a connector and not yet final, by connector and whether they need attention',
    labelNames: ['connector', 'attention'] as const,
    registers: [registry],
    async collect() {
      const rows = await store.db
        .selectFrom('rail_payments')
        .innerJoin('transactions', 'transactions.id', 'rail_payments.transaction_id')
        .where('transactions.status', '=', 'PROCESSING')
        .select([
          'connector',
          (eb) => eb.fn.count<bigint | number>('attention').as('waiting'),
          (eb) => eb.fn.countAll<bigint | number>().as('n'),
        ])
        .where('state', '!=', 'DONE')
        .groupBy('connector')
        .execute();
      this.reset();
      for (const row of rows) {
        const waiting = Number(BigInt(row.waiting));
        this.set({ connector: row.connector, attention: 'true' }, waiting);
        this.set({ connector: row.connector, attention: 'false' }, Number(BigInt(row.n)) - waiting);
      }
    },
  });
  return {
    call(connector, call, outcome, ms) {
      calls.inc({ connector, call, outcome });
      latency.observe({ connector, call }, ms / 1000);
    },
    event(connector, status, result) {
      events.inc({ connector, status, result });
    },
  };
}
