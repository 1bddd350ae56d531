// `payouts mcp`: the MCP server over stdio for a coding agent (docs/agents.md). With --url (or PAYOUTS_URL)
// it drives that running sandbox; without, it starts one of its own in this process. What it loads (the
// SDK, the app) is loaded only when it runs, never for --help.
import { API_OPTIONS, apiTargetOf } from '../api-client.ts';
import { stringOption, type CliCommand } from '../command.ts';

export const mcpCommand: CliCommand = {
  path: ['mcp'],
  summary:
    'serve the MCP server on stdio for a coding agent: over the sandbox at --url (or PAYOUTS_URL), else over ' +
    'a sandbox of its own on an embedded database (a temporary one, or --data-dir)',
  options: [
    {
      flags: '--url <url>',
      description: 'the running sandbox to drive (default PAYOUTS_URL; neither: one of its own)',
    },
    ...API_OPTIONS.filter((option) => option.flags !== '--url <url>'),
    {
      flags: '--data-dir <dir>',
      description: "without --url: the embedded sandbox's folder, kept (default: temporary)",
    },
    {
      flags: '--port <port>',
      description: "without --url: the embedded sandbox's port on 127.0.0.1 (default: a free one)",
    },
  ],
  database: 'none',
  writes: false,
  async run(input) {
    const { connectTo, serveStdio, startEmbedded } = await import('../../mcp/stdio.ts');
    const url = stringOption(input.options, 'url') ?? process.env.PAYOUTS_URL;
    const dataDir = stringOption(input.options, 'dataDir');
    const port = stringOption(input.options, 'port');
    if (url && (dataDir !== undefined || port !== undefined)) {
      input.fail('--data-dir and --port are for the embedded sandbox; with --url (or PAYOUTS_URL) leave them out');
    }
    if (port !== undefined && !/^\d{1,5}$/.test(port)) input.fail(`--port takes a port number, not "${port}"`);
    let running;
    if (url) {
      const { baseUrl, credentials } = await apiTargetOf(input);
      running = connectTo(baseUrl, credentials, process.env.SANDBOX_ADMIN_KEY || undefined);
    } else {
      running = await startEmbedded({ dataDir, port: port === undefined ? undefined : Number(port) }, process.env);
    }
    await serveStdio(running);
    return undefined;
  },
};
