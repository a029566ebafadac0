import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, startCli } from '../helpers/cli.js';

// Group commit (src/store/context.ts): the writes of one turn of the event loop share a commit
// and every answer waits for it. Killed with SIGKILL in the middle of a load of creates and
// fundings, a sandbox restarted on the same file still holds every customer and every funding
// it answered for, and each balance is the sum of the fundings it answered plus any whose answer
// the kill cut off (committed, never told), never less. Refused writes (a duplicate) mixed in
// undo only themselves.
const dir = mkdtempSync(join(tmpdir(), 'sbx-group-commit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('group commit and kill -9', () => {
  it('keeps every write it answered for', async () => {
    const db = join(dir, 'crash.db');
    const first = await startCli(['--port', '0', '--db', db, '--quiet']);
    const payer = await api(first.baseUrl, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Crash Payer', currencies: ['USD'] });
    expect(payer.status).toBe(201);
    const usd = (await api(first.baseUrl, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(payer.body.id)}`)).body.data[0].id as string;

    const created: string[] = [];
    let funded = 0;
    const refused: number[] = [];
    let stop = false;
    // Ten workers, each a create then a funding of 1, until the kill.
    const worker = async (w: number) => {
      for (let i = 0; !stop; i += 1) {
        try {
          const res = await api(first.baseUrl, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Crash ${w} ${i}`, platformCustomerId: `crash-${w}-${i}` });
          if (res.status === 201) created.push(res.body.id);
          const fund = await api(first.baseUrl, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(usd)}/fund`, { amount: 1 });
          if (fund.status === 200) funded += 1;
          // A refused write in the same turns: its transaction undone, nobody else's.
          const again = await api(first.baseUrl, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Crash ${w} ${i}`, platformCustomerId: `crash-${w}-${i}` });
          refused.push(again.status);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const workers = Array.from({ length: 10 }, (_, w) => worker(w));
    while (created.length < 200) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    await new Promise<void>((resolve) => (first.child.exitCode !== null || first.child.signalCode !== null ? resolve() : first.child.once('exit', () => resolve())));
    const answeredCreates = [...created];
    const answeredFunds = funded;
    expect(answeredCreates.length).toBeGreaterThanOrEqual(200);
    expect(answeredFunds).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set([409]));

    const second = await startCli(['--port', '0', '--db', db, '--quiet']);
    for (const id of answeredCreates) {
      const res = await api(second.baseUrl, 'GET', `/customers/${encodeURIComponent(id)}`);
      expect(res.status, id).toBe(200);
      const accounts = await api(second.baseUrl, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(id)}`);
      expect(accounts.body.data.length, id).toBeGreaterThan(0);
    }
    const account = (await api(second.baseUrl, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(payer.body.id)}`)).body.data[0];
    // Every answered funding is there; at most one per worker may be there unanswered (cut off by the kill).
    expect(account.balance.amount).toBeGreaterThanOrEqual(answeredFunds);
    expect(account.balance.amount).toBeLessThanOrEqual(answeredFunds + 10);
    second.child.kill('SIGTERM');
  }, 60_000);
});
