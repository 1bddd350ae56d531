/**
 * Every error the API can answer with, and its HTTP status. The map is a Record over the code union,
 * so adding a code without a status does not compile. Codes follow the public API's catalogue where it
 * has one; the others (INSUFFICIENT_BALANCE, QUOTE_EXPIRED, NOT_FOUND, ...) are our own.
 */
const STATUS_BY_CODE = {
  INVALID_INPUT: 400,
  INVALID_AMOUNT: 400,
  INVALID_CURRENCY: 400,
  INVALID_BANK_ACCOUNT: 400,
  INVALID_UMA_ADDRESS: 400,
  AMOUNT_OUT_OF_RANGE: 400,
  INVITATION_ALREADY_CLAIMED: 400,
  INVITATION_CANCELLED: 400,
  INVITATION_EXPIRED: 400,
  SELF_PAYMENT: 400,
  WEBHOOK_ENDPOINT_NOT_SET: 400,
  WEBHOOK_DELIVERY_ERROR: 400,
  INSUFFICIENT_BALANCE: 400,
  QUOTE_REQUEST_FAILED: 400,
  QUOTE_NOT_EXECUTABLE: 400,
  IDEMPOTENCY_KEY_REUSED: 422,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  QUOTE_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  REFERENCE_NOT_FOUND: 404,
  LOOKUP_REQUEST_NOT_FOUND: 404,
  RECEIVER_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  TRANSACTION_NOT_CANCELLABLE: 409,
  CONFLICT: 409,
  UMA_ADDRESS_EXISTS: 409,
  ACCOUNT_ALREADY_EXISTS: 409,
  QUOTE_EXPIRED: 409,
  QUOTE_NOT_PENDING: 409,
  TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL: 409,
  DOCUMENT_SUBMITTED: 409,
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

export type ErrorDetails = Record<string, unknown>;

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

export function notFound(what: string, id: string, code: ErrorCode = 'NOT_FOUND'): AppError {
  return new AppError(code, `${what} ${id} not found`, { id });
}
