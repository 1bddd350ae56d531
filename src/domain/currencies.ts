export interface Currency {
  code: string;
  name: string;
  symbol: string;
  /** Decimal places of the smallest unit (cents: 2, satoshis: 8). */
  decimals: number;
}

const list: Currency[] = [
  { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 },
  { code: 'MXN', name: 'Mexican Peso', symbol: '$', decimals: 2 },
  { code: 'BRL', name: 'Brazilian Real', symbol: 'R$', decimals: 2 },
  { code: 'EUR', name: 'Euro', symbol: '€', decimals: 2 },
  { code: 'INR', name: 'Indian Rupee', symbol: '₹', decimals: 2 },
  { code: 'NGN', name: 'Nigerian Naira', symbol: '₦', decimals: 2 },
  { code: 'ZAR', name: 'South African Rand', symbol: 'R', decimals: 2 },
  { code: 'KES', name: 'Kenyan Shilling', symbol: 'KSh', decimals: 2 },
  { code: 'TZS', name: 'Tanzanian Shilling', symbol: 'TSh', decimals: 2 },
  { code: 'ZMW', name: 'Zambian Kwacha', symbol: 'ZK', decimals: 2 },
  { code: 'RWF', name: 'Rwandan Franc', symbol: 'FRw', decimals: 0 },
  { code: 'CAD', name: 'Canadian Dollar', symbol: '$', decimals: 2 },
  { code: 'BTC', name: 'Bitcoin', symbol: '₿', decimals: 8 },
  { code: 'GBP', name: 'Pound Sterling', symbol: '£', decimals: 2 },
];

export const CURRENCIES: ReadonlyMap<string, Currency> = new Map(list.map((c) => [c.code, c]));
export const CURRENCY_CODES: readonly string[] = list.map((c) => c.code);

export function currency(code: string): Currency {
  const found = CURRENCIES.get(code);
  if (!found) throw new Error(`unsupported currency ${code}`);
  return found;
}

export function isSupportedCurrency(code: string): boolean {
  return CURRENCIES.has(code);
}
