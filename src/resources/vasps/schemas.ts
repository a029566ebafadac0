import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';

/** Query of `GET /vasps`: `limit` and `cursor`. */
export const vaspsQuery = z.object({ ...paginationQuery });

export type VaspsQuery = z.infer<typeof vaspsQuery>;
