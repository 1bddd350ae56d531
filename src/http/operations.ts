// The endpoints an operator's tooling calls, outside the API and without credentials: /metrics (with the
// per-request counters it reports), /healthz (process up, and which build) and /readyz (database reachable).
import type { Metrics } from '../metrics.ts';
import { VERSION } from '../version.ts';
import type { Http } from './http.ts';

const open = { config: { public: true }, schema: { hide: true } };

/**
 * How long /readyz waits for the database. A probe must answer promptly whatever the database does: a
 * connection attempt that hangs (a host gone from the network) reads as not ready, not as a hung probe.
 */
const READY_TIMEOUT_MS = 2_000;

/** Resolves as `check` does, or rejects once `ms` have passed. */
async function within(ms: number, check: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([check(), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerOperations(app: Http, metrics: Metrics, ready: () => Promise<void>): void {
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: ids in paths would make a label per request.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    if (reply.getHeader('idempotent-replayed') === 'true') metrics.idempotentReplays.inc({ route });
  });
  app.get('/metrics', open, async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  app.get('/healthz', open, async () => ({ status: 'ok', version: VERSION }));
  app.get('/readyz', open, async (_req, reply) => {
    try {
      await within(READY_TIMEOUT_MS, ready);
      return { status: 'ready' };
    } catch {
      return reply.status(503).send({ status: 503, code: 'SERVICE_UNAVAILABLE', message: 'database unreachable' });
    }
  });
}
