// What a pain.001 says of each payment, read from the database a page at a time: the payments a file holds
// (rail_payments.bank_file_id), in transaction-id order, with the external account they pay to. The same
// reading writes a file and writes it again byte for byte after a crash (recover.ts): every field it reads
// is fixed once the payment was created.
import { endToEndIdOf } from '../../rails/iso20022/ids.ts';
import type { CreditTransfer, PostalAddress } from '../../rails/iso20022/pain001.ts';
import type { Ctx } from '../../context.ts';

/** Payments read per query while a file is written. */
export const ROWS_PER_PAGE = 500;

/** A payment of a file, as the release needs it. */
export interface FilePayment {
  id: string;
  platformId: string;
  environment: 'production' | 'sandbox';
}

const asRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const asText = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

/** The creditor of an external account's accountInfo: its holder's name and address, its account and bank. */
export function creditorOf(accountInfo: Record<string, unknown>): CreditTransfer['creditor'] {
  const beneficiary = asRecord(accountInfo.beneficiary);
  const business = asRecord(beneficiary.businessInfo);
  const address = asRecord(beneficiary.address);
  const name = asText(beneficiary.fullName) ?? asText(beneficiary.legalName) ?? asText(business.legalName) ?? 'UNKNOWN';
  const postal: PostalAddress = {
    line1: asText(address.line1),
    line2: asText(address.line2),
    city: asText(address.city),
    state: asText(address.state),
    postalCode: asText(address.postalCode),
    country: asText(address.country),
  };
  return {
    name,
    iban: asText(accountInfo.iban)?.toUpperCase(),
    accountNumber: asText(accountInfo.accountNumber) ?? asText(accountInfo.clabeNumber),
    bic: asText(accountInfo.swiftBic) ?? asText(accountInfo.swiftCode) ?? asText(accountInfo.bic),
    address: Object.values(postal).some(Boolean) ? postal : undefined,
  };
}

/** One page of a file's payments after `afterId`, with their transfers. */
export async function filePage(
  ctx: Ctx,
  bankFileId: string,
  afterId: string,
): Promise<{ payments: FilePayment[]; transfers: CreditTransfer[] }> {
  const rows = await ctx.store.db
    .selectFrom('rail_payments')
    .innerJoin('transactions', 'transactions.id', 'rail_payments.transaction_id')
    .innerJoin('external_accounts', 'external_accounts.id', 'transactions.destination_account_id')
    .select([
      'transactions.id',
      'transactions.platform_id',
      'transactions.environment',
      'transactions.received_amount',
      'transactions.reference',
      'transactions.remittance_information',
      'transactions.description',
      'external_accounts.account_info',
    ])
    .where('rail_payments.bank_file_id', '=', bankFileId)
    .where('rail_payments.transaction_id', '>', afterId)
    .orderBy('rail_payments.transaction_id')
    .limit(ROWS_PER_PAGE)
    .execute();
  return {
    payments: rows.map((r) => ({ id: r.id, platformId: r.platform_id, environment: r.environment })),
    transfers: rows.map((r) => ({
      endToEndId: endToEndIdOf(r.id),
      amount: r.received_amount,
      creditor: creditorOf(asRecord(JSON.parse(r.account_info))),
      remittance: r.remittance_information ?? r.reference ?? r.description ?? undefined,
    })),
  };
}

/**
 * Every page of a file's payments, as the writer takes them; `seen` gets each page's payments too (the
 * release needs their ids and scopes, in the file's order).
 */
export async function* filePages(
  ctx: Ctx,
  bankFileId: string,
  seen: (payments: FilePayment[]) => void,
): AsyncGenerator<CreditTransfer[]> {
  let after = '';
  for (;;) {
    const page = await filePage(ctx, bankFileId, after);
    if (page.payments.length === 0) return;
    seen(page.payments);
    yield page.transfers;
    after = page.payments[page.payments.length - 1]?.id ?? after;
    if (page.payments.length < ROWS_PER_PAGE) return;
  }
}
