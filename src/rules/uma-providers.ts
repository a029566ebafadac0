/**
 * The directory of UMA providers (`GET /uma-providers`): counterparty VASPs reachable over UMA
 * from the sandbox, each with its regions, UMA domain, currencies and allow-list standing.
 * LEIs are well-formed ISO 17442 codes (check digits valid) but fictitious.
 */

/** One UMA provider row; `supportedCurrencies` are currency codes (the service presents them). */
export interface UmaProviderRow {
  name: string;
  supportedRegions: readonly string[];
  domain: string;
  logoUrl: string;
  supportedCurrencies: readonly string[];
  lei: string;
  /** Whether the provider is on the platform's allow list; blocked ones are listed unless `hasBlockedProviders=false`. */
  allowListStatus: boolean;
}

/** Provider rows, in no particular order (the service sorts by name). */
export const umaProviders: readonly UmaProviderRow[] = [
  { name: 'Sandbox UMA Test VASP', supportedRegions: ['US'], domain: 'sandbox.uma.money', logoUrl: 'https://sandbox.uma.money/logo.png', supportedCurrencies: ['USD', 'EUR', 'MXN'], lei: '5299001UMAGLOBAL0033', allowListStatus: true },
  { name: 'Northwind Pay', supportedRegions: ['US'], domain: 'northwindpay.example', logoUrl: 'https://northwindpay.example/logo.png', supportedCurrencies: ['USD', 'USDC', 'BTC'], lei: '5493001UMAPESA0K0069', allowListStatus: true },
  { name: 'EuroLedger Payments', supportedRegions: ['DE', 'FR', 'ES', 'IT', 'NL'], domain: 'euroledger.example', logoUrl: 'https://euroledger.example/assets/logo.svg', supportedCurrencies: ['EUR', 'USDC'], lei: '2138005UMAEUROPA0093', allowListStatus: true },
  { name: 'Remesa Rápida', supportedRegions: ['MX'], domain: 'remesarapida.example', logoUrl: 'https://remesarapida.example/logo.png', supportedCurrencies: ['MXN', 'USD'], lei: '9845007UMAMEXICO0040', allowListStatus: true },
  { name: 'Cambio Verde', supportedRegions: ['BR'], domain: 'cambioverde.example', logoUrl: 'https://cambioverde.example/logo.png', supportedCurrencies: ['BRL'], lei: '5493004UMABRASIL0083', allowListStatus: true },
  { name: 'PesaBridge', supportedRegions: ['KE', 'NG', 'GH'], domain: 'pesabridge.example', logoUrl: 'https://pesabridge.example/logo.png', supportedCurrencies: ['KES', 'NGN', 'GHS', 'USDC'], lei: '8945002UMAAFRICA0081', allowListStatus: false },
  { name: 'Lion City Wallet', supportedRegions: ['SG', 'PH'], domain: 'lioncitywallet.example', logoUrl: 'https://lioncitywallet.example/logo.png', supportedCurrencies: ['SGD', 'PHP', 'USDC'], lei: '3358009UMAASIAPA0038', allowListStatus: false },
  { name: 'Nordic Krone Pay', supportedRegions: ['DK'], domain: 'kronepay.example', logoUrl: 'https://kronepay.example/logo.png', supportedCurrencies: ['DKK', 'EUR'], lei: '2549006UMANORDIC0096', allowListStatus: true },
];
