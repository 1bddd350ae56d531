// The start of a server, apart from the `serve` command's entry so that the command table (and every
// command's --help) does not load the app (test/foundation/cli-start.test.ts).
import { createApp, type App } from '../app.ts';
import type { Config } from '../config.ts';
import { databaseAdvice } from '../store/database-advice.ts';
import { firstStart, presetStart, type Terminal } from './first-start.ts';

/** The address the server listens on, as a URL a client on this machine can use. */
export function listeningUrl(app: App): string {
  const address = app.http.server.address();
  if (!address || typeof address === 'string') throw new Error('the server is not listening on a TCP port');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
}

/**
 * The start of a server, shared by `payouts serve` and the test API's in-process mode: wire the app, say what
 * the database's settings call for, give the preset credentials, listen, then make the `default` platform of
 * a first start. Closes what it opened on failure.
 */
export async function serveApp(config: Config, terminal: Terminal): Promise<App> {
  const app = await createApp(config);
  // Advice only, and before the port opens: a server that cannot read its database's settings still serves.
  const advice = await databaseAdvice(app.store).catch(() => []);
  for (const line of advice) app.http.log.warn({ engine: app.store.engine }, line);
  try {
    // Preset credentials lose nothing when the start fails, and must work from the first request.
    await presetStart(app, config, terminal);
    await app.http.listen({ port: config.port, host: config.host });
  } catch (err) {
    // Nothing was served and nothing was created: close what was opened, so the process can exit.
    await app.close();
    throw err;
  }
  // PORT=0 picks the port only now: links the service hands out (invitations) must name the port it got.
  if (config.port === 0 && config.publicUrl.endsWith(':0')) config.publicUrl = listeningUrl(app);
  // Only once the port is ours, so a start that cannot serve never makes (and loses) credentials.
  await firstStart(app, config, terminal);
  return app;
}
