// Lists at 1,000 / 100,000 / 1,000,000 customers and 1,000 / 1,000,000 transactions (bench/lists.mjs);
// BENCH_LIST_SIZES and BENCH_LIST_TRANSACTIONS (comma lists) change the sizes.
import { benchLists, DEFAULT_SIZES, DEFAULT_TRANSACTIONS, sizesOf } from '../lists.mjs';

export async function run({ seconds }) {
  return benchLists({
    sizes: sizesOf(process.env.BENCH_LIST_SIZES, DEFAULT_SIZES),
    transactions: sizesOf(process.env.BENCH_LIST_TRANSACTIONS, DEFAULT_TRANSACTIONS),
    seconds,
  });
}
