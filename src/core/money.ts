/** A currency in the contract's `Currency` shape. Amounts are integers in the smallest unit. */
export interface Currency {
  code: string;
  name: string;
  symbol: string;
  decimals: number;
}

const list: Currency[] = [
  { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 },
  { code: 'EUR', name: 'Euro', symbol: '€', decimals: 2 },
  { code: 'GBP', name: 'Pound Sterling', symbol: '£', decimals: 2 },
  { code: 'MXN', name: 'Mexican Peso', symbol: '$', decimals: 2 },
  { code: 'BRL', name: 'Brazilian Real', symbol: 'R$', decimals: 2 },
  { code: 'INR', name: 'Indian Rupee', symbol: '₹', decimals: 2 },
  { code: 'NGN', name: 'Nigerian Naira', symbol: '₦', decimals: 2 },
  { code: 'PHP', name: 'Philippine Peso', symbol: '₱', decimals: 2 },
  { code: 'CAD', name: 'Canadian Dollar', symbol: '$', decimals: 2 },
  { code: 'COP', name: 'Colombian Peso', symbol: '$', decimals: 2 },
  { code: 'KES', name: 'Kenyan Shilling', symbol: 'KSh', decimals: 2 },
  { code: 'GHS', name: 'Ghanaian Cedi', symbol: '₵', decimals: 2 },
  { code: 'ZAR', name: 'South African Rand', symbol: 'R', decimals: 2 },
  { code: 'SGD', name: 'Singapore Dollar', symbol: '$', decimals: 2 },
  { code: 'DKK', name: 'Danish Krone', symbol: 'kr', decimals: 2 },
  { code: 'IDR', name: 'Indonesian Rupiah', symbol: 'Rp', decimals: 2 },
  { code: 'THB', name: 'Thai Baht', symbol: '฿', decimals: 2 },
  { code: 'VND', name: 'Vietnamese Dong', symbol: '₫', decimals: 0 },
  { code: 'XOF', name: 'West African CFA Franc', symbol: 'CFA', decimals: 0 },
  { code: 'XAF', name: 'Central African CFA Franc', symbol: 'FCFA', decimals: 0 },
  { code: 'UGX', name: 'Ugandan Shilling', symbol: 'USh', decimals: 0 },
  { code: 'RWF', name: 'Rwandan Franc', symbol: 'FRw', decimals: 0 },
  { code: 'USDC', name: 'USD Coin', symbol: '', decimals: 6 },
  { code: 'USDB', name: 'USDB', symbol: '', decimals: 6 },
  { code: 'BTC', name: 'Bitcoin', symbol: '₿', decimals: 8 },
];

/** Every currency the sandbox knows, by code. */
export const currencies: ReadonlyMap<string, Currency> = new Map(list.map((c) => [c.code, c]));

/** The currency with this code, or undefined. */
export function currencyOf(code: string): Currency | undefined {
  return currencies.get(code);
}
