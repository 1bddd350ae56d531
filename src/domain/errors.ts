/**
 * Every error the API can answer with, and its HTTP status. The map is a Record over the code union,
 * so adding a code without a status does not compile. Each code is one the public contract lists for its
 * status (test/contract/error-codes.test.ts), except INSUFFICIENT_BALANCE and QUOTE_EXPIRED, which the
 * specification names, and the statuses the contract lists none for (413, 415, 422). Where the contract
 * has no code of its own for a case (an unknown document, an account that exists already), the error
 * answers the contract's generic one and says which case in `details.reason`.
 */
const STATUS_BY_CODE = {
  INVALID_INPUT: 400,
  EXPIRED: 400,
  INVALID_AMOUNT: 400,
  INVALID_CURRENCY: 400,
  INVALID_BANK_ACCOUNT: 400,
  INVALID_UMA_ADDRESS: 400,
  AMOUNT_OUT_OF_RANGE: 400,
  INVITATION_ALREADY_CLAIMED: 400,
  INVITATION_CANCELLED: 400,
  SELF_PAYMENT: 400,
  WEBHOOK_ENDPOINT_NOT_SET: 400,
  WEBHOOK_DELIVERY_ERROR: 400,
  INSUFFICIENT_BALANCE: 400,
  QUOTE_REQUEST_FAILED: 400,
  IDEMPOTENCY_KEY_REUSED: 422,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  USER_NOT_FOUND: 404,
  QUOTE_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  REFERENCE_NOT_FOUND: 404,
  UMA_NOT_FOUND: 404,
  LOOKUP_REQUEST_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  TRANSACTION_NOT_CANCELLABLE: 409,
  CONFLICT: 409,
  UMA_ADDRESS_EXISTS: 409,
  QUOTE_EXPIRED: 409,
  TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL: 409,
  CUSTOMER_DELETED: 410,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  REQUEST_HEADER_FIELDS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  GRID_SWITCH_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  NOT_IMPLEMENTED: 501,
} as const;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

/** The catalogue, for the tests that hold it to the public contract. */
export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, number>> = STATUS_BY_CODE;

export type ErrorDetails = Record<string, unknown>;

/**
 * A command that cannot do what the operator asked, for a reason that is the operator's to fix (a data folder
 * in use, a backup that does not fit, a server that does not answer): the command line prints the message,
 * never a stack, and exits with `exitCode`. Here, apart from the modules that raise it, so that the command
 * line knows it without loading them (test/foundation/cli-start.test.ts).
 */
export class OperatorError extends Error {
  readonly exitCode: number = 1;
}

/** An error meant for the API caller: its code, a sentence, and where useful the field at fault. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.status = STATUS_BY_CODE[code];
  }
}

/** A 400 that names the failing field (a JSON-pointer-like path such as `accountInfo.routingNumber`). */
export function invalidInput(field: string, message: string, rule?: string): AppError {
  return new AppError('INVALID_INPUT', message, rule ? { field, rule } : { field });
}

/**
 * A 404. Resources the contract has a code for pass it (QUOTE_NOT_FOUND, ...); the others (accounts,
 * documents, beneficial owners, verifications, events) answer REFERENCE_NOT_FOUND and name what was missing.
 */
export function notFound(what: string, id: string, code: ErrorCode = 'REFERENCE_NOT_FOUND'): AppError {
  return new AppError(
    code,
    `${what} ${id} not found`,
    code === 'REFERENCE_NOT_FOUND' ? { id, resource: what } : { id },
  );
}

/** A debit the account's balance cannot cover. */
export function insufficientBalance(accountId: string): AppError {
  return new AppError('INSUFFICIENT_BALANCE', `Account ${accountId} has insufficient balance`, { accountId });
}

/** A 409 for a state the contract has no code of its own for; `reason` names the case. */
export function conflict(reason: string, message: string, details: ErrorDetails = {}): AppError {
  return new AppError('CONFLICT', message, { reason, ...details });
}

/** One invalid field, as a 400 lists it in `details.errors`. */
export interface FieldError {
  field: string;
  rule: string;
  message: string;
}

/** The fields an INVALID_INPUT names: its `details.errors`, or its one field. */
function fieldErrorsOf(err: AppError): FieldError[] {
  const listed = err.details?.errors;
  if (Array.isArray(listed)) return listed as FieldError[];
  const field = typeof err.details?.field === 'string' ? err.details.field : 'body';
  const rule = typeof err.details?.rule === 'string' ? err.details.rule : 'invalid';
  return [{ field, rule, message: err.message }];
}

/**
 * Runs independent checks and keeps every INVALID_INPUT they raise instead of stopping at the first, so one
 * 400 names every invalid field. Any other error passes straight through.
 */
export class Refusals {
  private readonly found: FieldError[] = [];

  /** Runs one check; its value, or undefined when it refused (the refusal is kept). */
  check<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'INVALID_INPUT') throw err;
      this.found.push(...fieldErrorsOf(err));
      return undefined;
    }
  }

  /** Throws one INVALID_INPUT for everything kept: the first as details.field and rule, all in details.errors. */
  settle(): void {
    const [first, ...more] = this.found;
    if (!first) return;
    const message = more.length ? `${first.message} (and ${more.length} more: see details.errors)` : first.message;
    throw new AppError('INVALID_INPUT', message, { field: first.field, rule: first.rule, errors: this.found });
  }
}
