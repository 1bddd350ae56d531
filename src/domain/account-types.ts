/**
 * The external-account rule set: ONE table with an entry per accountType name (legacy and current),
 * saying which fields it takes and their formats, the currency it implies, the payment rails it
 * allows, whether it needs a beneficiary, and which field is its primary identifier (the value that
 * makes two accounts the same account, and whose last digits choose sandbox outcomes).
 *
 * Pure: no I/O. HTTP, quotes (inline EXTERNAL_ACCOUNT_DETAILS) and any other caller validate through
 * `validateExternalAccount`, so every entry point applies exactly the same rules.
 *
 * Precedence (DESIGN §2): the specification's rules bind for the names it uses (US_ACCOUNT, CLABE,
 * PIX, IBAN, IBAN_ACCOUNT, UPI, the African *_ACCOUNT types, CAD_ACCOUNT, USD_ACCOUNT, SPARK_WALLET);
 * the reference contract's rules apply to the names only it has (MXN_ACCOUNT, BRL_ACCOUNT, EUR_ACCOUNT,
 * INR_ACCOUNT, GBP_ACCOUNT, the crypto wallets, LIGHTNING).
 */
import { isCalendarDate } from './clock.ts';
import { isCountryCode } from './countries.ts';
import { isSupportedCurrency, CURRENCY_CODES } from './currencies.ts';
import { invalidInput, Refusals } from './errors.ts';
import { present } from './assert.ts';

// ---------------------------------------------------------------------------------------------------
// Field rules: a value test plus the rule name and sentence a caller sees when it fails.

export interface FieldRule {
  /** Short machine-readable rule name, reported as `details.rule`. */
  rule: string;
  /** What a valid value looks like, completing "accountInfo.x must be …". */
  expect: string;
  test(value: unknown): boolean;
}

const isString = (v: unknown): v is string => typeof v === 'string';

export function digits(min: number, max = min): FieldRule {
  const re = new RegExp(`^[0-9]{${min},${max}}$`);
  return {
    rule: min === max ? `digits:${min}` : `digits:${min}-${max}`,
    expect: min === max ? `exactly ${min} digits` : `${min} to ${max} digits`,
    test: (v) => isString(v) && re.test(v),
  };
}

function pattern(re: RegExp, rule: string, expect: string, maxLength = 255): FieldRule {
  return { rule, expect, test: (v) => isString(v) && v.length <= maxLength && re.test(v) };
}

function text(min: number, max: number): FieldRule {
  return {
    rule: `length:${min}-${max}`,
    expect: `a string of ${min} to ${max} characters`,
    test: (v) => isString(v) && v.trim().length >= min && v.length <= max,
  };
}

function oneOf(values: readonly string[], rule = 'enum'): FieldRule {
  return { rule, expect: `one of ${values.join(', ')}`, test: (v) => isString(v) && values.includes(v) };
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9][0-9]{1,14}$/;
const BIC = pattern(
  /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/,
  'bic',
  'a BIC (8 or 11 characters: bank, country, location, optional branch)',
);

/** A BIC by the same rule as an external account's (a bank connector's debtor agent is checked with it). */
export const isBic = (value: unknown): boolean => BIC.test(value);
const BANK_NAME = text(1, 255);
const CATEGORY = oneOf(['CHECKING', 'SAVINGS'], 'accountCategory');
/** The newest contract's name for the same choice. */
const BANK_ACCOUNT_TYPE = oneOf(['CHECKING', 'SAVINGS'], 'bankAccountType');
/** The name of the wallet's custodian (a VASP), for travel-rule messages. */
const VASP_NAME = text(1, 255);
const US_ACCOUNT_NUMBER = digits(4, 17);
const ROUTING = digits(9);
const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM'] as const;
const TAX_ID_BR = digits(11, 14);

/** An IBAN: shape per ISO 13616 plus its mod-97 check digits, so a mistyped digit is caught here. */
export function isIban(value: unknown): boolean {
  if (!isString(value) || !/^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$/.test(value)) return false;
  const rearranged = (value.slice(4) + value.slice(0, 4)).toUpperCase();
  let remainder = 0;
  for (const ch of rearranged) {
    const n = ch >= 'A' && ch <= 'Z' ? ch.charCodeAt(0) - 55 : Number(ch);
    remainder = Number(`${remainder}${n}`) % 97;
  }
  return remainder === 1;
}

const IBAN: FieldRule = {
  rule: 'iban',
  expect: 'an IBAN (country, 2 check digits, 11 to 30 letters or digits) with valid check digits',
  test: isIban,
};

/** Mobile money: the country's calling code, then exactly 9 digits (specification, Limits). */
function mobilePhone(callingCode: string): FieldRule {
  return pattern(
    new RegExp(`^\\+${callingCode}[0-9]{9}$`),
    `phone:+${callingCode}`,
    `+${callingCode} followed by exactly 9 digits`,
  );
}

const PIX_KEY = text(1, 77);

/** The payment rails each reference bank type allows (facts §3.6). */
const RAILS = {
  USD: ['ACH', 'WIRE', 'RTP', 'FEDNOW'],
  /** The specification's US_ACCOUNT also names a plain bank transfer. */
  US_LEGACY: ['ACH', 'WIRE', 'RTP', 'FEDNOW', 'BANK_TRANSFER'],
  MXN: ['SPEI'],
  BRL: ['PIX'],
  EUR: ['SEPA', 'SEPA_INSTANT'],
  INR: ['UPI', 'NEFT', 'RTGS'],
  UPI: ['UPI'],
  GBP: ['FASTER_PAYMENTS'],
  BANK: ['BANK_TRANSFER'],
  MOBILE: ['MOBILE_MONEY'],
  NONE: [],
} as const satisfies Record<string, readonly string[]>;

// ---------------------------------------------------------------------------------------------------
// The table.

export type BeneficiaryRule =
  /** No beneficiary: self-custody wallets and Lightning destinations. */
  | 'none'
  /** The specification's INDIVIDUAL rule for its legacy names: fullName, birthDate and nationality. */
  | 'legacy'
  /** The reference rule: fullName only (plus the currency's extras, see `individualNeeds`). */
  | 'current';

export interface AccountTypeRule {
  /** The currency codes this type can hold. Exactly one for every bank and mobile-money type. */
  currencies: readonly string[];
  /** The current reference name when this entry is a legacy alias. */
  aliasOf?: string;
  /** Required fields and their rules (besides accountType, beneficiary and paymentRails). */
  required: Readonly<Record<string, FieldRule>>;
  /** Optional fields: checked when given, echoed back. */
  optional: Readonly<Record<string, FieldRule>>;
  /** Field holding the primary identifier. A list means "whichever one of these was given" (exactly one). */
  primary: string | readonly string[];
  paymentRails: readonly string[];
  beneficiary: BeneficiaryRule;
  /** Individual-beneficiary fields this type needs beyond fullName (reference per-currency extras). */
  individualNeeds?: readonly string[];
  /** Allowed top-level cryptoNetwork values; present only for the on-chain wallets (then required). */
  cryptoNetworks?: readonly string[];
  /** A rule that spans fields (a PIX key that must match its type). Returns the violation, if any. */
  crossCheck?(info: Readonly<Record<string, unknown>>): { field: string; rule: string; message: string } | undefined;
}

/** PIX keys must have the form their pixKeyType says (CPF 11 digits, CNPJ 14, e-mail, +55 phone, random UUID). */
/** An Indian bank account is reached through its branch: accountNumber goes with ifsc, and ifsc with it. */
function indianBankNeedsIfsc(info: Readonly<Record<string, unknown>>) {
  if (info.accountNumber !== undefined && info.ifsc === undefined)
    return { field: 'accountInfo.ifsc', rule: 'required', message: 'accountInfo.ifsc is required with accountNumber' };
  if (info.accountNumber === undefined && (info.ifsc !== undefined || info.rail !== undefined))
    return {
      field: 'accountInfo.accountNumber',
      rule: 'required',
      message: 'accountInfo.ifsc and rail go with an accountNumber (NEFT, RTGS); a UPI account takes vpa alone',
    };
  return undefined;
}

function pixKeyMatchesType(info: Readonly<Record<string, unknown>>) {
  const key = String(info.pixKey);
  const forms: Record<(typeof PIX_KEY_TYPES)[number], [RegExp, string]> = {
    CPF: [/^[0-9]{11}$/, '11 digits'],
    CNPJ: [/^[0-9]{14}$/, '14 digits'],
    EMAIL: [EMAIL, 'an e-mail address'],
    PHONE: [/^\+55[0-9]{10,11}$/, '+55 followed by 10 or 11 digits'],
    RANDOM: [/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'a random key (UUID)'],
  };
  const [re, expect] = forms[info.pixKeyType as (typeof PIX_KEY_TYPES)[number]];
  return re.test(key)
    ? undefined
    : {
        field: 'accountInfo.pixKey',
        rule: `pixKey:${String(info.pixKeyType)}`,
        message: `accountInfo.pixKey must be ${expect} for pixKeyType ${String(info.pixKeyType)}`,
      };
}

const US_FIELDS = { accountNumber: US_ACCOUNT_NUMBER, routingNumber: ROUTING };
const MOBILE = (callingCode: string, providers: readonly string[]) =>
  ({
    required: { phoneNumber: mobilePhone(callingCode), provider: oneOf(providers, 'provider') },
    optional: {},
    primary: 'phoneNumber',
    paymentRails: RAILS.MOBILE,
    beneficiary: 'current',
  }) as const;

const ETH_ADDRESS = pattern(/^0x[0-9a-fA-F]{40}$/, 'evmAddress', '0x followed by 40 hexadecimal digits');
const onChainWallet = (
  currencies: readonly string[],
  address: FieldRule,
  cryptoNetworks: readonly string[],
): AccountTypeRule => ({
  currencies,
  required: { address },
  optional: { vaspName: VASP_NAME },
  primary: 'address',
  paymentRails: RAILS.NONE,
  beneficiary: 'none',
  cryptoNetworks,
});
const LIGHTNING: AccountTypeRule = {
  currencies: ['BTC'],
  required: {},
  optional: {
    invoice: pattern(/^ln(bc|tb|bcrt|tbs)[0-9a-z]{10,}$/i, 'bolt11', 'a BOLT11 invoice (lnbc…)', 4096),
    bolt12: pattern(/^lno1[0-9a-z]{10,}$/i, 'bolt12', 'a BOLT12 offer (lno1…)', 4096),
    lightningAddress: pattern(EMAIL, 'lightningAddress', 'a Lightning address (name@domain)'),
  },
  primary: ['invoice', 'bolt12', 'lightningAddress'],
  paymentRails: RAILS.NONE,
  beneficiary: 'none',
};

export const ACCOUNT_TYPES = {
  // --- US dollars. The specification's 4–17 digit account number binds for both names: it is the same account.
  US_ACCOUNT: {
    currencies: ['USD'],
    aliasOf: 'USD_ACCOUNT',
    required: { ...US_FIELDS, accountCategory: CATEGORY },
    optional: { bankName: BANK_NAME },
    primary: 'accountNumber',
    paymentRails: RAILS.US_LEGACY,
    beneficiary: 'legacy',
  },
  USD_ACCOUNT: {
    currencies: ['USD'],
    required: US_FIELDS,
    optional: {
      accountCategory: CATEGORY,
      bankAccountType: BANK_ACCOUNT_TYPE,
      bankName: BANK_NAME,
      reference: text(1, 255),
      // Used on the WIRE rail (a correspondent bank, bank-to-bank instructions); kept on the other rails.
      intermediaryBankName: text(1, 140),
      intermediaryRoutingNumber: digits(9),
      fiToFiInformation: text(1, 210),
    },
    primary: 'accountNumber',
    paymentRails: RAILS.USD,
    beneficiary: 'current',
  },
  // --- Mexico
  CLABE: {
    currencies: ['MXN'],
    aliasOf: 'MXN_ACCOUNT',
    required: { clabeNumber: digits(18) },
    optional: { bankName: BANK_NAME },
    primary: 'clabeNumber',
    paymentRails: RAILS.MXN,
    beneficiary: 'legacy',
  },
  MXN_ACCOUNT: {
    currencies: ['MXN'],
    required: { clabeNumber: digits(18) },
    optional: { bankName: BANK_NAME },
    primary: 'clabeNumber',
    paymentRails: RAILS.MXN,
    beneficiary: 'current',
  },
  // --- Brazil
  PIX: {
    currencies: ['BRL'],
    aliasOf: 'BRL_ACCOUNT',
    required: { pixKey: PIX_KEY, pixKeyType: oneOf(PIX_KEY_TYPES, 'pixKeyType') },
    optional: { bankName: BANK_NAME, taxId: TAX_ID_BR },
    primary: 'pixKey',
    paymentRails: RAILS.BRL,
    beneficiary: 'legacy',
    crossCheck: pixKeyMatchesType,
  },
  BRL_ACCOUNT: {
    currencies: ['BRL'],
    required: { pixKey: PIX_KEY, pixKeyType: oneOf(PIX_KEY_TYPES, 'pixKeyType'), taxId: TAX_ID_BR },
    optional: { bankName: BANK_NAME },
    primary: 'pixKey',
    paymentRails: RAILS.BRL,
    beneficiary: 'current',
    crossCheck: pixKeyMatchesType,
  },
  // --- Euro. Legacy IBAN requires swiftBic; the current name has an optional swiftCode; IBAN_ACCOUNT (guides) takes
  // iban alone.
  IBAN: {
    currencies: ['EUR'],
    aliasOf: 'EUR_ACCOUNT',
    required: { iban: IBAN, swiftBic: BIC },
    optional: { bankName: BANK_NAME },
    primary: 'iban',
    paymentRails: RAILS.EUR,
    beneficiary: 'legacy',
  },
  IBAN_ACCOUNT: {
    currencies: ['EUR'],
    aliasOf: 'EUR_ACCOUNT',
    required: { iban: IBAN },
    optional: { swiftBic: BIC, swiftCode: BIC, bankName: BANK_NAME },
    primary: 'iban',
    paymentRails: RAILS.EUR,
    beneficiary: 'legacy',
  },
  EUR_ACCOUNT: {
    currencies: ['EUR'],
    required: { iban: IBAN },
    optional: { swiftCode: BIC, bankName: BANK_NAME },
    primary: 'iban',
    paymentRails: RAILS.EUR,
    beneficiary: 'current',
    individualNeeds: ['address'],
  },
  // --- India
  UPI: {
    currencies: ['INR'],
    aliasOf: 'INR_ACCOUNT',
    required: { vpa: pattern(/^[a-zA-Z0-9.\-_]{1,253}@[a-zA-Z0-9]+$/, 'vpa', 'a UPI address (name@bank)') },
    optional: {},
    primary: 'vpa',
    paymentRails: RAILS.UPI,
    beneficiary: 'legacy',
  },
  // A UPI address, or (NEFT, RTGS) a bank account with its branch's IFSC.
  INR_ACCOUNT: {
    currencies: ['INR'],
    required: {},
    optional: {
      vpa: pattern(/^[a-zA-Z0-9.\-_]{1,253}@[a-zA-Z0-9]+$/, 'vpa', 'a UPI address (name@bank)'),
      accountNumber: digits(9, 18),
      ifsc: pattern(/^[A-Z]{4}0[A-Z0-9]{6}$/, 'ifsc', 'an IFSC code (4 letters, 0, 6 letters or digits)'),
      rail: oneOf(['NEFT', 'RTGS'], 'rail'),
      bankName: BANK_NAME,
    },
    primary: ['vpa', 'accountNumber'],
    paymentRails: RAILS.INR,
    beneficiary: 'current',
    crossCheck: indianBankNeedsIfsc,
  },
  // --- Nigeria, South Africa, Canada (specification rules)
  NGN_ACCOUNT: {
    currencies: ['NGN'],
    required: { accountNumber: digits(10), bankName: BANK_NAME },
    optional: {},
    primary: 'accountNumber',
    paymentRails: RAILS.BANK,
    beneficiary: 'current',
  },
  ZAR_ACCOUNT: {
    currencies: ['ZAR'],
    required: { accountNumber: digits(9, 13), bankName: BANK_NAME },
    optional: {},
    primary: 'accountNumber',
    paymentRails: RAILS.BANK,
    beneficiary: 'current',
  },
  CAD_ACCOUNT: {
    currencies: ['CAD'],
    required: { bankCode: digits(3), branchCode: digits(5), accountNumber: digits(7, 12) },
    optional: { bankName: BANK_NAME },
    primary: 'accountNumber',
    paymentRails: RAILS.BANK,
    beneficiary: 'current',
  },
  // --- Mobile money (specification: calling code + 9 digits, listed providers only)
  KES_ACCOUNT: { currencies: ['KES'], ...MOBILE('254', ['M-PESA']) },
  TZS_ACCOUNT: { currencies: ['TZS'], ...MOBILE('255', ['AIRTEL', 'VODACOM']) },
  ZMW_ACCOUNT: { currencies: ['ZMW'], ...MOBILE('260', ['TNM', 'AIRTEL', 'ZAMTEL', 'MTN']) },
  RWF_ACCOUNT: { currencies: ['RWF'], ...MOBILE('250', ['MTN', 'AIRTEL']) },
  // --- United Kingdom (reference rules; the specification shows the name only)
  GBP_ACCOUNT: {
    currencies: ['GBP'],
    required: { sortCode: digits(6), accountNumber: digits(8) },
    optional: { bankName: BANK_NAME },
    primary: 'accountNumber',
    paymentRails: RAILS.GBP,
    beneficiary: 'current',
  },
  // --- Bitcoin. Spark addresses are bech32m-style (hrp, "1", data); the data part is not checksummed here
  // so sandbox addresses can end in the digit suffixes that pick outcomes.
  SPARK_WALLET: {
    currencies: ['BTC'],
    required: {
      address: pattern(
        /^(spark|sparkrt|sparkt|sp|sprt|spt)1[0-9a-z]{10,250}$/,
        'sparkAddress',
        'a Spark address (spark1…)',
      ),
    },
    optional: { vaspName: VASP_NAME },
    primary: 'address',
    paymentRails: RAILS.NONE,
    beneficiary: 'none',
  },
  LIGHTNING,
  LIGHTNING_ACCOUNT: { ...LIGHTNING, aliasOf: 'LIGHTNING' },
  // --- Stablecoin wallets (reference). Their currencies (USDC, USDT) are not ones this service holds, so
  // a well-formed request still ends in a 400 naming the unsupported currency (see validateExternalAccount).
  SOLANA_WALLET: onChainWallet(
    ['USDC', 'USDT'],
    pattern(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'base58Address', 'a base58 Solana address (32 to 44 characters)'),
    ['SOLANA_MAINNET', 'SOLANA_DEVNET'],
  ),
  TRON_WALLET: onChainWallet(
    ['USDT'],
    pattern(/^T[1-9A-HJ-NP-Za-km-z]{33}$/, 'tronAddress', 'a Tron address (T followed by 33 base58 characters)'),
    ['TRON_MAINNET'],
  ),
  POLYGON_WALLET: onChainWallet(['USDC'], ETH_ADDRESS, ['POLYGON_MAINNET']),
  BASE_WALLET: onChainWallet(['USDC'], ETH_ADDRESS, ['BASE_MAINNET']),
  ETHEREUM_WALLET: onChainWallet(['USDC'], ETH_ADDRESS, ['ETHEREUM_MAINNET']),
} as const satisfies Record<string, AccountTypeRule>;

export type AccountType = keyof typeof ACCOUNT_TYPES;
export const ACCOUNT_TYPE_NAMES = Object.keys(ACCOUNT_TYPES) as AccountType[];

export function accountTypeRule(accountType: string): AccountTypeRule | undefined {
  return Object.hasOwn(ACCOUNT_TYPES, accountType)
    ? (ACCOUNT_TYPES as Record<string, AccountTypeRule>)[accountType]
    : undefined;
}

/** Refuses a payment rail the account's type does not run on; `field` names where the caller gave it. */
export function checkRailOf(accountType: string, paymentRail: string | undefined, field: string): void {
  if (paymentRail === undefined || (accountTypeRule(accountType)?.paymentRails ?? []).includes(paymentRail)) return;
  throw invalidInput(field, `${paymentRail} is not a rail ${accountType} accounts support`, 'paymentRail');
}

/** Every cryptoNetwork value any wallet type accepts. */
export const CRYPTO_NETWORKS: readonly string[] = [
  ...new Set(ACCOUNT_TYPE_NAMES.flatMap((t) => (ACCOUNT_TYPES[t] as AccountTypeRule).cryptoNetworks ?? [])),
];

// ---------------------------------------------------------------------------------------------------
// Sandbox suffix.

/**
 * The digits that choose a sandbox outcome: the last three characters of the identifier when they are
 * digits, or '' when they are not (every outcome table reads '' as "any other"). For identifiers with a
 * domain part (an e-mail PIX key, a UPI address, a Lightning address) the digits are read at the end of
 * the part before the `@`, as the sandbox guides append them there (`testuser.102@pix.com.br`).
 */
export function sandboxSuffix(identifier: string): string {
  const at = identifier.indexOf('@');
  const local = at >= 0 ? identifier.slice(0, at) : identifier;
  return /[0-9]{3}$/.test(local) ? local.slice(-3) : '';
}

// ---------------------------------------------------------------------------------------------------
// Beneficiary.

const BENEFICIARY_TYPES = ['INDIVIDUAL', 'BUSINESS'] as const;
export type BeneficiaryType = (typeof BENEFICIARY_TYPES)[number];

const ADDRESS_FIELDS: Record<string, { required: boolean; rule: FieldRule }> = {
  line1: { required: true, rule: text(1, 255) },
  line2: { required: false, rule: text(0, 255) },
  city: { required: false, rule: text(1, 255) },
  state: { required: false, rule: text(1, 255) },
  postalCode: { required: true, rule: text(1, 32) },
  country: {
    required: true,
    rule: {
      rule: 'country',
      expect: 'an ISO 3166-1 alpha-2 country code',
      test: (v) => isString(v) && isCountryCode(v),
    },
  },
};

const COUNTRY: FieldRule = ADDRESS_FIELDS.country!.rule;

/**
 * Fields any account type takes. `countries`: the countries the account may be paid from or to, as
 * the official TypeScript client sends with every account; stored and echoed, it restricts nothing here.
 */
const EVERY_TYPE: Record<string, FieldRule> = {
  countries: {
    rule: 'countries',
    expect: 'a non-empty list of distinct ISO 3166-1 alpha-2 country codes',
    test: (v) =>
      Array.isArray(v) && v.length > 0 && v.length <= 250 && new Set(v).size === v.length && v.every(COUNTRY.test),
  },
};
const DATE: FieldRule = {
  rule: 'date',
  expect: 'a real calendar date written YYYY-MM-DD',
  test: (v) => isString(v) && isCalendarDate(v),
};
const CONTACT = {
  email: pattern(EMAIL, 'email', 'an e-mail address'),
  phoneNumber: pattern(E164, 'e164', 'a phone number in E.164 form (+ then up to 15 digits)'),
  countryOfResidence: COUNTRY,
};
const INDIVIDUAL_FIELDS: Record<string, FieldRule> = {
  fullName: text(1, 255),
  birthDate: DATE,
  nationality: COUNTRY,
  registrationNumber: text(1, 255),
  ...CONTACT,
};
const BUSINESS_FIELDS: Record<string, FieldRule> = {
  legalName: text(1, 255),
  taxId: text(1, 255),
  registrationNumber: text(1, 255),
  ...CONTACT,
};
const BUSINESS_INFO_FIELDS: Record<string, FieldRule> = {
  legalName: text(1, 255),
  taxId: text(1, 255),
  registrationNumber: text(1, 255),
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function check(field: string, rule: FieldRule, value: unknown): void {
  if (!rule.test(value)) throw invalidInput(field, `${field} must be ${rule.expect}`, rule.rule);
}

function requireField(path: string, value: unknown): void {
  if (value === undefined || value === null) throw invalidInput(path, `${path} is required`, 'required');
}

/** Checks every given field of `obj` against `rules`, refusing fields the object does not take. */
function checkFields(
  prefix: string,
  obj: Record<string, unknown>,
  rules: Record<string, FieldRule>,
  nested: Record<string, (path: string, v: unknown) => void> = {},
): void {
  const refusals = new Refusals();
  for (const [key, value] of Object.entries(obj)) {
    const path = `${prefix}.${key}`;
    refusals.check(() => {
      if (nested[key]) nested[key](path, value);
      else if (rules[key]) check(path, rules[key], value);
      else throw invalidInput(path, `${path} is not a field this object takes`, 'unknownField');
    });
  }
  refusals.settle();
}

function checkAddress(path: string, value: unknown): void {
  if (!isObject(value)) throw invalidInput(path, `${path} must be an object`, 'type');
  for (const [key, spec] of Object.entries(ADDRESS_FIELDS))
    if (spec.required) requireField(`${path}.${key}`, value[key]);
  checkFields(path, value, Object.fromEntries(Object.entries(ADDRESS_FIELDS).map(([k, s]) => [k, s.rule])));
}

/**
 * Validates a beneficiary and returns it with its discriminator set, plus the name a rail would compare
 * with the account holder's. A missing beneficiaryType is inferred (business fields → BUSINESS), so the
 * response always carries it.
 */
function validateBeneficiary(
  value: unknown,
  rule: AccountTypeRule,
): { beneficiary: Record<string, unknown>; name: string } {
  const path = 'accountInfo.beneficiary';
  if (!isObject(value)) throw invalidInput(path, `${path} must be an object`, 'type');
  const given = value.beneficiaryType;
  const inferred = value.legalName !== undefined || value.businessInfo !== undefined ? 'BUSINESS' : 'INDIVIDUAL';
  const type = given ?? inferred;
  if (!BENEFICIARY_TYPES.includes(type as BeneficiaryType))
    throw invalidInput(`${path}.beneficiaryType`, `${path}.beneficiaryType must be INDIVIDUAL or BUSINESS`, 'enum');
  const { beneficiaryType: _ignored, ...fields } = value;
  const address = { address: checkAddress };
  if (type === 'INDIVIDUAL') {
    const needed = [
      'fullName',
      ...(rule.beneficiary === 'legacy' ? ['birthDate', 'nationality'] : []),
      ...(rule.individualNeeds ?? []),
    ];
    for (const key of needed) requireField(`${path}.${key}`, fields[key]);
    checkFields(path, fields, INDIVIDUAL_FIELDS, address);
    return { beneficiary: { beneficiaryType: type, ...fields }, name: String(fields.fullName) };
  }
  // BUSINESS: the schema's flat legalName, or the guides' businessInfo {legalName, taxId}.
  const info = fields.businessInfo;
  if (info !== undefined) {
    if (!isObject(info)) throw invalidInput(`${path}.businessInfo`, `${path}.businessInfo must be an object`, 'type');
    checkFields(`${path}.businessInfo`, info, BUSINESS_INFO_FIELDS);
  }
  const legalName = fields.legalName ?? (isObject(info) ? info.legalName : undefined);
  requireField(`${path}.legalName`, legalName);
  checkFields(path, fields, BUSINESS_FIELDS, { ...address, businessInfo: () => undefined });
  return { beneficiary: { beneficiaryType: type, ...fields }, name: String(legalName) };
}

// ---------------------------------------------------------------------------------------------------
// The whole account.

export type AccountOwner = 'customer' | 'platform';

export interface ExternalAccountInput {
  currency: string;
  accountInfo: Record<string, unknown>;
  platformAccountId?: string | undefined;
  cryptoNetwork?: string | undefined;
}

export interface ValidatedAccount {
  accountType: AccountType;
  currency: string;
  /** What the caller sent, minus platformAccountId (which moves to the top level). */
  accountInfo: Record<string, unknown>;
  primaryIdentifier: string;
  platformAccountId: string | null;
  cryptoNetwork: string | null;
  /** The beneficiary's name (fullName or legalName), when there is a beneficiary. */
  beneficiaryName: string | null;
}

/**
 * Applies the account type's rules to a create request and returns the account to store.
 * Throws a 400 INVALID_INPUT naming the field path and the rule at the first violation.
 * Customer accounts need a beneficiary unless the type is a self-custody wallet or Lightning;
 * platform accounts may carry one (checked the same way) but do not need it.
 */
/**
 * Checks a new external account against its type's rule and returns what is stored. The checks run in a
 * fixed order, so a request with several problems always hears about the same one first.
 */
export function validateExternalAccount(input: ExternalAccountInput, owner: AccountOwner): ValidatedAccount {
  const { accountInfo } = input;
  if (!isObject(accountInfo)) throw invalidInput('accountInfo', 'accountInfo must be an object', 'type');
  const accountType = accountInfo.accountType;
  const rule = ruleFor(accountType, input.currency);
  // platformAccountId is accepted inside accountInfo too (the reference examples put it there) but lives at
  // the top level.
  const { platformAccountId: nestedPlatformId, accountType: _type, beneficiary, paymentRails, ...fields } = accountInfo;
  // Independent checks: a 400 names every invalid field, not only the first.
  const refusals = new Refusals();
  refusals.check(() => checkPlatformAccountId(input.platformAccountId, nestedPlatformId));
  const primary = refusals.check(() => checkTypeFields(rule, fields));
  if (paymentRails !== undefined) refusals.check(() => checkPaymentRails(rule, paymentRails));
  const checked = refusals.check(() => checkBeneficiary(rule, String(accountType), beneficiary, owner));
  refusals.check(() => checkCryptoNetwork(rule, String(accountType), input.cryptoNetwork));
  refusals.settle();
  // Checked last, so a caller learns about malformed fields first and then, for a well-formed wallet in a
  // currency this service cannot hold (USDC, USDT), exactly why it is refused.
  if (!isSupportedCurrency(input.currency)) {
    throw invalidInput(
      'currency',
      `${input.currency} is not a currency this service supports (${CURRENCY_CODES.join(', ')}), so ` +
        `${String(accountType)} accounts in it cannot be created`,
      'supportedCurrency',
    );
  }
  const echoed: Record<string, unknown> = { accountType, ...fields };
  if (paymentRails !== undefined) echoed.paymentRails = paymentRails;
  if (checked) echoed.beneficiary = checked.beneficiary;
  return {
    accountType: accountType as AccountType,
    currency: input.currency,
    accountInfo: echoed,
    primaryIdentifier: String(fields[present(primary, 'a checked account has its primary identifier')]),
    platformAccountId: input.platformAccountId ?? (nestedPlatformId as string | undefined) ?? null,
    cryptoNetwork: input.cryptoNetwork ?? null,
    beneficiaryName: checked?.name ?? null,
  };
}

/** The rule of a known account type in one of its currencies. */
function ruleFor(accountType: unknown, currency: string): AccountTypeRule {
  requireField('accountInfo.accountType', accountType);
  const rule = isString(accountType) ? accountTypeRule(accountType) : undefined;
  if (!rule) {
    const cur = isString(accountType) ? /^([A-Z]{3})_ACCOUNT$/.exec(accountType)?.[1] : undefined;
    const why =
      cur && !isSupportedCurrency(cur)
        ? ` (${cur} is not a currency this service supports: ${CURRENCY_CODES.join(', ')})`
        : '';
    throw invalidInput(
      'accountInfo.accountType',
      `accountInfo.accountType ${String(accountType)} is not supported${why}; use one of ` +
        ACCOUNT_TYPE_NAMES.join(', '),
      'accountType',
    );
  }
  if (!rule.currencies.includes(currency)) {
    throw invalidInput(
      'currency',
      `currency must be ${rule.currencies.join(' or ')} for accountType ${String(accountType)}`,
      'accountTypeCurrency',
    );
  }
  return rule;
}

function checkPlatformAccountId(topLevel: string | undefined, nested: unknown): void {
  if (nested !== undefined && !text(1, 255).test(nested)) {
    throw invalidInput(
      'accountInfo.platformAccountId',
      'accountInfo.platformAccountId must be a string of 1 to 255 characters',
      'length:1-255',
    );
  }
  if (topLevel !== undefined && nested !== undefined && topLevel !== nested) {
    throw invalidInput(
      'accountInfo.platformAccountId',
      'platformAccountId is given twice with different values',
      'conflict',
    );
  }
}

/** The type's own fields; returns the name of the one primary identifier given. */
function checkTypeFields(rule: AccountTypeRule, fields: Record<string, unknown>): string {
  const refusals = new Refusals();
  for (const key of Object.keys(rule.required)) refusals.check(() => requireField(`accountInfo.${key}`, fields[key]));
  refusals.check(() => checkFields('accountInfo', fields, { ...rule.required, ...rule.optional, ...EVERY_TYPE }));
  refusals.settle();
  const primaries = typeof rule.primary === 'string' ? [rule.primary] : rule.primary;
  const given = primaries.filter((k) => fields[k] !== undefined);
  const [primary] = given;
  if (given.length !== 1 || primary === undefined) {
    throw invalidInput(
      `accountInfo.${primaries[0]}`,
      `accountInfo needs exactly one of ${primaries.join(', ')}`,
      'exactlyOne',
    );
  }
  const violation = rule.crossCheck?.(fields);
  if (violation) throw invalidInput(violation.field, violation.message, violation.rule);
  return primary;
}

function checkPaymentRails(rule: AccountTypeRule, paymentRails: unknown): void {
  const ok =
    Array.isArray(paymentRails) && paymentRails.length > 0 && new Set(paymentRails).size === paymentRails.length;
  if (!ok)
    throw invalidInput(
      'accountInfo.paymentRails',
      'accountInfo.paymentRails must be a non-empty array without repeats',
      'paymentRails',
    );
  (paymentRails as unknown[]).forEach((rail, i) => {
    if (!rule.paymentRails.includes(rail as string)) {
      const allowed = rule.paymentRails.length
        ? `one of ${rule.paymentRails.join(', ')}`
        : 'absent (this account type takes no payment rails)';
      throw invalidInput(
        `accountInfo.paymentRails.${i}`,
        `accountInfo.paymentRails.${i} must be ${allowed}`,
        'paymentRail',
      );
    }
  });
}

function checkBeneficiary(
  rule: AccountTypeRule,
  accountType: string,
  beneficiary: unknown,
  owner: AccountOwner,
): { beneficiary: Record<string, unknown>; name: string } | undefined {
  if (rule.beneficiary === 'none') {
    if (beneficiary !== undefined)
      throw invalidInput(
        'accountInfo.beneficiary',
        `accountType ${accountType} is a self-custody destination and takes no beneficiary`,
        'notApplicable',
      );
    return undefined;
  }
  if (beneficiary !== undefined) return validateBeneficiary(beneficiary, rule);
  if (owner === 'customer') {
    throw invalidInput(
      'accountInfo.beneficiary',
      `accountInfo.beneficiary is required for a customer's ${accountType} account`,
      'required',
    );
  }
  return undefined;
}

function checkCryptoNetwork(rule: AccountTypeRule, accountType: string, cryptoNetwork: string | undefined): void {
  if (rule.cryptoNetworks) {
    requireField('cryptoNetwork', cryptoNetwork);
    check('cryptoNetwork', oneOf(rule.cryptoNetworks, 'cryptoNetwork'), cryptoNetwork);
  } else if (cryptoNetwork !== undefined) {
    throw invalidInput(
      'cryptoNetwork',
      `cryptoNetwork applies only to on-chain wallets, not to ${accountType}`,
      'notApplicable',
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Status.

export const EXTERNAL_ACCOUNT_STATUSES = ['PENDING', 'ACTIVE', 'UNDER_REVIEW', 'INACTIVE'] as const;
export type ExternalAccountStatus = (typeof EXTERNAL_ACCOUNT_STATUSES)[number];

/**
 * The status changes there are, each naming the states it may leave (the update says `WHERE status IN
 * from`), so INACTIVE, which no transition leaves, is terminal: a deleted account never comes back.
 */
export const ACCOUNT_TRANSITIONS = {
  activate: { from: ['PENDING', 'UNDER_REVIEW'], to: 'ACTIVE' },
  deactivate: { from: ['PENDING', 'ACTIVE', 'UNDER_REVIEW'], to: 'INACTIVE' },
} as const satisfies Record<string, { from: readonly ExternalAccountStatus[]; to: ExternalAccountStatus }>;

/** The one rule for "may money move to or from this account": only ACTIVE accounts take payments. */
export function isUsable(account: { status: string }): boolean {
  return account.status === 'ACTIVE';
}
