import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
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

async function readCapped(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early destroys the stream: whatever is left is not ours to read.
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size >= RESPONSE_BODY_LIMIT_BYTES) break;
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

/** How a name becomes addresses: the system resolver, or a test's own. */
export type Resolve = (
  hostname: string,
  options: LookupAllOptions,
  done: (err: Error | null, all: LookupAddress[]) => void,
) => void;

/**
 * The lookup the connection itself uses, refusing a name any of whose addresses is internal. The check is
 * on the addresses the socket connects to, not on an earlier resolution: a name that resolves to a public
 * address once and an internal one a moment later (DNS rebinding) is caught.
 */
export function publicOnlyLookup(resolve: Resolve = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, all) => {
      if (err) return callback(err, '', 0);
      const internal = all.find((a) => isInternalAddress(a.address));
      if (internal) {
        const refusal = new Error(`refused: ${hostname} resolves to the internal address ${internal.address}`);
        return callback(refusal, '', 0);
      }
      const [first] = all;
      if (!first) return callback(new Error(`cannot resolve ${hostname}: no address`), '', 0);
      // net.connect asks for all addresses when it races IPv4 and IPv6 (autoSelectFamily), one otherwise.
      if (options.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, all);
      else callback(null, first.address, first.family);
    });
  };
}

/** Connections for deliveries that must stay public: every address connected to goes through the check. */
export function publicOnlyAgent(resolve?: Resolve): Agent {
  return new Agent({ connect: { lookup: publicOnlyLookup(resolve) } });
}

const publicAgent = publicOnlyAgent();
const anyAgent = new Agent();

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
  /** The connections to use; by default, one that checks every address when publicOnly. */
  agent?: Agent;
}

export async function postWebhook(post: WebhookPost): Promise<PostResult> {
  const { url, body, headers, timeoutMs, clockMs, publicOnly } = post;
  const started = clockMs();
  const signal = AbortSignal.timeout(timeoutMs);
  // An IP literal or a plainly local name needs no lookup to be refused (and gets none from the socket).
  const { hostname } = new URL(url);
  if (publicOnly && isInternalHost(hostname)) {
    const error = `refused: ${hostname} is an internal address`;
    return { status: null, body: null, latencyMs: clockMs() - started, error };
  }
  const dispatcher = post.agent ?? (publicOnly ? publicAgent : anyAgent);
  try {
    // undici's request, not its fetch: no WHATWG Request, Headers and streams around each POST, which made
    // deliveries 30-40 % faster (docs/performance.md). It follows no redirects.
    const response = await request(url, { method: 'POST', body, headers, signal, dispatcher });
    let text: string | null = null;
    let error: string | null = null;
    try {
      text = await readCapped(response.body);
    } catch (err) {
      // The status already came back; a body cut off by the timeout still leaves a usable attempt record.
      error = `answer body unreadable: ${describe(err, timeoutMs)}`;
    }
    return { status: response.statusCode, body: text, latencyMs: clockMs() - started, error };
  } catch (err) {
    return { status: null, body: null, latencyMs: clockMs() - started, error: describe(err, timeoutMs) };
  }
}
