// The cost of recording integration coverage on GET /config and POST /customers (bench/coverage.mjs):
// two sandboxes of its own, recording on and off, loaded in alternation.
import { benchCoverage } from '../coverage.mjs';

export async function run({ seconds }) {
  return benchCoverage({ rounds: 3, seconds });
}
