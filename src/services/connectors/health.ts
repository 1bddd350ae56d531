// Whether each connector answers its health check (GET {url}/healthz): what `payouts connectors check` and the
// dashboard's Connectors screen say. A connector that does not answer in time is not reachable.
import type { LoadedConnector } from '../../config.ts';

export interface ConnectorHealth {
  name: string;
  type: 'http';
  url: string;
  reachable: boolean;
  /** Why it is not, when it is not. */
  error?: string;
}

/** Each connector's check, waiting at most its time-out, or `waitMs` when that is shorter. */
export function checkHealth(connectors: readonly LoadedConnector[], waitMs?: number): Promise<ConnectorHealth[]> {
  return Promise.all(
    connectors.map(async (c): Promise<ConnectorHealth> => {
      const wait = Math.min(c.timeoutMs, waitMs ?? c.timeoutMs);
      try {
        const res = await fetch(`${c.url}/healthz`, { signal: AbortSignal.timeout(wait) });
        await res.body?.cancel();
        return res.ok
          ? { name: c.name, type: 'http', url: c.url, reachable: true }
          : { name: c.name, type: 'http', url: c.url, reachable: false, error: `answered ${res.status}` };
      } catch (err) {
        const late = err instanceof Error && err.name === 'TimeoutError';
        const error = late ? `no answer within ${wait} ms` : err instanceof Error ? err.message : String(err);
        return { name: c.name, type: 'http', url: c.url, reachable: false, error };
      }
    }),
  );
}
