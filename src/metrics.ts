import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { sql } from 'kysely';
import type { Store } from './store/db.ts';
import { VERSION } from './version.ts';
import { systemClock } from './domain/clock.ts';

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
    idempotentReplays: new Counter({
      name: 'payouts_idempotent_replays_total',
      help: 'Answers this process replayed for a repeated Idempotency-Key (Idempotent-Replayed: true), by route',
      labelNames: ['route'] as const,
      registers: [registry],
    }),
    contractMismatches: new Counter({
      name: 'payouts_contract_mismatches_total',
      help:
        'Answers and webhooks found not to match the OpenAPI document (SANDBOX_CONTRACT_CHECK=true), one per ' +
        'difference, by kind (response, webhook) and operation',
      labelNames: ['kind', 'operation'] as const,
      registers: [registry],
    }),
  };
  new Gauge({
    name: 'payouts_build_info',
    help: 'Always 1; the version label is the running build (package.json)',
    labelNames: ['version'] as const,
    registers: [registry],
  }).set({ version: VERSION }, 1);
  businessMetrics(store, registry);
  new Gauge({
    name: 'payouts_jobs_waiting',
    help:
      'Jobs in the queue (all processes), by status; pending ones include those not yet due, ' +
      'failed ones are kept FAILED_JOB_TTL_HOURS',
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

/** A sum or count as a number: SQLite gives bigint, PostgreSQL gives numeric sums as text. */
const num = (value: bigint | number | string | null | undefined): number => Number(value ?? 0);

/** A webhook URL as a label: scheme, host and path, never its query or user info (they can hold secrets). */
function endpointLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return 'invalid';
  }
}

/**
 * What an operator watches besides the process: money on its way out, how long the oldest payment has
 * waited, failing webhook receivers. Read from the database at scrape time, so every process reports the
 * whole installation; each query reads one small partial index (migration 012_operator_metrics).
 */
function businessMetrics(store: Store, registry: Registry): void {
  const readUnsettled = () =>
    store.db
      .selectFrom('transactions')
      .select([
        'environment',
        'sent_currency',
        (eb) => eb.fn.sum<bigint>('sent_amount').as('amount'),
        (eb) => eb.fn.min<bigint>('created_at').as('oldest'),
      ])
      // Literals, not parameters: only a predicate the planner can compare with the index's own lets either
      // engine use a partial index.
      .where(sql<boolean>`type = 'OUTGOING' and status in ('PENDING', 'PROCESSING')`)
      .groupBy(['environment', 'sent_currency'])
      .execute();
  // Two gauges read the same rows: one query per scrape serves both.
  let reading: ReturnType<typeof readUnsettled> | undefined;
  const forget = () => void (reading = undefined);
  const unsettled = () => (reading ??= readUnsettled().finally(forget));
  new Gauge({
    name: 'payouts_money_in_flight',
    help: 'Outgoing payments not yet settled (PENDING, PROCESSING): sum in minor units, by environment and currency',
    labelNames: ['environment', 'currency'] as const,
    registers: [registry],
    async collect() {
      const rows = await unsettled();
      this.reset();
      for (const r of rows) this.set({ environment: r.environment, currency: r.sent_currency }, num(r.amount));
    },
  });
  new Gauge({
    name: 'payouts_oldest_unsettled_payment_age_seconds',
    help: 'Age of the oldest outgoing payment still PENDING or PROCESSING, by environment (0 when there is none)',
    labelNames: ['environment'] as const,
    registers: [registry],
    async collect() {
      const rows = await unsettled();
      this.reset();
      const oldest = new Map<string, number>([
        ['sandbox', Number.POSITIVE_INFINITY],
        ['production', Number.POSITIVE_INFINITY],
      ]);
      for (const r of rows) oldest.set(r.environment, Math.min(oldest.get(r.environment) ?? Infinity, num(r.oldest)));
      // A sandbox clock moved forward dates payments in the future of the wall clock: that is no age.
      const now = systemClock.nowMs();
      for (const [environment, createdAt] of oldest) {
        this.set({ environment }, Number.isFinite(createdAt) ? Math.max(0, (now - createdAt) / 1000) : 0);
      }
    },
  });
  new Counter({
    name: 'payouts_webhook_delivery_failures_total',
    help: 'Webhook delivery attempts that got no 2xx answer (error, time-out or status), by endpoint',
    labelNames: ['endpoint'] as const,
    registers: [registry],
    async collect() {
      const rows = await store.db
        .selectFrom('webhook_attempts')
        .select(['url', (eb) => eb.fn.countAll().as('n')])
        .where(sql<boolean>`status_code is null or status_code < 200 or status_code > 299`)
        .groupBy('url')
        .execute();
      const byEndpoint = new Map<string, number>();
      for (const r of rows)
        byEndpoint.set(endpointLabel(r.url), (byEndpoint.get(endpointLabel(r.url)) ?? 0) + num(r.n));
      this.reset();
      for (const [endpoint, n] of byEndpoint) this.inc({ endpoint }, n);
    },
  });
}
