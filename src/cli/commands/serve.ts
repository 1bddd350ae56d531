import { API_VERSION } from '../../http/http.ts';
import type { CliCommand } from '../command.ts';
import { boundHeapGrowth } from '../heap-growth.ts';

/** What `payouts serve` tells a parent that started it with an IPC channel (the test API's child-process mode). */
export interface ServeReady {
  event: 'payouts:listening';
  /** http://HOST:PORT, with the port actually bound (PORT=0 picks one). */
  url: string;
}

export const serveCommand: CliCommand = {
  path: ['serve'],
  summary: 'start the HTTP server (--port or PORT, --host or HOST, DATA_DIR, DATABASE_URL); SIGTERM/SIGINT stop it',
  options: [
    {
      flags: '--port <port>',
      description: 'the port to listen on, 0 for a free one (default PORT, else 8080)',
      variable: 'PORT',
    },
    {
      flags: '--host <host>',
      description: 'the interface to listen on (default HOST, else 127.0.0.1; 0.0.0.0 with DATABASE_URL)',
      variable: 'HOST',
    },
  ],
  database: 'creates',
  writes: false,
  async run({ config }) {
    boundHeapGrowth();
    const terminal = { isTTY: process.stdout.isTTY, write: (text: string) => process.stdout.write(text) };
    const { listeningUrl, serveApp } = await import('../serve-app.ts');
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
