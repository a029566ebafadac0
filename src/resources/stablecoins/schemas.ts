import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';

export const stablecoinProvider = z.enum(['BRALE']);
export const providerAccountStatus = z.enum(['ACTIVE', 'INVALID', 'REVOKED']);
export const issuanceStatus = z.enum(['PENDING_REVIEW', 'PROVISIONING', 'PROVISIONED', 'REJECTED', 'FAILED']);
export const serviceOperationsStatus = z.enum(['NOT_ENABLED', 'PENDING_APPROVAL', 'ENABLING', 'ENABLED', 'DISABLED']);
export type ServiceOperationsStatus = z.infer<typeof serviceOperationsStatus>;

/** `StablecoinProviderAccountLinkRequest`. */
export const providerAccountLinkRequest = z.object({
  provider: stablecoinProvider,
  apiClientId: z.string().min(1).max(255),
  apiClientSecret: z.string().min(1).max(1024),
  providerAccountId: z.string().min(1).max(255).optional(),
});
export type ProviderAccountLinkRequest = z.infer<typeof providerAccountLinkRequest>;

/** Query of `GET /stablecoin-provider-accounts`. */
export const providerAccountsQuery = z.object({ provider: stablecoinProvider.optional(), status: providerAccountStatus.optional(), ...paginationQuery });
export type ProviderAccountsQuery = z.infer<typeof providerAccountsQuery>;

/** `StablecoinRegisterRequest`. */
export const stablecoinRegisterRequest = z.object({
  providerTokenIdentifier: z.string().min(1).max(64),
  networkTokenIdentifier: z.string().min(1).max(255),
  network: z.enum(['SPARK']),
  stablecoinProviderAccountId: z.string().min(1).max(255).optional(),
});
export type StablecoinRegisterRequest = z.infer<typeof stablecoinRegisterRequest>;

/** Query of `GET /stablecoins`. */
export const stablecoinsQuery = z.object({
  issuanceStatus: issuanceStatus.optional(),
  serviceOperationsStatus: serviceOperationsStatus.optional(),
  provider: stablecoinProvider.optional(),
  ...paginationQuery,
});
export type StablecoinsQuery = z.infer<typeof stablecoinsQuery>;

const amount = z.string().regex(/^[0-9]+$/, 'digits only: an integer in the stablecoin’s smallest unit').max(30);
const description = z.string().max(1024).optional();

/** `StablecoinMintFundingSource` (discriminated on `type`). */
export const mintFundingSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('WIRE') }),
  z.object({ type: z.literal('ACH_DEBIT'), externalAccountId: z.string().min(1) }),
  z.object({ type: z.literal('SAME_DAY_ACH_DEBIT'), externalAccountId: z.string().min(1) }),
  z.object({ type: z.literal('SERVICE_INTERNAL_ACCOUNT'), accountId: z.string().min(1) }),
  z.object({ type: z.literal('PROVIDER_INTERNAL_BALANCE'), sourceTokenIdentifier: z.string().min(1), cryptoNetwork: z.string().min(1) }),
]);
export type MintFundingSource = z.infer<typeof mintFundingSource>;

/** `StablecoinMintRequest`. */
export const stablecoinMintRequest = z.object({
  amount,
  fundingSource: mintFundingSource,
  destination: z.object({ accountId: z.string().min(1) }),
  description,
});
export type StablecoinMintRequest = z.infer<typeof stablecoinMintRequest>;

/** `StablecoinBurnSource`. */
export const burnSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('EXTERNAL_ACCOUNT') }),
  z.object({ type: z.literal('SERVICE_INTERNAL_ACCOUNT'), accountId: z.string().min(1) }),
  z.object({ type: z.literal('PROVIDER_INTERNAL_BALANCE') }),
]);
export type BurnSource = z.infer<typeof burnSource>;

/** `StablecoinBurnRequest`. */
export const stablecoinBurnRequest = z.object({
  amount,
  source: burnSource,
  destination: z.object({
    type: z.literal('EXTERNAL_ACCOUNT'),
    externalAccountId: z.string().min(1),
    rail: z.enum(['WIRE', 'ACH_CREDIT', 'SAME_DAY_ACH_CREDIT', 'RTP_CREDIT']),
  }),
  description,
});
export type StablecoinBurnRequest = z.infer<typeof stablecoinBurnRequest>;

/** Query of `GET /stablecoins/{id}/operations`. */
export const operationsQuery = z.object({ operationType: z.enum(['MINT', 'BURN']).optional(), ...paginationQuery });
export type OperationsQuery = z.infer<typeof operationsQuery>;

/** Control plane: the operator's decision on a stablecoin's service operations. */
export const operatorStatusBody = z.object({ serviceOperationsStatus: z.enum(['ENABLING', 'ENABLED', 'DISABLED']) });
/** Control plane: the provider's view of a link's credentials. */
export const providerAccountStatusBody = z.object({ status: providerAccountStatus });
