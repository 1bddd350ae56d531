// The rail connector interface. The core owns the state machine (services/transactions/lifecycle.ts);
// a connector only translates: an instruction out to its rail, and what its rail says back into normalized
// rail events. The shape is the one the open payment orchestrators share (Formance Payments' connector
// plugins, Hyperswitch's payout connectors): a call answers a final outcome or a reference to follow, and
// status comes back by polling or by callbacks, both turned into the same events.
import type { FailureReason } from '../domain/failure-reasons.ts';

/** What a connector can do, declared, so that the core never asks it for more. */
export interface ConnectorCapabilities {
  payout: boolean;
  pull: boolean;
  cancel: boolean;
  poll: boolean;
  callbacks: boolean;
  batchFiles: boolean;
}

/** One payment handed to a rail: pay out to an external account, or pull from one. */
export interface RailInstruction {
  /** Our transaction id: the idempotency key at the rail (a retry with it never sends money twice). */
  id: string;
  direction: 'PAYOUT' | 'PULL';
  /** Minor units of `currency`. */
  amount: bigint;
  currency: string;
  account: { id: string; accountType: string; accountInfo: Record<string, unknown> };
  reference?: string | undefined;
  createdAtMs: number;
}

/** What the rail said of an instruction: a final outcome, or that it took it and has a reference to follow. */
export type RailAnswer =
  | { status: 'PENDING'; railReference?: string | undefined }
  | { status: 'COMPLETED'; railReference?: string | undefined }
  | { status: 'FAILED'; railReference?: string | undefined; reason: FailureReason };

/**
 * The rail refused the instruction before anything could have left (its validation said no): the payment
 * may fail and be refunded at once. Any other error from a connector call means the outcome is unknown.
 */
export class RailRefused extends Error {
  constructor(
    message: string,
    readonly reason: FailureReason,
  ) {
    super(message);
  }
}

/** A normalized event, whether polled or called back. */
export interface RailEvent {
  /** The message's own id at the connector: the same id again is a replay. */
  messageId: string;
  /** Our transaction id, or the rail's reference, or both. */
  transactionId?: string | undefined;
  railReference?: string | undefined;
  status: 'PENDING' | 'COMPLETED' | 'FAILED' | 'RETURNED';
  reason?: FailureReason | undefined;
  occurredAtMs: number;
  /** What the rail booked (a bank entry's amount, in minor units of `currency`), kept for reconciliation. */
  amount?: bigint | undefined;
  currency?: string | undefined;
  /** The bank file (bank_files id) the event came in. */
  bankFileId?: string | undefined;
  /** A bank file's status report (pain.002) or booked entry (camt.054). */
  kind?: 'STATUS_REPORT' | 'ENTRY' | undefined;
  /** What the rail said beyond the status, for an operator (a bank's reason code and words). */
  note?: string | undefined;
}

/** An inbound callback as the HTTP layer received it: its headers and its raw bytes (signatures cover them). */
export interface InboundCallback {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A callback that is not the connector's: unsigned, forged, stale, or not in its shape. */
export class CallbackRefused extends Error {
  constructor(
    message: string,
    readonly status: 400 | 401,
  ) {
    super(message);
  }
}

export interface RailConnector {
  /** The name the operator gave it in CONNECTORS_FILE (`manual` and `sandbox` are built in). */
  readonly name: string;
  /** What it can do; the core calls only what is declared. */
  readonly capabilities: ConnectorCapabilities;
  /** Hands one instruction to the rail, idempotent on `instruction.id`. Throws RailRefused, or anything if unknown. */
  submit(instruction: RailInstruction): Promise<RailAnswer>;
  /** The rail's current answer for one of our payments (capability `poll`). */
  poll(instruction: RailInstruction, railReference: string | undefined): Promise<RailAnswer | undefined>;
  /** Asks the rail to stop a payment not yet settled (capability `cancel`); answers its state after. */
  cancel(instruction: RailInstruction, railReference: string | undefined): Promise<RailAnswer>;
  /** Verifies an inbound callback and translates it into events (capability `callbacks`); or CallbackRefused. */
  verifyCallback(callback: InboundCallback, nowMs: number): RailEvent[];
}
