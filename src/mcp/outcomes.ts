// The sandbox's suffix tables (rails/sandbox-outcomes.ts) under names a person or an agent can say:
// `completes`, `fails: INVALID_BANK_ACCOUNT`, `returned after completion`, `takes 6 minutes`. The names
// are derived from the tables themselves, so a row added there is a name here, and a name here always
// picks the suffix the rail reads: nothing is simulated twice.
import { SANDBOX_VERIFICATION } from '../domain/beneficiary-verification.ts';
import { QUOTE_OUTCOMES, TRANSFER_IN_OUTCOMES, TRANSFER_OUTCOMES, type Outcome } from '../rails/sandbox-outcomes.ts';

/** Which table applies: a transfer-out (or transfer-in) to the account, or a quote to it, executed. */
export const PAYMENT_KINDS = ['transfer-out', 'transfer-in', 'quote'] as const;
export type PaymentKind = (typeof PAYMENT_KINDS)[number];

const TABLES: Record<PaymentKind, Readonly<Record<string, Outcome>>> = {
  'transfer-out': TRANSFER_OUTCOMES,
  'transfer-in': TRANSFER_IN_OUTCOMES,
  quote: QUOTE_OUTCOMES,
};

export interface NamedOutcome {
  name: string;
  /** The last three digits an account needs for it. */
  suffix: string;
  /** What happens, in a sentence. */
  description: string;
}

function duration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  return `${ms / 1000} seconds`;
}

/** The name of a table's row; undefined for what the sandbox rail never picks (manual, connector). */
export function outcomeName(outcome: Outcome): string | undefined {
  switch (outcome.kind) {
    case 'COMPLETE':
      return 'completes';
    case 'COMPLETE_AFTER':
      return `takes ${duration(outcome.delayMs)}`;
    case 'COMPLETE_THEN_RETURN':
      return 'returned after completion';
    case 'FAIL': {
      const why = outcome.refundReason === 'TRANSACTION_FAILED' ? '' : `, refund reason ${outcome.refundReason}`;
      return `fails: ${outcome.reason}${why}${outcome.refund === 'FAILED' ? ', refund fails' : ''}`;
    }
    case 'FAIL_AFTER':
      return `takes ${duration(outcome.delayMs)}, then fails: ${outcome.reason}`;
    default:
      return undefined;
  }
}

function describe(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'COMPLETE':
      return 'COMPLETED at once';
    case 'COMPLETE_AFTER':
      return `PROCESSING for ${duration(outcome.delayMs)} (advance the sandbox clock), then COMPLETED`;
    case 'COMPLETE_THEN_RETURN':
      return (
        `COMPLETED, then returned after ${duration(outcome.returnAfterMs)}: FAILED with ${outcome.reason}, ` +
        'refunded'
      );
    case 'FAIL':
      return outcome.refund === 'FAILED'
        ? `FAILED with ${outcome.reason}; the refund FAILED too (the money stays in flight for an operator)`
        : `FAILED at once with ${outcome.reason}, refunded (refund reason ${outcome.refundReason})`;
    case 'FAIL_AFTER':
      return (
        `PROCESSING for ${duration(outcome.delayMs)}, then FAILED with ${outcome.reason}, refunded ` +
        `(refund reason ${outcome.refundReason})`
      );
    default:
      return outcome.kind;
  }
}

/**
 * A suffix that no sandbox table names, for `completes`: no delay, no failure, and a beneficiary check that
 * answers MATCHED (the account-creation table has rows of its own, 102 to 109).
 */
function plainSuffix(): string {
  for (let n = 0; n < 1000; n++) {
    const suffix = String(n).padStart(3, '0');
    const named = Object.values(TABLES).some((table) => suffix in table) || suffix in SANDBOX_VERIFICATION;
    if (!named) return suffix;
  }
  throw new Error('every suffix is in a sandbox table');
}

/** The outcomes a payment of this kind can be given, each with its suffix; `completes` first. */
export function namedOutcomes(kind: PaymentKind): NamedOutcome[] {
  const rows: NamedOutcome[] = [{ name: 'completes', suffix: plainSuffix(), description: 'COMPLETED at once' }];
  for (const [suffix, outcome] of Object.entries(TABLES[kind])) {
    const name = outcomeName(outcome);
    if (name && !rows.some((row) => row.name === name)) rows.push({ name, suffix, description: describe(outcome) });
  }
  return rows;
}

/** How people write the same name: any case, spaces, `fails with X`, `takes 6 min`, `then completes`. */
function canonical(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^fails? (with|:)\s*/, 'fails: ')
    .replace(/^fails:(?=\S)/, 'fails: ')
    .replace(/\bmins?\b/g, 'minutes')
    .replace(/\bsecs?\b/g, 'seconds')
    .replace(/\b1 minutes\b/, '1 minute')
    .replace(/,? then completes?$/, '');
}

/** The row a name picks for a payment of this kind, or the names it could have been. */
export function outcomeNamed(kind: PaymentKind, name: string): { found: NamedOutcome } | { known: string[] } {
  const rows = namedOutcomes(kind);
  const wanted = canonical(name);
  const found = rows.find((row) => canonical(row.name) === wanted);
  return found ? { found } : { known: rows.map((row) => row.name) };
}

/** What an account with this suffix does under every table: what a tool answers next to the one asked for. */
export function outcomesOfSuffix(suffix: string): Record<PaymentKind, string> {
  const complete: Outcome = { kind: 'COMPLETE' };
  return {
    'transfer-out': outcomeName(TRANSFER_OUTCOMES[suffix] ?? complete) ?? 'completes',
    'transfer-in': outcomeName(TRANSFER_IN_OUTCOMES[suffix] ?? complete) ?? 'completes',
    quote: outcomeName(QUOTE_OUTCOMES[suffix] ?? complete) ?? 'completes',
  };
}

/** The sandbox tables, as the `sandbox tables` resource shows them. */
export function sandboxTables() {
  const beneficiaryCheck = Object.entries(SANDBOX_VERIFICATION).map(([suffix, row]) => ({
    suffix,
    result: 'status' in row ? row.status : `refused: ${row.error().code}`,
  }));
  return {
    about:
      'Outcomes are picked by the last three digits of the external account (before any @). ' +
      'The names are what the create_customer tool takes as `outcome`.',
    outcomes: Object.fromEntries(PAYMENT_KINDS.map((kind) => [kind, namedOutcomes(kind)])),
    beneficiaryCheck: { otherwise: 'MATCHED', rows: beneficiaryCheck },
  };
}
