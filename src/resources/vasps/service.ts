import { invalidInput } from '../../core/errors.js';
import { paginate } from '../../core/pagination.js';
import { vasps, type VaspRow } from '../../rules/vasps.js';
import type { VaspsQuery } from './schemas.js';

const byName = [...vasps].sort((a, b) => a.vaspName.localeCompare(b.vaspName, 'en', { sensitivity: 'base' }));

/** `GET /vasps`: the directory in name order, `{ data, hasMore, nextCursor? }` (the contract's list has no `totalCount`). */
export function listVasps(query: VaspsQuery): { data: VaspRow[]; hasMore: boolean; nextCursor?: string } {
  const page = paginate(
    query,
    ({ afterKey, take }) => {
      const index = afterKey === undefined ? -1 : byName.findIndex((row) => row.vaspName === afterKey);
      if (afterKey !== undefined && index < 0) {
        throw invalidInput('The cursor does not belong to this listing.', [{ field: 'cursor', message: 'Pass the nextCursor of a previous page unchanged.' }]);
      }
      return byName.slice(index + 1, index + 1 + take);
    },
    () => byName.length,
    (row) => row.vaspName,
    (row): VaspRow => ({ ...row }),
  );
  return { data: page.data, hasMore: page.hasMore, ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) };
}
