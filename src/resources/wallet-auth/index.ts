import type { Area } from '../area.js';
import { walletAuthMigrations } from './repo.js';
import { handlers } from './routes.js';
import { registerFundingSourceGuard } from '../cards/guards.js';
import { registerCustomerUpdateGuard } from '../customers/index.js';
import { guardCustomerContactChange, removePlatformWalletAuth, walletFundsCard } from './service.js';

// A card funded by an embedded wallet spends from it only through an ACTIVE delegated key.
registerFundingSourceGuard(walletFundsCard);
// An email or phone tied to the wallet's OTP credentials changes by signed retry.
registerCustomerUpdateGuard(guardCustomerContactChange);

export { authorizeWalletPayment, enclaveInfo, walletAccount, walletPaymentInstructions } from './service.js';
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
