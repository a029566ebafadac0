import { sandboxWarning } from '../../core/warnings.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { ApiError, invalidInput } from '../../core/errors.js';
import type { SandboxContext } from '../../store/context.js';
import { networkFees, type NetworkFeeRow } from '../../rules/crypto-withdrawal-fees.js';
import {
  bolt11Problem,
  bolt12Problem,
  evmAddressProblem,
  lightningAddressProblem,
  solanaAddressProblem,
  sparkAddressProblem,
} from '../external-accounts/index.js';
import type { Platform } from '../../tenancy/index.js';
import { appliedRate, currencyInfo } from '../rates/index.js';
import { checkAmount, internalAccountOf } from '../transfers/index.js';
import type { EstimateWithdrawalFeeRequest } from './schemas.js';

const base58check = createBase58check(sha256);

/** Bitcoin address (mainnet, testnet or regtest): base58check P2PKH/P2SH, bech32 segwit v0, bech32m v1+ (BIP 173, BIP 350). */
export function bitcoinAddressProblem(address: string): string | undefined {
  const message = 'A Bitcoin address is base58check (1..., 3..., m..., n..., 2...) or bech32/bech32m segwit (bc1..., tb1..., bcrt1...) with a valid checksum.';
  if (/^(bc|tb|bcrt)1/i.test(address)) {
    if (address !== address.toLowerCase() && address !== address.toUpperCase()) return 'A segwit address must not mix upper and lower case.';
    const lower = address.toLowerCase() as `${string}1${string}`;
    for (const [codec, v0] of [[bech32, true], [bech32m, false]] as const) {
      try {
        const { prefix, words } = codec.decode(lower, 90);
        const version = words[0]!;
        const program = codec.fromWords(words.slice(1));
        if (!['bc', 'tb', 'bcrt'].includes(prefix) || version > 16 || (version === 0) !== v0) continue;
        if (version === 0 && program.length !== 20 && program.length !== 32) return 'A segwit v0 program is 20 or 32 bytes.';
        if (version === 1 && program.length !== 32) return 'A taproot (segwit v1) program is 32 bytes.';
        if (program.length < 2 || program.length > 40) return 'A segwit program is 2 to 40 bytes.';
        return undefined;
      } catch {
        // try the other encoding
      }
    }
    return message;
  }
  try {
    const bytes = base58check.decode(address);
    return bytes.length === 21 && [0x00, 0x05, 0x6f, 0xc4].includes(bytes[0]!) ? undefined : message;
  } catch {
    return message;
  }
}

/** What a destination on the network must look like: undefined when it does. */
function destinationProblem(row: NetworkFeeRow, address: string): string | undefined {
  switch (row.addressKind) {
    case 'EVM':
      return evmAddressProblem(address);
    case 'SOLANA':
      return solanaAddressProblem(address);
    case 'BITCOIN':
      return bitcoinAddressProblem(address);
    case 'SPARK':
      return sparkAddressProblem(address);
    case 'LIGHTNING': {
      if (/^ln(bc|tb|bcrt|tbs)/i.test(address)) return bolt11Problem(address);
      if (/^lno1/i.test(address)) return bolt12Problem(address);
      return lightningAddressProblem(address) && 'A Lightning destination is a BOLT11 invoice, a BOLT12 offer or a lightning address (user@domain).';
    }
  }
}

/**
 * `POST /crypto/estimate-withdrawal-fee`: the network fee of a withdrawal from a crypto
 * internal account (in the network's fee asset, and converted to the withdrawal currency at
 * the current rate, rounded up), the application fee, and what the recipient nets.
 */
export function estimateWithdrawalFee(ctx: SandboxContext, platform: Platform, request: EstimateWithdrawalFeeRequest): Record<string, number | string> {
  const account = internalAccountOf(ctx, platform.id, request.internalAccountId);
  const row = networkFees[request.cryptoNetwork];
  if (!row) {
    const networks = Object.keys(networkFees);
    throw invalidInput(`${request.cryptoNetwork} is not a network the sandbox withdraws on.`, [
      { field: 'cryptoNetwork', constraint: { enum: networks }, message: `One of ${networks.join(', ')}.` },
    ]);
  }
  if (request.currency !== account.currency) {
    throw new ApiError(400, 'INVALID_CURRENCY', `Internal account ${account.id} holds ${account.currency}, not ${request.currency}.`, { field: 'currency' });
  }
  if (!row.currencies.includes(request.currency)) {
    throw new ApiError(400, 'INVALID_CURRENCY', `${request.cryptoNetwork} does not carry ${request.currency} (it carries ${row.currencies.join(', ')}).`, {
      field: 'currency',
      supportedCurrencies: [...row.currencies],
    });
  }
  // The contract's schema accepts any destination string (as for external wallet addresses):
  // a destination that fails the network's encoding or checksum is reported, not refused.
  const problem = destinationProblem(row, request.destinationAddress);
  if (problem) sandboxWarning(`destinationAddress: ${problem} Accepted in the sandbox; a real ${request.cryptoNetwork} withdrawal would be refused`);
  checkAmount(platform, request.currency, request.amount, 'OUTGOING');

  const networkFee = row.networkFee + Math.floor((request.amount * (row.proportionalPpm ?? 0)) / 1_000_000);
  const decimals = currencyInfo(request.currency).decimals;
  let converted: number;
  if (row.feeAsset === request.currency) {
    converted = networkFee;
  } else {
    const now = ctx.clock.now();
    const pricePerFeeAsset = row.feeAssetUsd !== undefined ? row.feeAssetUsd * appliedRate('USD', request.currency, now) : appliedRate(row.feeAsset, request.currency, now);
    const exact = (networkFee / 10 ** row.feeAssetDecimals) * pricePerFeeAsset * 10 ** decimals;
    converted = Math.ceil(exact * (1 - 1e-12));
  }
  // feeConfigs has no withdrawal fee type (only CROSS_CURRENCY_TRANSACTION): no application fee.
  const applicationFee = 0;
  const totalFee = converted + applicationFee;
  const netAmount = request.amount - totalFee;
  if (netAmount <= 0) {
    throw new ApiError(400, 'INVALID_AMOUNT', `${request.amount} does not cover the ${request.cryptoNetwork} fee of ${totalFee}.`, { totalFee });
  }
  return { networkFee, networkFeeAsset: row.feeAsset, applicationFee, totalFee, netAmount };
}
