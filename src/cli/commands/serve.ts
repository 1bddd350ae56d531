import { createApp, type App } from '../../app.ts';
import type { Config } from '../../config.ts';
import { API_VERSION } from '../../http/http.ts';
import type { CliCommand } from '../command.ts';
import { firstStart, presetStart, type Terminal } from '../first-start.ts';
import { boundHeapGrowth } from '../heap-growth.ts';

/** What `payouts serve` tells a parent that started it with an IPC channel (the test API's child-process mode). */
export interface ServeReady {
  event: 'payouts:listening';
  /** http://HOST:PORT, with the port actually bound (PORT=0 picks one). */
  url: string;
}

/** The address the server listens on, as a URL a client on this machine can use. */
export function listeningUrl(app: App): string {
  const address = app.http.server.address();
  if (!address || typeof address === 'string') throw new Error('the server is not listening on a TCP port');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
}

/**
 * The start of a server, shared by `payouts serve` and the test API's in-process mode: wire the app, give the
 * preset credentials, listen, then make the `default` platform of a first start. Closes what it opened on failure.
 */
export async function serveApp(config: Config, terminal: Terminal): Promise<App> {
  const app = await createApp(config);
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

export const serveCommand: CliCommand = {
  path: ['serve'],
  summary: 'start the HTTP server (PORT, HOST, DATA_DIR, DATABASE_URL); SIGTERM/SIGINT stop it gracefully',
  database: 'creates',
  writes: false,
  async run({ config }) {
    boundHeapGrowth();
    const terminal = { isTTY: process.stdout.isTTY, write: (text: string) => process.stdout.write(text) };
    const app = await serveApp(config, terminal);
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      app.http.log.info({ signal }, 'shutting down');
      // Stop accepting, let requests in flight finish, stop workers, then close the database.
      await app.close();
      process.exit(0);
    };
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
    if (process.send) {
      // A parent that started us with an IPC channel learns the bound port (PORT=0), and when it goes away
      // (even killed), so do we: a test run that crashed leaves no sandbox behind.
      process.on('disconnect', () => void stop('disconnect'));
      process.send({ event: 'payouts:listening', url: listeningUrl(app) } satisfies ServeReady);
    }
    app.http.log.info({ engine: app.store.engine, api: `/${API_VERSION}` }, 'payouts service ready');
    return undefined;
  },
};
