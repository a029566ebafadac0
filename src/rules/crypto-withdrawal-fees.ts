/**
 * Network fees of crypto withdrawals (`POST /crypto/estimate-withdrawal-fee`), one row per
 * network: the asset that pays the fee, the fee in its smallest unit, and the assets the
 * network carries. Deterministic: a typical token transfer at a typical fee level.
 */

/** One network's fee rule. */
export interface NetworkFeeRow {
  /** The asset the fee is paid in, and its decimals. */
  feeAsset: string;
  feeAssetDecimals: number;
  /** US dollars per whole fee asset, for gas assets the rate source does not quote (SOL, ETH, POL). */
  feeAssetUsd?: number;
  /** Flat network fee in the fee asset's smallest unit (lamports, wei, satoshis). */
  networkFee: number;
  /** Proportional part in parts per million of the amount (Lightning routing fees). */
  proportionalPpm?: number;
  /** Withdrawal currencies the network carries. */
  currencies: readonly string[];
  /** Address kinds the destination may be (checked by the service). */
  addressKind: 'EVM' | 'SOLANA' | 'BITCOIN' | 'LIGHTNING' | 'SPARK';
}

/** Network -> fee rule. A rule is changed in one row. */
export const networkFees: Readonly<Record<string, NetworkFeeRow>> = {
  // An SPL token transfer with a priority fee: 10,000 lamports.
  SOLANA: { feeAsset: 'SOL', feeAssetDecimals: 9, feeAssetUsd: 180, networkFee: 10_000, currencies: ['USDC'], addressKind: 'SOLANA' },
  // An ERC-20 transfer: 65,000 gas at 12 gwei.
  ETHEREUM: { feeAsset: 'ETH', feeAssetDecimals: 18, feeAssetUsd: 3_400, networkFee: 65_000 * 12_000_000_000, currencies: ['USDC'], addressKind: 'EVM' },
  // An ERC-20 transfer on Base: 65,000 gas at 0.02 gwei plus the L1 data fee.
  BASE: { feeAsset: 'ETH', feeAssetDecimals: 18, feeAssetUsd: 3_400, networkFee: 65_000 * 20_000_000 + 400_000_000_000, currencies: ['USDC'], addressKind: 'EVM' },
  // An ERC-20 transfer on Arbitrum One: 250,000 gas at 0.02 gwei.
  ARBITRUM: { feeAsset: 'ETH', feeAssetDecimals: 18, feeAssetUsd: 3_400, networkFee: 250_000 * 20_000_000, currencies: ['USDC'], addressKind: 'EVM' },
  // An ERC-20 transfer on Polygon PoS: 65,000 gas at 40 gwei.
  POLYGON: { feeAsset: 'POL', feeAssetDecimals: 18, feeAssetUsd: 0.45, networkFee: 65_000 * 40_000_000_000, currencies: ['USDC'], addressKind: 'EVM' },
  // A one-input segwit payment: 141 vbytes at 8 sat/vB.
  BITCOIN: { feeAsset: 'BTC', feeAssetDecimals: 8, networkFee: 141 * 8, currencies: ['BTC'], addressKind: 'BITCOIN' },
  // Lightning routing: 1 sat base plus 500 ppm of the amount.
  LIGHTNING: { feeAsset: 'BTC', feeAssetDecimals: 8, networkFee: 1, proportionalPpm: 500, currencies: ['BTC'], addressKind: 'LIGHTNING' },
  // Spark transfers carry no network fee.
  SPARK: { feeAsset: 'BTC', feeAssetDecimals: 8, networkFee: 0, currencies: ['BTC', 'USDB'], addressKind: 'SPARK' },
};
