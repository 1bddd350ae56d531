/**
 * Where a payer sends money for a REALTIME_FUNDING quote: our collection account for the currency and a
 * reference that ties the incoming funds to the quote. Sandbox values are fictitious by design.
 */
const DEFAULT_RAIL: Readonly<Record<string, string>> = {
  USD: 'ACH',
  EUR: 'SEPA_INSTANT',
  MXN: 'SPEI',
  BRL: 'PIX',
  INR: 'UPI',
  NGN: 'BANK_TRANSFER',
  ZAR: 'BANK_TRANSFER',
  KES: 'MOBILE_MONEY',
  TZS: 'MOBILE_MONEY',
  ZMW: 'MOBILE_MONEY',
  RWF: 'MOBILE_MONEY',
  CAD: 'BANK_TRANSFER',
  GBP: 'FASTER_PAYMENTS',
};

/**
 * The rail a payout in this currency usually takes (shown by GET /exchange-rates), as the contract names
 * rails. None for BTC: it moves over Lightning, which is no rail of the contract's, so GET /exchange-rates
 * lists no corridor into it (quotes to Lightning and Spark destinations still price it).
 */
export function defaultRail(currency: string): string | undefined {
  if (currency === 'BTC') return undefined;
  return DEFAULT_RAIL[currency] ?? 'BANK_TRANSFER';
}

export interface PaymentInstruction {
  accountOrWalletInfo: Record<string, unknown>;
  instructionsNotes?: string;
}

export function fundingInstructions(currency: string, reference: string): PaymentInstruction[] {
  const notes =
    `Send exactly the quoted amount and include the reference ${reference}; funds without it ` + `cannot be matched.`;
  if (currency === 'BTC') {
    return [
      {
        accountOrWalletInfo: {
          accountType: 'SPARK_WALLET',
          assetType: 'BTC',
          address: `sparkrt1${reference.toLowerCase().replace(/[^a-z0-9]/g, '')}q0sandbox`,
        },
        instructionsNotes: notes,
      },
    ];
  }
  if (currency === 'USD') {
    return [
      {
        accountOrWalletInfo: {
          accountType: 'USD_ACCOUNT',
          paymentRails: ['ACH', 'WIRE', 'RTP'],
          accountNumber: '000123456789',
          routingNumber: '110000000',
          bankName: 'Payouts Sandbox Bank',
          reference,
        },
        instructionsNotes: notes,
      },
    ];
  }
  return [
    {
      accountOrWalletInfo: {
        accountType: `${currency}_ACCOUNT`,
        paymentRails: [defaultRail(currency) ?? 'BANK_TRANSFER'],
        accountNumber: '0001234567',
        bankName: 'Payouts Sandbox Bank',
        reference,
      },
      instructionsNotes: notes,
    },
  ];
}
