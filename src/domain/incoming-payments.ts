/**
 * Incoming payments, the pure part: the checks of a sandbox receive request, and what the platform's
 * answer to an INCOMING_PAYMENT.PENDING webhook decides. The delivery code hands over what came back (a
 * status and at most 1 KB of body, or no answer, or no endpoint at all); the service acts on it.
 */
import { AppError, invalidInput } from './errors.ts';
import { isSupportedCurrency } from './currencies.ts';
import { MAX_PAYMENT_MINOR } from './rate-sources.ts';
import { isUmaAddress } from './uma.ts';
import type { Environment } from './environments.ts';

/** How long a platform that answered 202 has to call /approve or /reject (public API: 5 seconds). */
export const APPROVAL_TIMEOUT_MS = 5_000;

/** Bounds on what we keep from a platform's answer: it is stored and shown back, so it must stay small. */
const MAX_REQUIRED_FIELDS = 50;
const MAX_TEXT = 200;

/** What one webhook delivery got back: an HTTP answer, none (refused, timed out), or no endpoint to ask. */
export type WebhookAnswer =
  | { kind: 'ANSWERED'; status: number; body: string | null }
  | { kind: 'NO_ANSWER'; error: string }
  | { kind: 'NO_ENDPOINT' };

/** Why a payment did not complete, kept on the transaction as failureDetails (our extension). */
export interface FailureDetails {
  /** The platform's reason for a rejection (403 body `reason`, or /reject `{reason}`). */
  reason?: string;
  /** The fields a 422 asked for (`requiredFields`). */
  requiredFields?: string[];
  /** What the approval webhook got back when that was neither a decision nor a request for data. */
  responseStatus?: number;
  error?: string;
}

export type ApprovalDecision =
  | { kind: 'APPROVE'; receiverCustomerInfo?: Record<string, unknown> }
  | { kind: 'AWAIT' }
  | { kind: 'REJECT'; details: FailureDetails }
  | {
      kind: 'FAIL';
      failureReason: 'MISSING_MANDATORY_PAYEE_DATA' | 'PAYMENT_APPROVAL_WEBHOOK_ERROR';
      details: FailureDetails;
    };

type Json = Record<string, unknown>;

function parseObject(body: string | null): Json | undefined {
  if (!body) return undefined;
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    // Cut at the 1 KB read limit, or not JSON at all: treated as an answer without a body.
    return undefined;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, MAX_TEXT) : undefined;
}

/** The receiverCustomerInfo of an approval, when it is a JSON object; anything else is ignored. */
export function receiverCustomerInfoOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A rejection's reason, bounded; absent when none (or no text) was given. */
export function rejectionDetails(reason: unknown): FailureDetails {
  const r = text(reason);
  return r === undefined ? {} : { reason: r };
}

/**
 * 200 approves (with an optional `receiverCustomerInfo` object); 202 defers to /approve or /reject within
 * APPROVAL_TIMEOUT_MS; 403 rejects (GridError body, optional `reason`, else its message); 422 asks for
 * `requiredFields` → MISSING_MANDATORY_PAYEE_DATA; any other status, or no answer, is a webhook error.
 * With no endpoint configured, the sandbox approves (there is no one to ask, and a developer trying
 * incoming payments should see them land); production has no approver, so the payment fails.
 */
export function decideApproval(answer: WebhookAnswer, environment: Environment): ApprovalDecision {
  if (answer.kind === 'NO_ENDPOINT') {
    return environment === 'sandbox'
      ? { kind: 'APPROVE' }
      : {
          kind: 'FAIL',
          failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR',
          details: { error: 'no webhook endpoint configured' },
        };
  }
  if (answer.kind === 'NO_ANSWER')
    return {
      kind: 'FAIL',
      failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR',
      details: { error: answer.error.slice(0, MAX_TEXT) },
    };
  const body = parseObject(answer.body);
  switch (answer.status) {
    case 200: {
      const info = receiverCustomerInfoOf(body?.receiverCustomerInfo);
      return info ? { kind: 'APPROVE', receiverCustomerInfo: info } : { kind: 'APPROVE' };
    }
    case 202:
      return { kind: 'AWAIT' };
    case 403:
      return { kind: 'REJECT', details: rejectionDetails(body?.reason ?? body?.message) };
    case 422: {
      const asked = Array.isArray(body?.requiredFields) ? body.requiredFields : [];
      const requiredFields = asked
        .filter((f): f is string => typeof f === 'string' && f.length > 0)
        .slice(0, MAX_REQUIRED_FIELDS)
        .map((f) => f.slice(0, MAX_TEXT));
      return { kind: 'FAIL', failureReason: 'MISSING_MANDATORY_PAYEE_DATA', details: { requiredFields } };
    }
    default:
      return {
        kind: 'FAIL',
        failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR',
        details: { responseStatus: answer.status },
      };
  }
}

export interface UmaReceiveInput {
  senderUmaAddress: string;
  receivingCurrencyCode: string;
  receivingCurrencyAmount: number;
  receiverUmaAddress?: string | undefined;
  customerId?: string | undefined;
}

/** Pure checks of a receive request that need no database; each failure names its field. */
export function checkReceiveInput(input: UmaReceiveInput): void {
  if (!isUmaAddress(input.senderUmaAddress)) {
    throw new AppError(
      'INVALID_UMA_ADDRESS',
      `senderUmaAddress ${JSON.stringify(input.senderUmaAddress)} is not a UMA address ($name@domain)`,
      { field: 'senderUmaAddress' },
    );
  }
  if (!isSupportedCurrency(input.receivingCurrencyCode)) {
    throw new AppError(
      'INVALID_CURRENCY',
      `receivingCurrencyCode ${input.receivingCurrencyCode} is not a supported currency`,
      { field: 'receivingCurrencyCode' },
    );
  }
  if (!Number.isSafeInteger(input.receivingCurrencyAmount) || input.receivingCurrencyAmount <= 0) {
    throw invalidInput(
      'receivingCurrencyAmount',
      'receivingCurrencyAmount must be a positive integer in the smallest unit',
      'positive',
    );
  }
  if (BigInt(input.receivingCurrencyAmount) > MAX_PAYMENT_MINOR) {
    throw new AppError('AMOUNT_OUT_OF_RANGE', `receivingCurrencyAmount must be at most ${MAX_PAYMENT_MINOR}`, {
      field: 'receivingCurrencyAmount',
      max: Number(MAX_PAYMENT_MINOR),
    });
  }
  const given = [input.receiverUmaAddress, input.customerId].filter((v) => v !== undefined).length;
  if (given !== 1)
    throw invalidInput('receiverUmaAddress', 'give exactly one of receiverUmaAddress and customerId', 'oneOf');
  if (input.receiverUmaAddress !== undefined && !isUmaAddress(input.receiverUmaAddress)) {
    throw new AppError(
      'INVALID_UMA_ADDRESS',
      `receiverUmaAddress ${JSON.stringify(input.receiverUmaAddress)} is not a UMA address ($name@domain)`,
      { field: 'receiverUmaAddress' },
    );
  }
}
