/**
 * Row types of every table, as Kysely sees them. Integers are bigint on both engines; timestamps are
 * epoch milliseconds (bigint) so range filters and keyset pages compare numbers on either engine;
 * flexible sub-objects are JSON text.
 */
import type { Kysely, Transaction } from 'kysely';
import type { ExternalAccountStatus } from '../domain/account-types.ts';
import type { Environment } from '../domain/environments.ts';
import type { FaultMethod } from '../domain/sandbox-faults.ts';
import type { Funding, TransactionFlow, TransactionStatus, TransactionType } from '../domain/transactions.ts';

export interface PlatformsTable {
  id: string;
  name: string;
  created_at: bigint;
}

export interface ApiTokensTable {
  id: string;
  platform_id: string;
  environment: Environment;
  name: string;
  /** Comma-separated VIEW,TRANSACT,MANAGE. */
  permissions: string;
  /** HMAC-SHA256(server key, secret), hex. */
  secret_hash: string;
  created_at: bigint;
  updated_at: bigint;
  revoked_at: bigint | null;
}

export interface PlatformConfigsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  uma_domain: string;
  webhook_endpoint: string | null;
  /** JSON array of PlatformCurrencyConfig (older rows: bare currency codes; see platforms.parseCurrencies). */
  supported_currencies: string;
  /** Sandbox only: how far this platform's sandbox clock runs ahead of real time. */
  clock_offset_ms: bigint;
  webhook_envelope: WebhookEnvelope;
  /** Scope time at which an event to the current endpoint last ran out of retries; null once one is delivered. */
  webhook_failing_since: bigint | null;
  created_at: bigint;
  updated_at: bigint;
}

export interface CustomersTable {
  id: string;
  platform_id: string;
  environment: Environment;
  platform_customer_id: string;
  customer_type: 'INDIVIDUAL' | 'BUSINESS';
  uma_address: string;
  /** kycStatus for individuals, kybStatus for businesses. */
  verification_status: string;
  /** JSON: the type-specific fields (fullName, birthDate, nationality, address, businessInfo). */
  profile: string;
  is_deleted: bigint;
  created_at: bigint;
  updated_at: bigint;
}

export type LedgerAccountKind = 'CUSTOMER' | 'PLATFORM' | 'SETTLEMENT' | 'IN_FLIGHT' | 'FX_LIQUIDITY' | 'FEE_REVENUE';

export interface LedgerAccountsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  kind: LedgerAccountKind;
  /** The customer id for CUSTOMER accounts, 'platform' for all others (a unique key needs no nulls). */
  owner: string;
  currency: string;
  /**
   * Kept for CUSTOMER and PLATFORM accounts, which may never go negative (a CHECK and a conditional
   * update both guard it). System accounts keep 0 here: their balance is the sum of their postings,
   * so they are never a hot row that every payment must lock.
   */
  balance: bigint;
  created_at: bigint;
  updated_at: bigint;
}

export interface JournalEntriesTable {
  id: string;
  platform_id: string;
  environment: Environment;
  /** What moved the money: SANDBOX_FUNDING, TRANSFER_OUT, REFUND, ... */
  kind: string;
  /** The transaction (or other object) this entry belongs to, when there is one. */
  reference: string | null;
  created_at: bigint;
}

export interface PostingsTable {
  entry_id: string;
  line: bigint;
  account_id: string;
  currency: string;
  /** Signed: positive credits the account's balance, negative debits it. Sums to zero per entry and currency. */
  amount: bigint;
}

export interface EventsTable {
  /** `Webhook:<uuid>`, also the delivery's idempotency key for receivers. */
  id: string;
  platform_id: string;
  environment: Environment;
  /** OBJECT.EVENT form, e.g. OUTGOING_PAYMENT.COMPLETED; the legacy envelope is derived from it. */
  type: string;
  object_id: string;
  /** JSON snapshot of the resource as GET returned it at that moment. */
  data: string;
  created_at: bigint;
  delivery_state: DeliveryState;
  /** Grows by one on each redelivery; jobs of an earlier run are stale and do nothing. */
  delivery_run: bigint;
  delivery_updated_at: bigint | null;
}

export type DeliveryState = 'PENDING' | 'DELIVERED' | 'FAILED' | 'NO_ENDPOINT' | 'NOT_IN_ENVELOPE';
export type WebhookEnvelope = 'LEGACY' | 'CURRENT';

export interface WebhookAttemptsTable {
  event_id: string;
  run: bigint;
  /** 1-based within the run. */
  attempt: bigint;
  url: string;
  /** Scope time. */
  started_at: bigint;
  /** Null when no HTTP answer came back (connection error, timeout). */
  status_code: bigint | null;
  latency_ms: bigint;
  error: string | null;
  /** The first 1 KB of the answer, as text. */
  response_body: string | null;
  /** The headers sent, as a JSON object (signatures included: they are not secrets); null before 019. */
  request_headers: string | null;
  /** The exact body sent, as text; null before 019. */
  request_body: string | null;
}

/** The last ledger check of one platform environment (ledger/checks.ts). Times are wall-clock ms. */
export interface LedgerChecksTable {
  platform_id: string;
  environment: Environment;
  /** When the check now running (or the last one) began; a second checker leaves a fresh one alone. */
  started_at: bigint;
  /** When the last finished check finished; null until one has. */
  checked_at: bigint | null;
  duration_ms: bigint | null;
  /** How many journal entries the last check read. */
  entries: bigint | null;
  /** JSON array of {invariant, detail}: empty when the ledger balanced. */
  violations: string | null;
}

export type SigningAlgorithm = 'ECDSA_P256' | 'ED25519';

export interface WebhookKeysTable {
  platform_id: string;
  environment: Environment;
  algorithm: SigningAlgorithm;
  /** PEM SPKI. */
  public_key: string;
  /** AES-256-GCM sealed PKCS#8 DER (see webhooks/keys.ts); never stored in clear. */
  sealed_private_key: string;
  created_at: bigint;
}

export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

export interface JobsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  kind: string;
  payload: string;
  status: JobStatus;
  /** Wall-clock ms. Advancing a sandbox clock pulls the platform's pending jobs earlier by the same amount. */
  run_at: bigint;
  lease_until: bigint | null;
  attempts: bigint;
  last_error: string | null;
  created_at: bigint;
  updated_at: bigint;
}

export interface ExternalAccountsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  /** Null for the platform's own accounts. */
  customer_id: string | null;
  /** customer_id, or 'platform': the duplicate rule's unique key needs a non-null owner. */
  owner: string;
  status: ExternalAccountStatus;
  currency: string;
  account_type: string;
  /** The type's primary identifier (account number, IBAN, CLABE, PIX key, phone, address, ...). */
  primary_identifier: string;
  /** JSON: accountInfo as the caller gave it (platformAccountId removed), beneficiary included. */
  account_info: string;
  platform_account_id: string | null;
  /** 0 or 1; a partial unique index allows one 1 per customer. */
  default_uma_deposit: bigint;
  beneficiary_verification_status: string;
  /** The holder's name as the rail returned it, when it returned one. */
  beneficiary_verified_name: string | null;
  crypto_network: string | null;
  /** FIRST_PARTY (the customer's own account) or THIRD_PARTY, as the platform declared it. */
  ownership_type: string | null;
  created_at: bigint;
  updated_at: bigint;
}

export interface TransactionsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  type: TransactionType;
  flow: TransactionFlow;
  status: TransactionStatus;
  /** JSON: the source as the API shows it ({sourceType, accountId, currency} …). */
  source: string;
  destination: string;
  source_account_id: string | null;
  destination_account_id: string | null;
  /** Set once the money is in flight (debited or received); null while a quote awaits funding. */
  funding: Funding | null;
  customer_id: string | null;
  platform_customer_id: string | null;
  sender_uma_address: string | null;
  receiver_uma_address: string | null;
  sent_amount: bigint;
  sent_currency: string;
  received_amount: bigint;
  received_currency: string;
  fees: bigint;
  /** The rate as the API shows it (a JSON number, kept as text to round-trip exactly). */
  exchange_rate: string | null;
  rate_details: string | null;
  quote_id: string | null;
  description: string | null;
  /** Payment reference (realtime funding, reconciliation). */
  reference: string | null;
  payment_instructions: string | null;
  counterparty_information: string | null;
  /** The rail's planned outcome (sandbox scenario, or MANUAL for the production connector). */
  outcome: string;
  failure_reason: string | null;
  /** JSON: why an incoming payment was rejected or failed (domain/incoming-payments FailureDetails). */
  failure_details: string | null;
  /** Free text that travels with the payment to the recipient (at most 80 characters). */
  remittance_information: string | null;
  /** When the platform confirmed the customer got the receipt (POST /transactions/{id}/confirm). */
  receipt_delivery_confirmed_at: bigint | null;
  /** JSON refund object, once a refund began. */
  refund: string | null;
  settled_at: bigint | null;
  created_at: bigint;
  updated_at: bigint;
}

export interface InvitationsTable {
  /** The random code in the invitation link; unique across every platform (claimers know only the code). */
  code: string;
  platform_id: string;
  environment: Environment;
  inviter_uma: string;
  inviter_customer_id: string;
  status: 'PENDING' | 'CLAIMED' | 'EXPIRED' | 'CANCELLED';
  first_name: string | null;
  /** Display only, in the smallest unit of amount_currency; nothing moves money on claim. */
  amount_to_send: bigint | null;
  amount_currency: string | null;
  invitee_uma: string | null;
  claimed_at: bigint | null;
  expires_at: bigint | null;
  created_at: bigint;
  updated_at: bigint;
}

/** A quote; its status is its transaction's (migration 023). */
export interface QuotesTable {
  id: string;
  platform_id: string;
  environment: Environment;
  source: string;
  destination: string;
  sending_account_id: string | null;
  receiving_account_id: string | null;
  customer_id: string | null;
  sending_uma_address: string | null;
  receiving_uma_address: string | null;
  sending_currency: string;
  receiving_currency: string;
  total_sending_amount: bigint;
  total_receiving_amount: bigint;
  fees: bigint;
  exchange_rate: string;
  rate_details: string;
  transaction_id: string;
  payment_instructions: string | null;
  reference: string | null;
  counterparty_information: string | null;
  expires_at: bigint;
  created_at: bigint;
  updated_at: bigint;
}

export interface IdempotencyKeysTable {
  platform_id: string;
  environment: Environment;
  operation: string;
  key: string;
  /** SHA-256 of the canonical request body: the same key with another body is refused. */
  request_hash: string;
  response_status: bigint;
  response_body: string;
  created_at: bigint;
}

export interface BeneficialOwnersTable {
  id: string;
  platform_id: string;
  environment: Environment;
  customer_id: string;
  /** JSON array of roles (UBO, DIRECTOR, ...). */
  roles: string;
  ownership_percentage: bigint;
  /** JSON: personalInfo as given. */
  personal_info: string;
  kyc_status: 'PENDING' | 'APPROVED' | 'REJECTED';
  created_at: bigint;
  updated_at: bigint;
}

/** One row per stored file content (sha256): the lock that keeps placing and removing a shared file safe. */
export interface DocumentFilesTable {
  sha256: string;
  size_bytes: bigint;
  created_at: bigint;
}

export interface DocumentsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  /** `Customer:<id>` or `BeneficialOwner:<id>`. */
  holder_id: string;
  /** The customer the document serves: the holder itself, or the beneficial owner's business. */
  customer_id: string;
  document_type: string;
  country: string;
  file_name: string;
  side: 'FRONT' | 'BACK' | null;
  document_number: string | null;
  sha256: string;
  size_bytes: bigint;
  content_type: string;
  /** The verification that submitted it for review; set, the document can no longer be deleted. */
  submitted_verification_id: string | null;
  created_at: bigint;
  updated_at: bigint;
}

export interface VerificationsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  customer_id: string;
  status: string;
  /** JSON array of verification errors. */
  errors: string;
  created_at: bigint;
  updated_at: bigint;
}

export interface ReceiverLookupsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  receiver_type: 'UMA_ADDRESS' | 'EXTERNAL_ACCOUNT';
  /** The UMA address, or the ExternalAccount id. */
  receiver: string;
  /** Set when the UMA address is one of the platform's own customers. */
  receiver_customer_id: string | null;
  /** Sandbox test addresses: SUCCESS, PENDING_LONG or FAIL_COMPLIANCE, for quotes to act out later. */
  sandbox_behaviour: string | null;
  sender_customer_id: string;
  sending_currency: string;
  /** JSON: [{code, estimatedExchangeRate, min, max}] as shown to the caller. */
  supported_currencies: string;
  /** JSON: [{name, mandatory}]. */
  required_payer_data_fields: string;
  created_at: bigint;
}

/** Installation facts, one row per name (the server key's check value). */
export interface ServerSettingsTable {
  name: string;
  value: string;
  created_at: bigint;
}

/** A sandbox workspace's saved state (migration 014). */
export interface SandboxSnapshotsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  name: string | null;
  /** JSON: one array of rows per table, bigints tagged (see services/sandbox-workspaces.ts). */
  data: string;
  row_count: bigint;
  created_at: bigint;
}

export interface SandboxRequestsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  /** When the request arrived, wall time (ms). */
  created_at: bigint;
  method: string;
  path: string;
  /** Null when a fault rule dropped the connection. */
  status: bigint | null;
  latency_ms: bigint;
  request_id: string;
  idempotency_key: string | null;
  error_code: string | null;
  fault_id: string | null;
  /** JSON with every secret redacted, kept only when the server keeps bodies (SANDBOX_REQUEST_LOG_BODIES). */
  request_body: string | null;
  response_body: string | null;
}

export interface SandboxFaultsTable {
  id: string;
  platform_id: string;
  environment: Environment;
  route: string;
  method: FaultMethod | null;
  probability_ppm: bigint;
  latency_ms: bigint;
  action: 'answer' | 'drop' | 'delay';
  answer_status: bigint | null;
  answer_code: string | null;
  remaining: bigint | null;
  created_at: bigint;
}

/** The database, and a transaction on it, as Kysely types them. */
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

/** A payment handed to a connector that calls out (migration 024). */
export interface RailPaymentsTable {
  transaction_id: string;
  platform_id: string;
  environment: Environment;
  connector: string;
  rail_reference: string | null;
  /** BATCHING: a batch-file connector's payment waiting for its file (PENDING); see migration 024 for the rest. */
  state: 'SUBMITTING' | 'BATCHING' | 'PENDING' | 'DONE';
  /** Calls made to the rail for it (submits and polls). */
  calls: bigint;
  last_error: string | null;
  /** Why it waits for an answer or a person; null when nothing is wrong. */
  attention: string | null;
  attention_since: bigint | null;
  created_at: bigint;
  updated_at: bigint;
  /** The pain.001 file it left in (migration 025); null until its file is released. */
  bank_file_id: string | null;
}

/** An event a connector reported (migration 024). */
export interface RailEventsTable {
  id: string;
  connector: string;
  message_id: string;
  transaction_id: string | null;
  rail_reference: string | null;
  status: string;
  failure_reason: string | null;
  occurred_at: bigint;
  received_at: bigint;
  result: 'APPLIED' | 'NO_CHANGE' | 'UNKNOWN_PAYMENT';
  note: string | null;
  /** The bank file the event came in (migration 025). */
  bank_file_id: string | null;
  /** What the bank booked, in minor units of `currency`, for reconciliation. */
  amount: bigint | null;
  currency: string | null;
  kind: 'STATUS_REPORT' | 'ENTRY' | null;
}

/** A file that left for the bank or came back from it (migration 025). */
export interface BankFilesTable {
  id: string;
  connector: string;
  direction: 'OUT' | 'IN';
  kind: 'pain.001' | 'pain.002' | 'camt.054' | 'camt.053';
  msg_id: string;
  /** The file's name (OUT: `<MsgId>.xml` in the outbox). */
  name: string;
  sha256: string;
  /** OUT: the one currency of its payments. */
  currency: string | null;
  nb_of_txs: bigint;
  /** OUT: the sum of its amounts in minor units of `currency`. */
  ctrl_sum: bigint | null;
  /** OUT: RELEASED or REFUSED (its schema said no); IN: APPLIED or REFUSED. */
  state: 'RELEASED' | 'REFUSED' | 'APPLIED';
  /** Why it was refused: the element and the line. */
  error: string | null;
  created_at: bigint;
  applied_at: bigint | null;
}

/** A credit entry of a bank notification, matched to a quote or not (migration 025). */
export interface BankCreditsTable {
  id: string;
  connector: string;
  bank_file_id: string;
  /** The entry's AcctSvcrRef, else NtryRef, else the file's msg id and the entry's index. */
  entry_key: string;
  /** The remittance reference (Ustrd, or CdtrRefInf/Ref). */
  reference: string | null;
  amount: bigint;
  currency: string;
  booked_at: bigint;
  result: 'FUNDED' | 'MISMATCH' | 'UNMATCHED';
  quote_id: string | null;
  transaction_id: string | null;
  created_at: bigint;
}

export interface Database {
  platforms: PlatformsTable;
  api_tokens: ApiTokensTable;
  platform_configs: PlatformConfigsTable;
  customers: CustomersTable;
  ledger_accounts: LedgerAccountsTable;
  journal_entries: JournalEntriesTable;
  postings: PostingsTable;
  events: EventsTable;
  jobs: JobsTable;
  external_accounts: ExternalAccountsTable;
  transactions: TransactionsTable;
  quotes: QuotesTable;
  idempotency_keys: IdempotencyKeysTable;
  invitations: InvitationsTable;
  beneficial_owners: BeneficialOwnersTable;
  document_files: DocumentFilesTable;
  documents: DocumentsTable;
  verifications: VerificationsTable;
  receiver_lookups: ReceiverLookupsTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_keys: WebhookKeysTable;
  server_settings: ServerSettingsTable;
  sandbox_snapshots: SandboxSnapshotsTable;
  ledger_checks: LedgerChecksTable;
  sandbox_requests: SandboxRequestsTable;
  sandbox_faults: SandboxFaultsTable;
  rail_payments: RailPaymentsTable;
  rail_events: RailEventsTable;
  bank_files: BankFilesTable;
  bank_credits: BankCreditsTable;
}
