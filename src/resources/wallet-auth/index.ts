import type { Area } from '../area.js';
import { registerFundingSourceGuard } from '../cards/index.js';
import { registerCustomerUpdateGuard } from '../customers/index.js';
import { registerQuoteGuard } from '../quotes/index.js';
import { walletAuthMigrations } from './repo.js';
import { handlers } from './routes.js';
import { authorizeWalletPayment, guardCustomerContactChange, removePlatformWalletAuth, walletFundsCard, walletPaymentInstructions } from './service.js';

// The wallet signature guard registers with what it guards:
// a card funded by an embedded wallet spends from it only through an ACTIVE delegated key;
registerFundingSourceGuard(walletFundsCard);
// a quote drawn on an embedded wallet is paid by a stamp over its payloadToSign;
registerQuoteGuard({ walletInstructions: walletPaymentInstructions, authorizeWalletPayment });
// an email or phone tied to the wallet's OTP credentials changes by signed retry.
registerCustomerUpdateGuard(guardCustomerContactChange);

export { enclaveInfo, walletAccount } from './service.js';
export { checkStamp, issueSignedRequest, pendingRequest, signedStep, WalletSignatureCode } from './signed-retry.js';
export type { SignedChallenge, SignedOperation, SignedStep } from './signed-retry.js';

/**
 * Embedded wallet authentication: credentials (EMAIL_OTP, SMS_OTP, OAUTH, PASSKEY), sessions,
 * delegated keys, wallet privacy and export, the shared signed-retry mechanism, and the
 * signature guard of wallet payouts.
 */
export const walletAuthArea: Area = {
  name: 'wallet-auth',
  migrations: walletAuthMigrations,
  handlers,
  resetPlatform: (ctx, platform) => removePlatformWalletAuth(ctx, platform.id),
};
