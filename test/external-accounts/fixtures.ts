/**
 * One valid create request per account type, built around a chosen 3-digit tail so the same builders
 * serve the validity tables and the sandbox-suffix tables. A counter keeps identifiers distinct, so no
 * test trips the duplicate rule by accident.
 */
import type { AccountType } from '../../src/domain/account-types.ts';

let serial = Math.floor(Math.random() * 1000);
const next = (width: number) => String(++serial).padStart(width, '0').slice(-width);

/** ISO 13616 check digits for a country and BBAN: the IBAN's mod-97 remainder must be 1. */
export function iban(country: string, bban: string): string {
  const numeric = (bban + country + '00').replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rem = 0;
  for (const d of numeric) rem = (rem * 10 + Number(d)) % 97;
  return `${country}${String(98 - rem).padStart(2, '0')}${bban}`;
}

export const LEGACY_INDIVIDUAL = {
  beneficiaryType: 'INDIVIDUAL',
  fullName: 'Jane Doe',
  birthDate: '1990-01-15',
  nationality: 'US',
};
export const INDIVIDUAL = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Doe' };
export const ADDRESS = { line1: '1 Main St', city: 'Nairobi', postalCode: '00100', country: 'KE' };
export const BUSINESS_FLAT = { beneficiaryType: 'BUSINESS', legalName: 'Acme Ltd', taxId: 'TAX-1' };
export const BUSINESS_INFO = {
  beneficiaryType: 'BUSINESS',
  businessInfo: { legalName: 'Acme Ltd', taxId: 'TAX-1' },
  address: ADDRESS,
};

export interface AccountRequest {
  currency: string;
  accountInfo: Record<string, unknown>;
  cryptoNetwork?: string | undefined;
  [key: string]: unknown;
}

/** A valid request of each type whose primary identifier ends in `tail` (3 digits). */
export const BUILD: Record<AccountType, (tail: string) => AccountRequest> = {
  US_ACCOUNT: (t) => ({
    currency: 'USD',
    accountInfo: {
      accountType: 'US_ACCOUNT',
      accountNumber: next(7) + t,
      routingNumber: '021000021',
      accountCategory: 'CHECKING',
      bankName: 'Chase',
      beneficiary: LEGACY_INDIVIDUAL,
    },
  }),
  USD_ACCOUNT: (t) => ({
    currency: 'USD',
    accountInfo: {
      accountType: 'USD_ACCOUNT',
      paymentRails: ['ACH', 'WIRE'],
      accountNumber: next(7) + t,
      routingNumber: '021000021',
      bankName: 'Chase',
      beneficiary: INDIVIDUAL,
    },
  }),
  CLABE: (t) => ({
    currency: 'MXN',
    accountInfo: {
      accountType: 'CLABE',
      clabeNumber: '032180' + next(9) + t,
      bankName: 'BBVA',
      beneficiary: LEGACY_INDIVIDUAL,
    },
  }),
  MXN_ACCOUNT: (t) => ({
    currency: 'MXN',
    accountInfo: {
      accountType: 'MXN_ACCOUNT',
      paymentRails: ['SPEI'],
      clabeNumber: '032180' + next(9) + t,
      beneficiary: INDIVIDUAL,
    },
  }),
  PIX: (t) => ({
    currency: 'BRL',
    accountInfo: {
      accountType: 'PIX',
      pixKey: `user${next(6)}.${t}@pix.com.br`,
      pixKeyType: 'EMAIL',
      bankName: 'Nubank',
      beneficiary: LEGACY_INDIVIDUAL,
    },
  }),
  BRL_ACCOUNT: (t) => ({
    currency: 'BRL',
    accountInfo: {
      accountType: 'BRL_ACCOUNT',
      paymentRails: ['PIX'],
      pixKey: next(8) + t,
      pixKeyType: 'CPF',
      taxId: '12345678901',
      beneficiary: INDIVIDUAL,
    },
  }),
  IBAN: (t) => ({
    currency: 'EUR',
    accountInfo: {
      accountType: 'IBAN',
      iban: iban('DE', '37040044' + next(7) + t),
      swiftBic: 'COBADEFFXXX',
      bankName: 'Commerzbank',
      beneficiary: LEGACY_INDIVIDUAL,
    },
  }),
  IBAN_ACCOUNT: (t) => ({
    currency: 'EUR',
    accountInfo: {
      accountType: 'IBAN_ACCOUNT',
      iban: iban('FR', '3000600001' + next(8) + t),
      beneficiary: LEGACY_INDIVIDUAL,
    },
  }),
  EUR_ACCOUNT: (t) => ({
    currency: 'EUR',
    accountInfo: {
      accountType: 'EUR_ACCOUNT',
      paymentRails: ['SEPA'],
      iban: iban('NL', 'ABNA' + next(7) + t),
      swiftCode: 'ABNANL2A',
      beneficiary: { ...INDIVIDUAL, address: { ...ADDRESS, country: 'NL' } },
    },
  }),
  UPI: (t) => ({
    currency: 'INR',
    accountInfo: { accountType: 'UPI', vpa: `user${next(5)}.${t}@okaxis`, beneficiary: LEGACY_INDIVIDUAL },
  }),
  INR_ACCOUNT: (t) => ({
    currency: 'INR',
    accountInfo: {
      accountType: 'INR_ACCOUNT',
      paymentRails: ['UPI'],
      vpa: `user${next(5)}.${t}@okaxis`,
      beneficiary: INDIVIDUAL,
    },
  }),
  NGN_ACCOUNT: (t) => ({
    currency: 'NGN',
    accountInfo: {
      accountType: 'NGN_ACCOUNT',
      accountNumber: next(7) + t,
      bankName: 'GTBank',
      beneficiary: INDIVIDUAL,
    },
  }),
  ZAR_ACCOUNT: (t) => ({
    currency: 'ZAR',
    accountInfo: { accountType: 'ZAR_ACCOUNT', accountNumber: next(8) + t, bankName: 'FNB', beneficiary: INDIVIDUAL },
  }),
  CAD_ACCOUNT: (t) => ({
    currency: 'CAD',
    accountInfo: {
      accountType: 'CAD_ACCOUNT',
      bankCode: '001',
      branchCode: '00011',
      accountNumber: next(6) + t,
      beneficiary: INDIVIDUAL,
    },
  }),
  KES_ACCOUNT: (t) => ({
    currency: 'KES',
    accountInfo: {
      accountType: 'KES_ACCOUNT',
      phoneNumber: '+254' + next(6) + t,
      provider: 'M-PESA',
      beneficiary: { ...INDIVIDUAL, address: ADDRESS },
    },
  }),
  TZS_ACCOUNT: (t) => ({
    currency: 'TZS',
    accountInfo: {
      accountType: 'TZS_ACCOUNT',
      phoneNumber: '+255' + next(6) + t,
      provider: 'VODACOM',
      beneficiary: INDIVIDUAL,
    },
  }),
  ZMW_ACCOUNT: (t) => ({
    currency: 'ZMW',
    accountInfo: {
      accountType: 'ZMW_ACCOUNT',
      phoneNumber: '+260' + next(6) + t,
      provider: 'ZAMTEL',
      beneficiary: INDIVIDUAL,
    },
  }),
  RWF_ACCOUNT: (t) => ({
    currency: 'RWF',
    accountInfo: {
      accountType: 'RWF_ACCOUNT',
      phoneNumber: '+250' + next(6) + t,
      provider: 'AIRTEL',
      beneficiary: INDIVIDUAL,
    },
  }),
  GBP_ACCOUNT: (t) => ({
    currency: 'GBP',
    accountInfo: {
      accountType: 'GBP_ACCOUNT',
      paymentRails: ['FASTER_PAYMENTS'],
      sortCode: '040004',
      accountNumber: next(5) + t,
      beneficiary: INDIVIDUAL,
    },
  }),
  SPARK_WALLET: (t) => ({
    currency: 'BTC',
    accountInfo: { accountType: 'SPARK_WALLET', address: `spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y${next(8)}${t}` },
  }),
  LIGHTNING: (t) => ({
    currency: 'BTC',
    accountInfo: { accountType: 'LIGHTNING', lightningAddress: `alice${next(5)}.${t}@wallet.example.com` },
  }),
  LIGHTNING_ACCOUNT: (t) => ({
    currency: 'BTC',
    accountInfo: {
      accountType: 'LIGHTNING_ACCOUNT',
      invoice: `lnbc15u1p3xnhl2pp5jptserfk3zk4qy42tlucycrfwx${next(8)}${t}`,
    },
  }),
  SOLANA_WALLET: () => ({
    currency: 'USDC',
    cryptoNetwork: 'SOLANA_MAINNET',
    accountInfo: { accountType: 'SOLANA_WALLET', address: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU' },
  }),
  TRON_WALLET: () => ({
    currency: 'USDT',
    cryptoNetwork: 'TRON_MAINNET',
    accountInfo: { accountType: 'TRON_WALLET', address: 'TN3W4H6rK2ce4vX9YnFQHwKENnHjoxb3m9' },
  }),
  POLYGON_WALLET: (t) => ({
    currency: 'USDC',
    cryptoNetwork: 'POLYGON_MAINNET',
    accountInfo: { accountType: 'POLYGON_WALLET', address: `0x${'a'.repeat(29)}${next(8)}${t}` },
  }),
  BASE_WALLET: (t) => ({
    currency: 'USDC',
    cryptoNetwork: 'BASE_MAINNET',
    accountInfo: { accountType: 'BASE_WALLET', address: `0x${'b'.repeat(29)}${next(8)}${t}` },
  }),
  ETHEREUM_WALLET: (t) => ({
    currency: 'USDC',
    cryptoNetwork: 'ETHEREUM_MAINNET',
    accountInfo: { accountType: 'ETHEREUM_WALLET', address: `0x${'c'.repeat(29)}${next(8)}${t}` },
  }),
};

/**
 * Types whose currency the service holds: a valid request is created. The stablecoin wallets end in 400
 * supportedCurrency.
 */
export const UNSUPPORTED_CURRENCY_TYPES: readonly AccountType[] = [
  'SOLANA_WALLET',
  'TRON_WALLET',
  'POLYGON_WALLET',
  'BASE_WALLET',
  'ETHEREUM_WALLET',
];

/** A fresh valid request of a type, its identifier ending in 000 (sandbox: MATCHED). */
export function valid(type: AccountType, extra: Record<string, unknown> = {}): AccountRequest {
  return { ...BUILD[type]('000'), ...extra };
}

/** Deep-ish edit of accountInfo: set fields (undefined deletes). */
export function withInfo(req: AccountRequest, changes: Record<string, unknown>): AccountRequest {
  const info: Record<string, unknown> = { ...req.accountInfo, ...changes };
  for (const [k, v] of Object.entries(changes)) if (v === undefined) delete info[k];
  return { ...req, accountInfo: info };
}

export interface Rejection {
  name: string;
  request: () => AccountRequest;
  field: string;
  rule: string;
  /** Platform accounts need no beneficiary; everything else is a customer account. */
  platform?: boolean;
}

const ben = (type: AccountType, beneficiary: unknown) => () => withInfo(valid(type), { beneficiary });
const set = (type: AccountType, changes: Record<string, unknown>) => () => withInfo(valid(type), changes);

/** One rejection per rule, boundary lengths on both sides. Field paths and rule names are part of the contract. */
export const REJECTIONS: Rejection[] = [
  // US (specification rules)
  {
    name: 'US account number of 3 digits',
    request: set('US_ACCOUNT', { accountNumber: '123' }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:4-17',
  },
  {
    name: 'US account number of 18 digits',
    request: set('US_ACCOUNT', { accountNumber: '1'.repeat(18) }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:4-17',
  },
  {
    name: 'US account number with a letter',
    request: set('US_ACCOUNT', { accountNumber: '12345A' }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:4-17',
  },
  {
    name: 'routing number of 8 digits',
    request: set('US_ACCOUNT', { routingNumber: '02100002' }),
    field: 'accountInfo.routingNumber',
    rule: 'digits:9',
  },
  {
    name: 'routing number of 10 digits',
    request: set('US_ACCOUNT', { routingNumber: '0210000211' }),
    field: 'accountInfo.routingNumber',
    rule: 'digits:9',
  },
  {
    name: 'accountCategory not CHECKING/SAVINGS',
    request: set('US_ACCOUNT', { accountCategory: 'BROKERAGE' }),
    field: 'accountInfo.accountCategory',
    rule: 'accountCategory',
  },
  {
    name: 'legacy US_ACCOUNT without accountCategory',
    request: set('US_ACCOUNT', { accountCategory: undefined }),
    field: 'accountInfo.accountCategory',
    rule: 'required',
  },
  {
    name: 'US_ACCOUNT in EUR',
    request: () => ({ ...valid('US_ACCOUNT'), currency: 'EUR' }),
    field: 'currency',
    rule: 'accountTypeCurrency',
  },
  {
    name: 'USD_ACCOUNT account number of 18 digits',
    request: set('USD_ACCOUNT', { accountNumber: '9'.repeat(18) }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:4-17',
  },
  {
    name: 'USD_ACCOUNT with a SPEI rail',
    request: set('USD_ACCOUNT', { paymentRails: ['ACH', 'SPEI'] }),
    field: 'accountInfo.paymentRails.1',
    rule: 'paymentRail',
  },
  {
    name: 'empty paymentRails',
    request: set('USD_ACCOUNT', { paymentRails: [] }),
    field: 'accountInfo.paymentRails',
    rule: 'paymentRails',
  },
  {
    name: 'USD_ACCOUNT without beneficiary',
    request: set('USD_ACCOUNT', { beneficiary: undefined }),
    field: 'accountInfo.beneficiary',
    rule: 'required',
  },
  // Mexico
  {
    name: 'CLABE of 17 digits',
    request: set('CLABE', { clabeNumber: '1'.repeat(17) }),
    field: 'accountInfo.clabeNumber',
    rule: 'digits:18',
  },
  {
    name: 'CLABE of 19 digits',
    request: set('CLABE', { clabeNumber: '1'.repeat(19) }),
    field: 'accountInfo.clabeNumber',
    rule: 'digits:18',
  },
  {
    name: 'MXN_ACCOUNT of 17 digits',
    request: set('MXN_ACCOUNT', { clabeNumber: '1'.repeat(17) }),
    field: 'accountInfo.clabeNumber',
    rule: 'digits:18',
  },
  {
    name: 'CLABE in USD',
    request: () => ({ ...valid('CLABE'), currency: 'USD' }),
    field: 'currency',
    rule: 'accountTypeCurrency',
  },
  {
    name: 'CLABE without beneficiary',
    request: set('CLABE', { beneficiary: undefined }),
    field: 'accountInfo.beneficiary',
    rule: 'required',
  },
  // Brazil
  {
    name: 'unknown pixKeyType',
    request: set('PIX', { pixKeyType: 'IBAN' }),
    field: 'accountInfo.pixKeyType',
    rule: 'pixKeyType',
  },
  {
    name: 'EMAIL PIX key that is not an e-mail',
    request: set('PIX', { pixKey: 'not-an-email' }),
    field: 'accountInfo.pixKey',
    rule: 'pixKey:EMAIL',
  },
  {
    name: 'CPF PIX key of 10 digits',
    request: set('BRL_ACCOUNT', { pixKey: '1234567890' }),
    field: 'accountInfo.pixKey',
    rule: 'pixKey:CPF',
  },
  {
    name: 'PIX key of 78 characters',
    request: set('PIX', { pixKey: 'a'.repeat(66) + '@pix.com.brx' }),
    field: 'accountInfo.pixKey',
    rule: 'length:1-77',
  },
  {
    name: 'BRL_ACCOUNT without taxId',
    request: set('BRL_ACCOUNT', { taxId: undefined }),
    field: 'accountInfo.taxId',
    rule: 'required',
  },
  {
    name: 'taxId of 10 digits',
    request: set('BRL_ACCOUNT', { taxId: '1234567890' }),
    field: 'accountInfo.taxId',
    rule: 'digits:11-14',
  },
  {
    name: 'taxId of 15 digits',
    request: set('BRL_ACCOUNT', { taxId: '1'.repeat(15) }),
    field: 'accountInfo.taxId',
    rule: 'digits:11-14',
  },
  {
    name: 'PIX without beneficiary',
    request: set('PIX', { beneficiary: undefined }),
    field: 'accountInfo.beneficiary',
    rule: 'required',
  },
  // Euro
  {
    name: 'IBAN with wrong check digits',
    request: set('IBAN', { iban: 'DE00370400440532013000' }),
    field: 'accountInfo.iban',
    rule: 'iban',
  },
  {
    name: 'IBAN too short',
    request: set('EUR_ACCOUNT', { iban: 'NL91ABNA04171' }),
    field: 'accountInfo.iban',
    rule: 'iban',
  },
  {
    name: 'legacy IBAN without swiftBic',
    request: set('IBAN', { swiftBic: undefined }),
    field: 'accountInfo.swiftBic',
    rule: 'required',
  },
  {
    name: 'malformed swiftBic',
    request: set('IBAN', { swiftBic: 'COBA' }),
    field: 'accountInfo.swiftBic',
    rule: 'bic',
  },
  {
    name: 'malformed swiftCode',
    request: set('EUR_ACCOUNT', { swiftCode: 'ABNANL2AX' }),
    field: 'accountInfo.swiftCode',
    rule: 'bic',
  },
  {
    name: 'EUR_ACCOUNT individual without address',
    request: ben('EUR_ACCOUNT', INDIVIDUAL),
    field: 'accountInfo.beneficiary.address',
    rule: 'required',
  },
  {
    name: 'IBAN_ACCOUNT without beneficiary',
    request: set('IBAN_ACCOUNT', { beneficiary: undefined }),
    field: 'accountInfo.beneficiary',
    rule: 'required',
  },
  {
    name: 'EUR_ACCOUNT with a SPEI rail',
    request: set('EUR_ACCOUNT', { paymentRails: ['SPEI'] }),
    field: 'accountInfo.paymentRails.0',
    rule: 'paymentRail',
  },
  // India
  { name: 'UPI address without @', request: set('UPI', { vpa: 'janedoe' }), field: 'accountInfo.vpa', rule: 'vpa' },
  {
    name: 'INR_ACCOUNT bank account without its IFSC',
    request: set('INR_ACCOUNT', { vpa: undefined, accountNumber: '000111222333' }),
    field: 'accountInfo.ifsc',
    rule: 'required',
  },
  {
    name: 'INR_ACCOUNT with both a UPI address and a bank account',
    request: set('INR_ACCOUNT', { accountNumber: '000111222333', ifsc: 'HDFC0001234' }),
    field: 'accountInfo.vpa',
    rule: 'exactlyOne',
  },
  {
    name: 'INR_ACCOUNT IFSC of the wrong form',
    request: set('INR_ACCOUNT', { vpa: undefined, accountNumber: '000111222333', ifsc: 'HDFC1234567' }),
    field: 'accountInfo.ifsc',
    rule: 'ifsc',
  },
  {
    name: 'INR_ACCOUNT address with a dotted handle',
    request: set('INR_ACCOUNT', { vpa: 'jane@ok.axis' }),
    field: 'accountInfo.vpa',
    rule: 'vpa',
  },
  {
    name: 'UPI in USD',
    request: () => ({ ...valid('UPI'), currency: 'USD' }),
    field: 'currency',
    rule: 'accountTypeCurrency',
  },
  // Nigeria, South Africa, Canada, UK
  {
    name: 'NGN account of 9 digits',
    request: set('NGN_ACCOUNT', { accountNumber: '123456789' }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:10',
  },
  {
    name: 'NGN account of 11 digits',
    request: set('NGN_ACCOUNT', { accountNumber: '12345678901' }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:10',
  },
  {
    name: 'NGN account without bankName',
    request: set('NGN_ACCOUNT', { bankName: undefined }),
    field: 'accountInfo.bankName',
    rule: 'required',
  },
  {
    name: 'ZAR account of 8 digits',
    request: set('ZAR_ACCOUNT', { accountNumber: '12345678' }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:9-13',
  },
  {
    name: 'ZAR account of 14 digits',
    request: set('ZAR_ACCOUNT', { accountNumber: '1'.repeat(14) }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:9-13',
  },
  {
    name: 'CAD bank code of 2 digits',
    request: set('CAD_ACCOUNT', { bankCode: '01' }),
    field: 'accountInfo.bankCode',
    rule: 'digits:3',
  },
  {
    name: 'CAD bank code of 4 digits',
    request: set('CAD_ACCOUNT', { bankCode: '0011' }),
    field: 'accountInfo.bankCode',
    rule: 'digits:3',
  },
  {
    name: 'CAD branch code of 4 digits',
    request: set('CAD_ACCOUNT', { branchCode: '0001' }),
    field: 'accountInfo.branchCode',
    rule: 'digits:5',
  },
  {
    name: 'CAD branch code of 6 digits',
    request: set('CAD_ACCOUNT', { branchCode: '000111' }),
    field: 'accountInfo.branchCode',
    rule: 'digits:5',
  },
  {
    name: 'CAD account of 6 digits',
    request: set('CAD_ACCOUNT', { accountNumber: '123456' }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:7-12',
  },
  {
    name: 'CAD account of 13 digits',
    request: set('CAD_ACCOUNT', { accountNumber: '1'.repeat(13) }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:7-12',
  },
  {
    name: 'GBP sort code of 5 digits',
    request: set('GBP_ACCOUNT', { sortCode: '04000' }),
    field: 'accountInfo.sortCode',
    rule: 'digits:6',
  },
  {
    name: 'GBP account of 7 digits',
    request: set('GBP_ACCOUNT', { accountNumber: '1234567' }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:8',
  },
  {
    name: 'GBP account of 9 digits',
    request: set('GBP_ACCOUNT', { accountNumber: '123456789' }),
    field: 'accountInfo.accountNumber',
    rule: 'digits:8',
  },
  // Mobile money (specification rules)
  {
    name: 'KES phone with a Tanzanian code',
    request: set('KES_ACCOUNT', { phoneNumber: '+255712345678' }),
    field: 'accountInfo.phoneNumber',
    rule: 'phone:+254',
  },
  {
    name: 'KES phone of 8 digits',
    request: set('KES_ACCOUNT', { phoneNumber: '+25471234567' }),
    field: 'accountInfo.phoneNumber',
    rule: 'phone:+254',
  },
  {
    name: 'KES phone of 10 digits',
    request: set('KES_ACCOUNT', { phoneNumber: '+2547123456789' }),
    field: 'accountInfo.phoneNumber',
    rule: 'phone:+254',
  },
  {
    name: 'KES provider AIRTEL',
    request: set('KES_ACCOUNT', { provider: 'AIRTEL' }),
    field: 'accountInfo.provider',
    rule: 'provider',
  },
  {
    name: 'TZS phone with a Kenyan code',
    request: set('TZS_ACCOUNT', { phoneNumber: '+254712345678' }),
    field: 'accountInfo.phoneNumber',
    rule: 'phone:+255',
  },
  {
    name: 'TZS provider M-PESA',
    request: set('TZS_ACCOUNT', { provider: 'M-PESA' }),
    field: 'accountInfo.provider',
    rule: 'provider',
  },
  {
    name: 'ZMW phone of 10 digits',
    request: set('ZMW_ACCOUNT', { phoneNumber: '+2609123456789' }),
    field: 'accountInfo.phoneNumber',
    rule: 'phone:+260',
  },
  {
    name: 'ZMW provider VODACOM',
    request: set('ZMW_ACCOUNT', { provider: 'VODACOM' }),
    field: 'accountInfo.provider',
    rule: 'provider',
  },
  {
    name: 'RWF phone of 8 digits',
    request: set('RWF_ACCOUNT', { phoneNumber: '+25078123456' }),
    field: 'accountInfo.phoneNumber',
    rule: 'phone:+250',
  },
  {
    name: 'RWF provider ZAMTEL',
    request: set('RWF_ACCOUNT', { provider: 'ZAMTEL' }),
    field: 'accountInfo.provider',
    rule: 'provider',
  },
  {
    name: 'KES account in TZS',
    request: () => ({ ...valid('KES_ACCOUNT'), currency: 'TZS' }),
    field: 'currency',
    rule: 'accountTypeCurrency',
  },
  {
    name: 'KES account without beneficiary',
    request: set('KES_ACCOUNT', { beneficiary: undefined }),
    field: 'accountInfo.beneficiary',
    rule: 'required',
  },
  // Wallets and Lightning
  {
    name: 'Spark wallet with a beneficiary',
    request: set('SPARK_WALLET', { beneficiary: INDIVIDUAL }),
    field: 'accountInfo.beneficiary',
    rule: 'notApplicable',
  },
  {
    name: 'Spark address that is not one',
    request: set('SPARK_WALLET', { address: 'bc1qxyz' }),
    field: 'accountInfo.address',
    rule: 'sparkAddress',
  },
  {
    name: 'Spark wallet in USD',
    request: () => ({ ...valid('SPARK_WALLET'), currency: 'USD' }),
    field: 'currency',
    rule: 'accountTypeCurrency',
  },
  {
    name: 'Lightning with no destination',
    request: set('LIGHTNING', { lightningAddress: undefined }),
    field: 'accountInfo.invoice',
    rule: 'exactlyOne',
  },
  {
    name: 'Lightning with two destinations',
    request: set('LIGHTNING', { invoice: 'lnbc15u1p3xnhl2pp5jptserfk3zk4qy42' }),
    field: 'accountInfo.invoice',
    rule: 'exactlyOne',
  },
  {
    name: 'malformed BOLT11 invoice',
    request: set('LIGHTNING_ACCOUNT', { invoice: 'lnxx123' }),
    field: 'accountInfo.invoice',
    rule: 'bolt11',
  },
  {
    name: 'Ethereum wallet without cryptoNetwork',
    request: () => ({ ...valid('ETHEREUM_WALLET'), cryptoNetwork: undefined }),
    field: 'cryptoNetwork',
    rule: 'required',
  },
  {
    name: 'Ethereum wallet on the Solana network',
    request: () => ({ ...valid('ETHEREUM_WALLET'), cryptoNetwork: 'SOLANA_MAINNET' }),
    field: 'cryptoNetwork',
    rule: 'cryptoNetwork',
  },
  {
    name: 'Polygon address of 39 hex digits',
    request: set('POLYGON_WALLET', { address: '0x' + 'a'.repeat(39) }),
    field: 'accountInfo.address',
    rule: 'evmAddress',
  },
  {
    name: 'Solana address with a 0',
    request: set('SOLANA_WALLET', { address: '0xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU' }),
    field: 'accountInfo.address',
    rule: 'base58Address',
  },
  {
    name: 'Tron address not starting with T',
    request: set('TRON_WALLET', { address: 'AN3W4H6rK2ce4vX9YnFQHwKENnHjoxb3m9' }),
    field: 'accountInfo.address',
    rule: 'tronAddress',
  },
  {
    name: 'well-formed USDC wallet (currency not supported)',
    request: () => valid('BASE_WALLET'),
    field: 'currency',
    rule: 'supportedCurrency',
  },
  {
    name: 'cryptoNetwork on a bank account',
    request: () => ({ ...valid('USD_ACCOUNT'), cryptoNetwork: 'ETHEREUM_MAINNET' }),
    field: 'cryptoNetwork',
    rule: 'notApplicable',
  },
  // Envelope and beneficiary rules shared by every type
  {
    name: 'unknown accountType',
    request: set('USD_ACCOUNT', { accountType: 'SAVINGS_BOND' }),
    field: 'accountInfo.accountType',
    rule: 'accountType',
  },
  {
    name: 'account type of an unsupported currency',
    request: set('USD_ACCOUNT', { accountType: 'PHP_ACCOUNT' }),
    field: 'accountInfo.accountType',
    rule: 'accountType',
  },
  {
    name: 'unknown accountInfo field',
    request: set('NGN_ACCOUNT', { routingNumber: '021000021' }),
    field: 'accountInfo.routingNumber',
    rule: 'unknownField',
  },
  {
    name: 'legacy individual without birthDate',
    request: ben('US_ACCOUNT', { ...LEGACY_INDIVIDUAL, birthDate: undefined }),
    field: 'accountInfo.beneficiary.birthDate',
    rule: 'required',
  },
  {
    name: 'legacy individual without nationality',
    request: ben('CLABE', { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Doe', birthDate: '1990-01-15' }),
    field: 'accountInfo.beneficiary.nationality',
    rule: 'required',
  },
  {
    name: 'individual without fullName',
    request: ben('NGN_ACCOUNT', { beneficiaryType: 'INDIVIDUAL', birthDate: '1990-01-15' }),
    field: 'accountInfo.beneficiary.fullName',
    rule: 'required',
  },
  {
    name: 'birthDate that is not a calendar date',
    request: ben('US_ACCOUNT', { ...LEGACY_INDIVIDUAL, birthDate: '1990-02-30' }),
    field: 'accountInfo.beneficiary.birthDate',
    rule: 'date',
  },
  {
    name: 'nationality that is not a country',
    request: ben('US_ACCOUNT', { ...LEGACY_INDIVIDUAL, nationality: 'XX' }),
    field: 'accountInfo.beneficiary.nationality',
    rule: 'country',
  },
  {
    name: 'address country that is not a country',
    request: ben('KES_ACCOUNT', { ...INDIVIDUAL, address: { ...ADDRESS, country: 'ZZ' } }),
    field: 'accountInfo.beneficiary.address.country',
    rule: 'country',
  },
  {
    name: 'address without line1',
    request: ben('KES_ACCOUNT', { ...INDIVIDUAL, address: { city: 'Nairobi', postalCode: '00100', country: 'KE' } }),
    field: 'accountInfo.beneficiary.address.line1',
    rule: 'required',
  },
  {
    name: 'beneficiary e-mail that is not one',
    request: ben('ZAR_ACCOUNT', { ...INDIVIDUAL, email: 'jane' }),
    field: 'accountInfo.beneficiary.email',
    rule: 'email',
  },
  {
    name: 'unknown beneficiaryType',
    request: ben('ZAR_ACCOUNT', { ...INDIVIDUAL, beneficiaryType: 'TRUST' }),
    field: 'accountInfo.beneficiary.beneficiaryType',
    rule: 'enum',
  },
  {
    name: 'business without legalName',
    request: ben('GBP_ACCOUNT', { beneficiaryType: 'BUSINESS', taxId: 'T1' }),
    field: 'accountInfo.beneficiary.legalName',
    rule: 'required',
  },
  {
    name: 'business with fullName',
    request: ben('GBP_ACCOUNT', { ...BUSINESS_FLAT, fullName: 'Jane' }),
    field: 'accountInfo.beneficiary.fullName',
    rule: 'unknownField',
  },
  {
    name: 'platformAccountId given twice, differently',
    request: () => ({ ...withInfo(valid('CAD_ACCOUNT'), { platformAccountId: 'a' }), platformAccountId: 'b' }),
    field: 'accountInfo.platformAccountId',
    rule: 'conflict',
  },
];
