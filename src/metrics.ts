import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Store } from './store/db.ts';

/**
 * Prometheus metrics of one app instance (its own registry, so several apps in one process — tests —
 * do not mix their counts). Served at GET /metrics.
 */
export function makeMetrics(store: Store) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'payouts_' });
  const metrics = {
    registry,
    httpRequests: new Counter({
      name: 'payouts_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'payouts_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route pattern and method',
      labelNames: ['method', 'route'] as const,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    jobs: new Counter({
      name: 'payouts_jobs_total',
      help: 'Jobs run by this process, by kind and outcome (done, deferred, retry, failed)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
  };
  new Gauge({
    name: 'payouts_jobs_waiting',
    help: 'Jobs in the queue (all processes), by status; pending ones include those not yet due',
    labelNames: ['status'] as const,
    registers: [registry],
    // Read at scrape time: the queue is shared by every process, so only the database knows it.
    async collect() {
      const rows = await store.db
        .selectFrom('jobs')
        .select(['status', (eb) => eb.fn.countAll().as('n')])
        .where('status', 'in', ['pending', 'running', 'failed'])
        .groupBy('status')
        .execute();
      this.reset();
      for (const r of rows) this.set({ status: r.status }, Number(r.n));
    },
  });
  return metrics;
}

export type Metrics = ReturnType<typeof makeMetrics>;
