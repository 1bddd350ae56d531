/**
 * A local webhook receiver configured as a platform's endpoint: it answers 200 at once and notes when each
 * event arrived, by event id, so the bench can set that against the time the event was recorded.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  url: string;
  /** Event id → first arrival, in epoch milliseconds. */
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      try {
        const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id;
        if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, at);
      } catch {
        // Not an envelope: still answered, never counted.
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
