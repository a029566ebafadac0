/**
 * The VASP directory (`GET /vasps`): exchanges and custodial platforms recognised for
 * counterparty declarations (`vaspName` is the value to declare). Public names and websites.
 */

/** One directory entry, as the contract's `Vasp`. */
export interface VaspRow {
  vaspName: string;
  url?: string;
}

/** The directory, in no particular order (the service sorts by name). */
export const vasps: readonly VaspRow[] = [
  { vaspName: 'Kraken', url: 'https://www.kraken.com' },
  { vaspName: 'Coinbase', url: 'https://www.coinbase.com' },
  { vaspName: 'Binance', url: 'https://www.binance.com' },
  { vaspName: 'Bitstamp', url: 'https://www.bitstamp.net' },
  { vaspName: 'Gemini', url: 'https://www.gemini.com' },
  { vaspName: 'OKX', url: 'https://www.okx.com' },
  { vaspName: 'Bitso', url: 'https://bitso.com' },
  { vaspName: 'Bybit', url: 'https://www.bybit.com' },
  { vaspName: 'KuCoin', url: 'https://www.kucoin.com' },
  { vaspName: 'Crypto.com', url: 'https://crypto.com' },
  { vaspName: 'Bitfinex', url: 'https://www.bitfinex.com' },
  { vaspName: 'Luno', url: 'https://www.luno.com' },
  { vaspName: 'Mercado Bitcoin', url: 'https://www.mercadobitcoin.com.br' },
  { vaspName: 'Bitpanda', url: 'https://www.bitpanda.com' },
  { vaspName: 'Uphold', url: 'https://uphold.com' },
  { vaspName: 'Robinhood Crypto', url: 'https://robinhood.com/crypto' },
  { vaspName: 'Bitvavo', url: 'https://bitvavo.com' },
  { vaspName: 'Upbit', url: 'https://upbit.com' },
  { vaspName: 'Bithumb', url: 'https://www.bithumb.com' },
  { vaspName: 'Coinbase Prime', url: 'https://prime.coinbase.com' },
  { vaspName: 'Anchorage Digital', url: 'https://www.anchorage.com' },
  { vaspName: 'BitGo', url: 'https://www.bitgo.com' },
  { vaspName: 'Paxos', url: 'https://paxos.com' },
  { vaspName: 'Yellow Card', url: 'https://yellowcard.io' },
  { vaspName: 'Valr', url: 'https://www.valr.com' },
  { vaspName: 'Independent Reserve', url: 'https://www.independentreserve.com' },
  { vaspName: 'Coincheck', url: 'https://coincheck.com' },
  { vaspName: 'bitFlyer', url: 'https://bitflyer.com' },
  { vaspName: 'Ripio', url: 'https://www.ripio.com' },
];
