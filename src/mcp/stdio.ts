// `payouts mcp`: the MCP server on stdin/stdout, for an agent on this machine. Given a URL (--url or
// PAYOUTS_URL) it drives that running service with sandbox credentials, as the CLI's API commands do.
// Without one it starts a sandbox of its own in this process, on an embedded database in a temporary
// folder (removed on exit) or in --data-dir (kept), listening on 127.0.0.1 so the app under test can call
// it too: zero setup. Either way the tools go over HTTP; stdout carries only the protocol, and everything
// else (the server's log, what it says at start) goes to stderr.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { makeApiClient } from '../cli/api-client.ts';
import { CREDENTIALS_FILE, readCredentialsFile } from '../cli/credentials-file.ts';
import { listeningUrl, serveApp } from '../cli/serve-app.ts';
import { loadConfig } from '../config.ts';
import { API_VERSION } from '../http/http.ts';
import { buildMcpServer } from './server.ts';
import { call, httpSession, type McpSession, type SandboxCredentials } from './session.ts';

export interface EmbeddedOptions {
  /** The embedded database's folder, kept; default a temporary one, removed on exit. */
  dataDir?: string | undefined;
  /** Default 0: a free port on 127.0.0.1. */
  port?: number | undefined;
}

interface Running {
  session: McpSession;
  /** Said on stderr once the server is ready. */
  description: string;
  close(): Promise<void>;
}

const say = (text: string) => process.stderr.write(`payouts mcp: ${text}\n`);

/** A sandbox in this process: the same start as `payouts serve` (serveApp), its log on stderr. */
export async function startEmbedded(options: EmbeddedOptions, env: NodeJS.ProcessEnv): Promise<Running> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'payouts-mcp-'));
  const removeDir = () => {
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const config = loadConfig({
      ...env,
      DATA_DIR: dataDir,
      // The embedded database, on this machine only, whatever the shell says for a server of its own.
      DATABASE_URL: '',
      HOST: '127.0.0.1',
      PORT: String(options.port ?? 0),
      LOG_LEVEL: env.LOG_LEVEL || 'warn',
    });
    config.logStream = 'stderr';
    const app = await serveApp(config, { isTTY: false, write: (text) => process.stderr.write(text) });
    const baseUrl = `${listeningUrl(app)}/${API_VERSION}`;
    // The preset pair, else the one a first start wrote under DATA_DIR, else a workspace of its own.
    let credentials: SandboxCredentials | undefined =
      config.sandboxCredentials ?? readCredentialsFile(join(dataDir, CREDENTIALS_FILE));
    credentials ??= (await call(makeApiClient(baseUrl, undefined), {
      method: 'POST',
      path: '/sandbox/workspaces',
      body: { name: 'mcp' },
    })) as SandboxCredentials;
    return {
      session: httpSession(baseUrl, credentials, 'embedded'),
      description: `a sandbox of its own at ${baseUrl} (token ${credentials.tokenId}), data in ${dataDir}`,
      async close() {
        await app.close();
        removeDir();
      },
    };
  } catch (err) {
    removeDir();
    throw err;
  }
}

/** A running service at `baseUrl`, with these credentials (checked as sandbox ones at the first tool call). */
export function connectTo(baseUrl: string, credentials: SandboxCredentials, adminKey: string | undefined): Running {
  return {
    session: httpSession(baseUrl, credentials, 'url', adminKey),
    description: `the service at ${baseUrl} (token ${credentials.tokenId})`,
    close: async () => undefined,
  };
}

/** Serves MCP on stdin/stdout until the client goes away (stdin ends) or a signal stops the process. */
export async function serveStdio(running: Running): Promise<void> {
  const server = buildMcpServer(running.session);
  const transport = new StdioServerTransport();
  let stopping: Promise<void> | undefined;
  const stop = (why: string) =>
    (stopping ??= (async () => {
      say(`stopping (${why})`);
      await server.close().catch(() => undefined);
      await running.close();
      process.exit(0);
    })());
  process.stdin.once('end', () => void stop('stdin closed'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  await server.connect(transport);
  say(`serving MCP on stdio over ${running.description}`);
}
