import type { Area } from '../area.js';
import { handlers } from './routes.js';

export { listVasps } from './service.js';

/** VASPs: the directory of exchanges and custodial platforms for counterparty declarations (`GET /vasps`). */
export const vaspsArea: Area = { name: 'vasps', migrations: [], handlers };
