import { createApp } from '../../app.ts';
import { API_VERSION } from '../../http/http.ts';
import type { CliCommand } from '../command.ts';
import { firstStart, presetStart } from '../first-start.ts';

export const serveCommand: CliCommand = {
  path: ['serve'],
  summary: 'start the HTTP server (PORT, HOST, DATA_DIR, DATABASE_URL); SIGTERM/SIGINT stop it gracefully',
  database: 'creates',
  writes: false,
  async run({ config }) {
    const app = await createApp(config);
    const terminal = { isTTY: process.stdout.isTTY, write: (text: string) => process.stdout.write(text) };
    try {
      // Preset credentials lose nothing when the start fails, and must work from the first request.
      await presetStart(app, config, terminal);
      await app.http.listen({ port: config.port, host: config.host });
    } catch (err) {
      // Nothing was served and nothing was created: close what was opened, so the process can exit.
      await app.close();
      throw err;
    }
    // Only once the port is ours, so a start that cannot serve never makes (and loses) credentials.
    await firstStart(app, config, terminal);
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
    app.http.log.info({ engine: app.store.engine, api: `/${API_VERSION}` }, 'payouts service ready');
    return undefined;
  },
};
