/**
 * Which external accounts can be pulled from (debited by us, with the holder's mandate): the account types
 * whose rails have a direct-debit scheme. Everything else (mobile money, PIX, SPEI, UPI, local bank
 * transfers, wallets) can only be paid into. Transfer-in and quotes with an external source use this.
 */
export const PULL_RAIL_BY_ACCOUNT_TYPE: Readonly<Record<string, string>> = {
  US_ACCOUNT: 'ACH debit',
  USD_ACCOUNT: 'ACH debit',
  IBAN: 'SEPA Direct Debit',
  IBAN_ACCOUNT: 'SEPA Direct Debit',
  EUR_ACCOUNT: 'SEPA Direct Debit',
  GBP_ACCOUNT: 'Bacs Direct Debit',
  CAD_ACCOUNT: 'Pre-Authorized Debit',
};

export function isPullable(accountType: string): boolean {
  return Object.hasOwn(PULL_RAIL_BY_ACCOUNT_TYPE, accountType);
}
