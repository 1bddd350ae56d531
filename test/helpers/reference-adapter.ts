// The reference HTTP adapter (examples/http-adapter/server.mjs) as the tests run it: a real process on its
// own port, its settings in its environment, ready once its health check answers.
import { fileURLToPath } from 'node:url';
import { spawnDaemon, type Daemon } from './processes.ts';

export const REFERENCE_ADAPTER = fileURLToPath(new URL('../../examples/http-adapter/server.mjs', import.meta.url));

/** Starts the adapter on `port` with these variables (CONNECTOR_SECRET, SERVICE_URL, STATE_FILE …). */
export function spawnReferenceAdapter(port: number, vars: Record<string, string>): Promise<Daemon> {
  const env = { ...vars, PORT: String(port) };
  return spawnDaemon(
    'env',
    [...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, REFERENCE_ADAPTER],
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200,
    'the reference adapter',
  );
}
