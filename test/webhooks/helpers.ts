import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { syntheticEvent, type TestServer } from '../helpers/harness.ts';
import { recordEvent } from '../../src/webhooks/events.ts';
import { loadScope } from '../../src/platforms.ts';
import { scopeNowMs } from '../../src/context.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  path: string;
}

/** What the receiver does with its n-th request (0-based): a status, a body, or nothing at all (hang). */
export type Responder = (n: number, received: Received, res: ServerResponse) => void;

export interface Receiver {
  url: string;
  received: Received[];
  respond: Responder;
  close(): Promise<void>;
}

export const answer =
  (status: number, body = '', headers: Record<string, string> = {}): Responder =>
  (_n, _r, res) => {
    res.writeHead(status, headers).end(body);
  };

/** A real HTTP receiver on 127.0.0.1 and a port of its own. */
export async function startReceiver(respond: Responder = answer(200, 'ok')): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = { url: '', received, respond, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown = undefined;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = raw.toString('utf8');
      }
      const r: Received = { headers: req.headers, raw, body, path: req.url ?? '/' };
      received.push(r);
      receiver.respond(received.length - 1, r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

export type VerifyWebhook = (
  raw: Buffer,
  headers: IncomingHttpHeaders,
  keys: { webhookPublicKey: string; webhookStandardPublicKey: string },
  nowSeconds?: number,
) => boolean;

/** The receiver snippet of docs/webhooks.md, loaded as it is written there, so the docs cannot rot. */
export async function loadDocsVerifier(): Promise<VerifyWebhook> {
  const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
  const match = /<!-- receiver-snippet -->\s*```js\n([\s\S]*?)```/.exec(doc);
  if (!match) throw new Error('docs/webhooks.md lost its receiver snippet');
  const dir = mkdtempSync(join(tmpdir(), 'webhook-doc-'));
  const file = join(dir, 'verify.mjs');
  writeFileSync(file, match[1]!);
  try {
    const mod = (await import(pathToFileURL(file).href)) as { verifyWebhook: VerifyWebhook };
    return mod.verifyWebhook;
  } finally {
    rmSync(dir, { recursive: true, force: true }); // imported: the module lives on without its file
  }
}

/** Records an event the way business code does: recordEvent inside a store transaction. */
export async function record(
  server: TestServer,
  platformId: string,
  type: string,
  objectId: string,
  data: unknown,
  environment: 'sandbox' | 'production' = 'sandbox',
): Promise<string> {
  const ctx = server.app.services.ctx;
  const scope = await loadScope(ctx, platformId, environment);
  const id = await server.app.store.tx((trx) =>
    recordEvent(trx, scope, { type, objectId, data }, scopeNowMs(ctx, scope)),
  );
  // Made-up data: its webhooks are no evidence about the service's contract.
  syntheticEvent(id);
  return id;
}
