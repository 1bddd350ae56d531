import { lookup } from 'node:dns/promises';
import { isInternalAddress, isInternalHost } from './url.ts';
/**
 * One HTTP POST of a webhook, with the limits a URL chosen by a platform calls for: no redirects
 * followed (a 3xx is a failed attempt, so a receiver cannot bounce us to another host), a timeout that
 * covers the answer's body too, and at most 1 KB of that body read before the stream is cancelled.
 */

export const RESPONSE_BODY_LIMIT_BYTES = 1024;

export interface PostResult {
  /** Null when no HTTP answer came back. */
  status: number | null;
  /** At most RESPONSE_BODY_LIMIT_BYTES of the answer, decoded as UTF-8. */
  body: string | null;
  latencyMs: number;
  /** Why the attempt failed before an answer, or null. */
  error: string | null;
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_BODY_LIMIT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    // Whatever is left is not ours to read; cancelling frees the connection at once.
    await reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT_BYTES);
  // A cut through a multi-byte character decodes to U+FFFD, which is harmless in a log record.
  return bytes.toString('utf8');
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  const cause = e.cause?.code ?? e.cause?.message;
  return (cause ? `${e.message ?? 'request failed'}: ${cause}` : (e.message ?? String(err))).slice(0, 500);
}

/**
 * Refuses a host that is internal or resolves to an internal address. Checked before each attempt, so an
 * endpoint whose name later moves onto an internal address is caught too. (The connection resolves the
 * name again; a DNS server answering differently within that instant is not covered.)
 */
async function refuseInternal(url: string): Promise<string | null> {
  const { hostname } = new URL(url);
  if (isInternalHost(hostname)) return `refused: ${hostname} is an internal address`;
  try {
    const addresses = await lookup(hostname.replace(/^\[|\]$/g, ''), { all: true });
    const internal = addresses.find((a) => isInternalAddress(a.address));
    return internal ? `refused: ${hostname} resolves to the internal address ${internal.address}` : null;
  } catch (err) {
    return `cannot resolve ${hostname}: ${(err as Error).message}`;
  }
}

export interface WebhookPost {
  url: string;
  /** The exact bytes that were signed. */
  body: Buffer;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Times the attempt (latencyMs). */
  clockMs: () => number;
  /** Refuse internal addresses: production deliveries never reach them (see webhooks/url.ts). */
  publicOnly: boolean;
}

export async function postWebhook(post: WebhookPost): Promise<PostResult> {
  const { url, body, headers, timeoutMs, clockMs, publicOnly } = post;
  const started = clockMs();
  const signal = AbortSignal.timeout(timeoutMs);
  if (publicOnly) {
    const refused = await refuseInternal(url);
    if (refused) return { status: null, body: null, latencyMs: clockMs() - started, error: refused };
  }
  try {
    // A view over the same bytes (not a copy): what was signed is what goes out.
    const bytes = new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength);
    const response = await fetch(url, { method: 'POST', body: bytes, headers, redirect: 'manual', signal });
    let text: string | null = null;
    let error: string | null = null;
    try {
      text = await readCapped(response);
    } catch (err) {
      // The status already came back; a body cut off by the timeout still leaves a usable attempt record.
      error = `answer body unreadable: ${describe(err, timeoutMs)}`;
    }
    return { status: response.status, body: text, latencyMs: clockMs() - started, error };
  } catch (err) {
    return { status: null, body: null, latencyMs: clockMs() - started, error: describe(err, timeoutMs) };
  }
}
