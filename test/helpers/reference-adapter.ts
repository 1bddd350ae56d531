// The reference HTTP adapter (examples/http-adapter/server.mjs) as the tests run it: a real process on its
// own port, its settings in its environment, ready once its health check answers.
import { fileURLToPath } from 'node:url';
import { spawnDaemon, type Daemon } from './processes.ts';

export const REFERENCE_ADAPTER = fileURLToPath(new URL('../../examples/http-adapter/server.mjs', import.meta.url));

export interface AdapterSettings {
  port: number;
  /** The connector's secret (whsec_…), shared with the service. */
  secret: string;
  /** Where its callbacks go. */
  serviceUrl: string;
  /** The connector's name at the service (default acme). */
  name?: string;
  /** Where it keeps its payouts across restarts; none: in memory. */
  stateFile?: string;
  /** How long after taking a payout it settles it (default 100 ms). */
  settleAfterMs?: number;
  /** How long it holds each POST /payouts answer. */
  delayAnswerMs?: number;
}

/** Starts the adapter with these settings, as its environment variables. */
export function spawnReferenceAdapter(settings: AdapterSettings): Promise<Daemon> {
  const env: Record<string, string> = {
    PORT: String(settings.port),
    CONNECTOR_SECRET: settings.secret,
    SERVICE_URL: settings.serviceUrl,
    CONNECTOR_NAME: settings.name ?? 'acme',
    SETTLE_AFTER_MS: String(settings.settleAfterMs ?? 100),
    ...(settings.stateFile === undefined ? {} : { STATE_FILE: settings.stateFile }),
    ...(settings.delayAnswerMs === undefined ? {} : { DELAY_ANSWER_MS: String(settings.delayAnswerMs) }),
  };
  return spawnDaemon(
    'env',
    [...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, REFERENCE_ADAPTER],
    async () => (await fetch(`http://127.0.0.1:${settings.port}/healthz`).catch(() => undefined))?.status === 200,
    'the reference adapter',
  );
}
