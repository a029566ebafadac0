import { queryOf } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import { vaspsQuery } from './schemas.js';
import { listVasps } from './service.js';

/** The VASP directory. */
export const handlers: OperationHandlers = {
  listVasps: (c) => c.json(listVasps(queryOf(c, vaspsQuery))),
};
