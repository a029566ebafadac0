import type { Permission } from './schemas.js';

/**
 * Which `Permission` an API token needs for a request (the contract's `Permission`: VIEW reads
 * everything; TRANSACT sends payments; MANAGE manages platform config, API tokens and customers).
 * Reads need VIEW; the money-moving writes below need TRANSACT; every other write needs MANAGE.
 * The platform's own credentials are not tokens and hold every permission.
 */
const transactPaths: RegExp[] = [
  /^\/quotes(\/[^/]+\/(execute|authorize(\/resend)?))?$/,
  /^\/transfer-(in|out)$/,
  /^\/transactions\/[^/]+\/(confirm|approve|reject|cancel)$/,
  /^\/crypto\/estimate-withdrawal-fee$/,
  /^\/stablecoins\/[^/]+\/(mints|burns)$/,
  /^\/sandbox\/(send|uma\/receive|internal-accounts\/[^/]+\/fund)$/,
];

/** The permission a request needs; `path` is relative to the API base (e.g. `/customers`). */
export function requiredPermission(method: string, path: string): Permission {
  if (method === 'GET' || method === 'HEAD') return 'VIEW';
  if (transactPaths.some((pattern) => pattern.test(path))) return 'TRANSACT';
  return 'MANAGE';
}
