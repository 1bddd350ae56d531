// The test API's webhook receiver: one real HTTP server on 127.0.0.1 (a port of its own) that every
// workspace's sandbox posts to, each workspace at a path of its own so its deliveries are checked with its
// own public keys and a test sees only its own. A delivery counts only when both signatures verify and the
// unsigned event-type header agrees with the signed body; anything else is answered 401, so the service
// records a failed attempt as it would with a real receiver, and kept apart for the test to look at.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../domain/clock.ts';
import { OperatorError } from '../domain/errors.ts';
import { checkSignatures, type SignatureCheck, type WebhookPublicKeys } from './signatures.ts';

/** One POST the receiver got, parsed and judged. */
export interface WebhookDelivery {
  /** The event id (`Webhook:…`), the same on every retry. */
  id: string;
  /** The fine-grained type, OUTGOING_PAYMENT.COMPLETED or TEST, in either envelope. */
  type: string;
  /** The body's own `type`: the coarse one in the LEGACY envelope (OUTGOING_PAYMENT), else the same as `type`. */
  envelopeType: string;
  /** The parsed body. */
  body: Record<string, any>;
  /** The resource it is about: `data` (CURRENT), `transaction` or `invitation` (LEGACY), or the flat LEGACY body. */
  data: Record<string, any>;
  raw: Buffer;
  headers: IncomingHttpHeaders;
  signatures: SignatureCheck;
  /** Both signatures hold and the event-type header agrees with the body. */
  verified: boolean;
  /** Why it was refused; undefined when verified. */
  problem: string | undefined;
  receivedAtMs: number;
}

export interface WaitForOptions {
  /** Only a delivery this accepts counts (say, `(d) => d.data.id === transactionId`). */
  match?: (delivery: WebhookDelivery) => boolean;
  /** Default 10 000 ms. */
  timeoutMs?: number;
}

/** The webhooks of one workspace. */
export interface WebhookInbox {
  /** Where this workspace's sandbox sends them (set as its webhookEndpoint). */
  readonly url: string;
  /** Verified deliveries, in the order they arrived. */
  readonly deliveries: readonly WebhookDelivery[];
  /** Deliveries refused with 401: a signature that does not verify, or a type header that disagrees. */
  readonly rejected: readonly WebhookDelivery[];
  /**
   * The first verified delivery of `type` (fine-grained, such as OUTGOING_PAYMENT.COMPLETED, or the LEGACY
   * body's coarse OUTGOING_PAYMENT) that `match` accepts, whether it came already or comes within the time-out.
   */
  waitFor(type: string, options?: WaitForOptions): Promise<WebhookDelivery>;
  /** Forgets what arrived so far (both lists). */
  clear(): void;
}

export interface WebhookReceiver {
  /** The receiver's origin, http://127.0.0.1:PORT. */
  readonly origin: string;
  /** A new inbox at a path of its own, whose deliveries are checked with `keys`. */
  inbox(keys: WebhookPublicKeys): Inbox;
  /** Stops the server; waits still pending fail with `the sandbox was closed`. */
  close(): Promise<void>;
}

export const DEFAULT_WAIT_MS = 10_000;
/** A webhook body is small; a receiver that reads without a bound is one a runaway sender can exhaust. */
const MAX_BODY_BYTES = 1024 * 1024;

/** The LEGACY envelope's coarse body types, and the fine-grained types (header) each stands for. */
const LEGACY_TYPES: Readonly<Record<string, (fine: string) => boolean>> = {
  OUTGOING_PAYMENT: (fine) => fine.startsWith('OUTGOING_PAYMENT.'),
  INCOMING_PAYMENT: (fine) => fine.startsWith('INCOMING_PAYMENT.'),
  INVITATION_CLAIMED: (fine) => fine === 'INVITATION.CLAIMED',
  KYC_STATUS: (fine) => /^CUSTOMER\.KY[CB]_/.test(fine),
  ACCOUNT_STATUS: (fine) => fine === 'INTERNAL_ACCOUNT.BALANCE_UPDATED',
};

interface Waiter {
  type: string;
  match: ((delivery: WebhookDelivery) => boolean) | undefined;
  resolve(delivery: WebhookDelivery): void;
  reject(error: Error): void;
}

function parseBody(raw: Buffer): Record<string, any> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, any>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Why the unsigned X-Webhook-Event-Type cannot be trusted for this signed body; undefined when it agrees. */
function typeProblem(fine: string, envelopeType: string): string | undefined {
  if (!fine) return 'the X-Webhook-Event-Type header is missing';
  if (fine === envelopeType || LEGACY_TYPES[envelopeType]?.(fine)) return undefined;
  return `X-Webhook-Event-Type ${fine} disagrees with the signed body's type ${envelopeType || '(none)'}`;
}

/** Parses and judges one POST against a workspace's keys. */
function judgeDelivery(
  raw: Buffer,
  headers: IncomingHttpHeaders,
  keys: WebhookPublicKeys,
  nowMs: number,
): WebhookDelivery {
  const body = parseBody(raw) ?? {};
  const signatures = checkSignatures(raw, headers, keys, Math.floor(nowMs / 1000));
  const headerType = headers['x-webhook-event-type'];
  const type = (Array.isArray(headerType) ? headerType[0] : headerType) ?? '';
  const envelopeType = typeof body.type === 'string' ? body.type : '';
  const problem = signatures.problem ?? typeProblem(type, envelopeType);
  const data = body.data ?? body.transaction ?? body.invitation ?? body;
  return {
    id: typeof body.id === 'string' ? body.id : '',
    type,
    envelopeType,
    body,
    data: data !== null && typeof data === 'object' ? data : {},
    raw,
    headers,
    signatures,
    verified: problem === undefined,
    problem,
    receivedAtMs: nowMs,
  };
}

/** One workspace's inbox; the receiver hands it what arrives at its path. */
export class Inbox implements WebhookInbox {
  readonly deliveries: WebhookDelivery[] = [];
  readonly rejected: WebhookDelivery[] = [];
  /** Told of every delivery as it arrives, verified or not (`payouts listen` prints them). */
  onDelivery: ((delivery: WebhookDelivery) => void) | undefined;
  private readonly waiters = new Set<Waiter>();

  constructor(
    readonly url: string,
    readonly keys: WebhookPublicKeys,
  ) {}

  clear(): void {
    this.deliveries.length = 0;
    this.rejected.length = 0;
  }

  /** Takes a judged delivery: keeps it, and wakes the waits it satisfies. */
  take(delivery: WebhookDelivery): void {
    this.onDelivery?.(delivery);
    if (!delivery.verified) {
      this.rejected.push(delivery);
      return;
    }
    this.deliveries.push(delivery);
    for (const waiter of this.waiters) {
      try {
        if (!fits(delivery, waiter.type, waiter.match)) continue;
      } catch (err) {
        waiter.reject(err instanceof Error ? err : new Error(String(err)));
        continue;
      }
      waiter.resolve(delivery);
    }
  }

  waitFor(type: string, options: WaitForOptions = {}): Promise<WebhookDelivery> {
    const { match, timeoutMs = DEFAULT_WAIT_MS } = options;
    try {
      const already = this.deliveries.find((delivery) => fits(delivery, type, match));
      if (already) return Promise.resolve(already);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        type,
        match,
        resolve: (delivery) => {
          settle();
          resolve(delivery);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      const timer = setTimeout(() => waiter.reject(new Error(this.timeoutMessage(type, timeoutMs))), timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      this.waiters.add(waiter);
    });
  }

  /** Fails every pending wait (the sandbox is closing). */
  abandon(reason: string): void {
    for (const waiter of this.waiters) waiter.reject(new Error(reason));
  }

  private timeoutMessage(type: string, timeoutMs: number): string {
    const got = this.deliveries.map((d) => d.type).join(', ') || 'none';
    const refused = this.rejected.map((d) => `${d.type || '?'} (${d.problem})`).join(', ') || 'none';
    return (
      `timed out after ${timeoutMs} ms waiting for a verified ${type} webhook at ${this.url}; ` +
      `verified so far: ${got}; refused: ${refused}`
    );
  }
}

function fits(delivery: WebhookDelivery, type: string, match: WaitForOptions['match']): boolean {
  return (delivery.type === type || delivery.envelopeType === type) && (match?.(delivery) ?? true);
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    req.on('error', reject);
  });
}

/** Starts the receiver on 127.0.0.1, on `port` or a free one. */
export async function startWebhookReceiver(clock: Clock, port = 0): Promise<WebhookReceiver> {
  const inboxes = new Map<string, Inbox>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const inbox = inboxes.get((req.url ?? '/').split('?')[0] ?? '/');
    const raw = await readBody(req);
    if (req.method !== 'POST' || !inbox) return void res.writeHead(404).end();
    if (raw === undefined) return void res.writeHead(413).end();
    const delivery = judgeDelivery(raw, req.headers, inbox.keys, clock.nowMs());
    inbox.take(delivery);
    res.writeHead(delivery.verified ? 200 : 401, { 'content-type': 'text/plain' }).end(delivery.problem ?? 'ok');
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(400);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    // One line naming the port (EADDRINUSE: another receiver has it), which `payouts listen` prints as it is.
    server.once('error', (err: NodeJS.ErrnoException) => {
      const message = `the webhook receiver cannot listen on 127.0.0.1:${port}: ${err.code ?? err.message}`;
      reject(new OperatorError(message, { cause: err }));
    });
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;
  return {
    origin,
    inbox(keys) {
      const path = `/webhooks/${inboxes.size + 1}`;
      const inbox = new Inbox(`${origin}${path}`, keys);
      inboxes.set(path, inbox);
      return inbox;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const inbox of inboxes.values()) inbox.abandon('the sandbox was closed');
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
