import type { Area } from '../area.js';
import { handlers } from './routes.js';

export { bitcoinAddressProblem, estimateWithdrawalFee } from './service.js';

/** Crypto withdrawals: `POST /crypto/estimate-withdrawal-fee` from the per-network fee table. */
export const cryptoWithdrawalsArea: Area = { name: 'crypto-withdrawals', migrations: [], handlers };
