import * as z from 'zod';
import type { SandboxContext } from '../store/context.js';
import { accountsOfCustomer } from '../resources/internal-accounts/index.js';
import { createCustomer } from '../resources/customers/index.js';
import type { Platform } from '../tenancy/index.js';
import { fundInternalAccount } from '../resources/transfers/index.js';

/** Body of `POST /_sandbox/seed`. */
export const seedBody = z.object({
  customers: z.number().int().min(0).max(2_000_000).default(0),
  transactions: z.number().int().min(0).max(2_000_000).default(0),
});
export type SeedRequest = z.infer<typeof seedBody>;

/** Rows written per database transaction; the event loop gets a turn between batches. */
const BATCH = 5_000;
/** Customers the seeded transactions are spread over (round robin over their USD accounts). */
const PAYEES = 100;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs `count` steps in batches of BATCH, each batch one transaction. */
async function inBatches(ctx: SandboxContext, count: number, step: (index: number) => void): Promise<void> {
  for (let start = 0; start < count; start += BATCH) {
    const end = Math.min(count, start + BATCH);
    // Each batch is a transaction of its own, never a savepoint in the group the previous batch
    // (whose nested creates put its commit off a turn) or other writes keep open: thousands of
    // savepoints nested in one cost time growing with its size (SQLite walks the outer one's
    // journal at each release; 100,000 customers took 79 s instead of 7).
    ctx.commitNow();
    ctx.tx(() => {
      for (let index = start; index < end; index += 1) step(index);
    });
    await nextTurn();
  }
}

/**
 * `POST /_sandbox/seed`: a large data set made through the services themselves (no raw SQL),
 * so the rows are what the API would have made: `customers` individuals with a USD account
 * (`platformCustomerId` `seed-<run>-<n>`, n from 0, the prefix answered), and `transactions` sandbox fundings (INCOMING,
 * COMPLETED) spread over a hundred more customers. Many rows per database transaction.
 */
export async function seed(ctx: SandboxContext, platform: Platform, request: SeedRequest): Promise<{ customers: number; transactions: number; platformCustomerIdPrefix: string; seconds: number }> {
  const started = performance.now();
  const run = ctx.ids.uuid().slice(-12);
  const customer = (tag: string, index: number) =>
    createCustomer(ctx, platform, {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `seed-${run}-${tag}${index}`,
      fullName: `Seed Customer ${index}`,
      birthDate: '1990-01-15',
      nationality: 'US',
      currencies: ['USD'],
    });
  await inBatches(ctx, request.customers, (index) => customer('', index));
  if (request.transactions > 0) {
    const payees: string[] = [];
    ctx.tx(() => {
      for (let index = 0; index < Math.min(PAYEES, request.transactions); index += 1) {
        const record = customer('payee-', index);
        payees.push(accountsOfCustomer(ctx, platform.id, record.id).find((account) => account.currency === 'USD')!.id);
      }
    });
    await inBatches(ctx, request.transactions, (index) => fundInternalAccount(ctx, platform, payees[index % payees.length]!, 100 + (index % 900)));
  }
  return { customers: request.customers, transactions: request.transactions, platformCustomerIdPrefix: `seed-${run}-`, seconds: Math.round((performance.now() - started) / 100) / 10 };
}
