// The generic HTTP connector: any bank or provider behind a small adapter that speaks this protocol
// (docs/connectors.md; the contract is served at GET /connectors/openapi.json). It translates only: an
// instruction to `POST {url}/payouts`, the adapter's answer to a RailAnswer, a signed callback to RailEvents.
import { isFailureReason, type FailureReason } from '../../domain/failure-reasons.ts';
import {
  CallbackRefused,
  CancelRefused,
  RailRefused,
  type InboundCallback,
  type RailAnswer,
  type RailConnector,
  type RailEvent,
  type RailInstruction,
} from '../connector.ts';
import { refusalOf, signedHeaders } from './signing.ts';

export interface HttpConnectorConfig {
  name: string;
  url: string;
  /** The HMAC key of the connector's `whsec_` secret. */
  key: Buffer;
  timeoutMs: number;
  /** Whether the adapter serves POST /payouts/{id}/cancel. */
  cancel: boolean;
}

/** The adapter answered in a way the protocol does not allow: the outcome is unknown. */
export class AdapterAnswerError extends Error {}

const FALLBACK_REASON: FailureReason = 'COUNTERPARTY_POST_TX_FAILED';

/** Statuses after which the instruction may have arrived (or the adapter wants it again): unknown outcome. */
const UNKNOWN_OUTCOME = new Set([401, 408, 409, 425, 429]);

const reasonOf = (value: unknown): FailureReason =>
  typeof value === 'string' && isFailureReason(value) ? value : FALLBACK_REASON;

/** The adapter's answer body, checked: a status of the protocol's, with what goes with it. */
function answerOf(body: unknown): RailAnswer {
  const record = (body ?? {}) as Record<string, unknown>;
  const railReference = typeof record.railReference === 'string' ? record.railReference : undefined;
  switch (record.status) {
    case 'PENDING':
    case 'COMPLETED':
      return { status: record.status, railReference };
    case 'FAILED':
      return { status: 'FAILED', railReference, reason: reasonOf(record.failureReason) };
    default:
      throw new AdapterAnswerError(`the adapter answered status ${JSON.stringify(record.status)}`);
  }
}

function wireInstruction(instruction: RailInstruction) {
  return {
    id: instruction.id,
    direction: instruction.direction,
    amount: Number(instruction.amount),
    currency: instruction.currency,
    account: instruction.account,
    ...(instruction.reference ? { reference: instruction.reference } : {}),
    createdAt: new Date(instruction.createdAtMs).toISOString(),
  };
}

const CALLBACK_STATUSES = new Set(['PENDING', 'COMPLETED', 'FAILED', 'RETURNED']);

/** One callback body as the protocol has it, or the reason it is not. */
function callbackEvent(messageId: string, body: unknown): RailEvent | string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body is not a JSON object';
  const record = body as Record<string, unknown>;
  const id = typeof record.id === 'string' ? record.id : undefined;
  const railReference = typeof record.railReference === 'string' ? record.railReference : undefined;
  if (!id && !railReference) return 'id or railReference is required';
  if (typeof record.status !== 'string' || !CALLBACK_STATUSES.has(record.status))
    return 'status must be PENDING, COMPLETED, FAILED or RETURNED';
  const occurredAtMs = typeof record.occurredAt === 'string' ? Date.parse(record.occurredAt) : Number.NaN;
  if (Number.isNaN(occurredAtMs)) return 'occurredAt must be an RFC 3339 timestamp';
  if (
    record.failureReason !== undefined &&
    !(typeof record.failureReason === 'string' && isFailureReason(record.failureReason))
  )
    return 'failureReason must be a public failure reason';
  return {
    messageId,
    transactionId: id,
    railReference,
    status: record.status as RailEvent['status'],
    reason: record.failureReason as FailureReason | undefined,
    occurredAtMs,
  };
}

/** A 2xx answer, a refusal before anything left (a plain 4xx), or an unknown outcome (the rest). */
function judge(answer: { status: number; body: unknown; text: string }, what: string): RailAnswer {
  if (answer.status >= 200 && answer.status < 300) return answerOf(answer.body);
  if (answer.status >= 400 && answer.status < 500 && !UNKNOWN_OUTCOME.has(answer.status)) {
    const record = (answer.body ?? {}) as Record<string, unknown>;
    const message = typeof record.message === 'string' ? record.message : answer.text;
    throw new RailRefused(
      `the adapter refused ${what} (${answer.status}): ${message.slice(0, 200)}`,
      reasonOf(record.failureReason),
    );
  }
  throw new AdapterAnswerError(`the adapter answered ${what} with ${answer.status}`);
}

/**
 * A cancel's answer: the state after (FAILED when cancelled), a refusal that changed nothing (409 too late,
 * 404 no such payout or no cancel route, any other plain 4xx), or an unknown outcome (5xx, 401, 408, 429…).
 */
function judgeCancel(answer: { status: number; body: unknown; text: string }): RailAnswer {
  if (answer.status >= 400 && answer.status < 500 && ![401, 408, 425, 429].includes(answer.status)) {
    const record = (answer.body ?? {}) as Record<string, unknown>;
    const message = typeof record.message === 'string' ? record.message : answer.text;
    throw new CancelRefused(`the adapter refused the cancel (${answer.status}): ${message.slice(0, 200)}`);
  }
  return judge(answer, 'the cancel');
}

export function makeHttpConnector(config: HttpConnectorConfig, nowMs: () => number): RailConnector {
  const base = config.url.replace(/\/+$/, '');

  async function call(method: 'GET' | 'POST', path: string, payload: unknown, id?: string) {
    const body = payload === undefined ? '' : JSON.stringify(payload);
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...signedHeaders(config.key, body, nowMs()),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...(id ? { 'idempotency-key': id } : {}),
      },
      ...(method === 'POST' ? { body } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(config.timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text };
  }

  return {
    name: config.name,
    capabilities: { payout: true, pull: true, cancel: config.cancel, poll: true, callbacks: true, batchFiles: false },
    async submit(instruction) {
      return judge(await call('POST', '/payouts', wireInstruction(instruction), instruction.id), 'the payout');
    },
    async poll(instruction) {
      const answer = await call('GET', `/payouts/${encodeURIComponent(instruction.id)}`, undefined);
      if (answer.status === 404) return undefined;
      return judge(answer, 'the poll');
    },
    async cancel(instruction) {
      return judgeCancel(await call('POST', `/payouts/${encodeURIComponent(instruction.id)}/cancel`, undefined));
    },
    verifyCallback(callback: InboundCallback, now: number) {
      const refusal = refusalOf(config.key, callback.headers, callback.body, now);
      if (refusal) throw new CallbackRefused(refusal, 401);
      let body: unknown;
      try {
        body = JSON.parse(callback.body.toString('utf8'));
      } catch {
        throw new CallbackRefused('the body is not JSON', 400);
      }
      const messageId = String(callback.headers['webhook-id']);
      const event = callbackEvent(messageId, body);
      if (typeof event === 'string') throw new CallbackRefused(event, 400);
      return [event];
    },
  };
}
