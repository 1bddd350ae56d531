import { v5 as uuidv5 } from 'uuid';
import { CURRENCY_CODES } from '../domain/currencies.ts';
import type { Tx } from '../store/db.ts';
import type { LedgerAccountKind } from '../store/schema.ts';
import type { Scope } from '../context.ts';

export type SystemAccountKind = Exclude<LedgerAccountKind, 'CUSTOMER' | 'PLATFORM'>;
export const SYSTEM_ACCOUNT_KINDS: readonly SystemAccountKind[] = [
  'SETTLEMENT',
  'IN_FLIGHT',
  'FX_LIQUIDITY',
  'FEE_REVENUE',
];

const SYSTEM_NAMESPACE = '6f1c1f7e-2d0b-4b8e-9a52-6c1f0a4d2b10';

/**
 * System accounts have ids derived from what they are, so posting code names them without a lookup.
 * They carry no stored balance (see LedgerAccountsTable.balance), which is how we tell them apart.
 */
export function systemAccountId(scope: Scope, kind: SystemAccountKind, currency: string): string {
  const name = `${scope.platformId}/${scope.environment}/${kind}/${currency}`;
  let id = systemAccountIds.get(name);
  if (id === undefined) {
    // A SHA-1 per posting otherwise; bounded, since platforms come and go.
    if (systemAccountIds.size >= 10_000) systemAccountIds.clear();
    systemAccountIds.set(name, (id = `SystemAccount:${uuidv5(name, SYSTEM_NAMESPACE)}`));
  }
  return id;
}
const systemAccountIds = new Map<string, string>();

export function tracksBalance(accountId: string): boolean {
  return accountId.startsWith('InternalAccount:');
}

/** Creates the system accounts of one platform environment, one of each kind per currency. */
export async function createSystemAccounts(trx: Tx, scope: Scope, nowMs: number): Promise<void> {
  const rows = CURRENCY_CODES.flatMap((currency) =>
    SYSTEM_ACCOUNT_KINDS.map((kind) => ({
      id: systemAccountId(scope, kind, currency),
      platform_id: scope.platformId,
      environment: scope.environment,
      kind,
      owner: 'platform',
      currency,
      balance: 0n,
      created_at: BigInt(nowMs),
      updated_at: BigInt(nowMs),
    })),
  );
  await trx.insertInto('ledger_accounts').values(rows).execute();
}
