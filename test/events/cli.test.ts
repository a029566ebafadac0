import { Command } from 'commander';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { registerWebhooksCommands } from '../../src/cli/webhooks.js';
import { useSandbox } from '../helpers/sandbox.js';
import { Receiver } from './receiver.js';
import { deliveryReaches } from './helpers.js';

const s = useSandbox();
let receiver: Receiver | undefined;
afterAll(async () => receiver?.close());

/** Runs `service-sandbox webhooks ...` in process against the test sandbox; resolves to its stdout. */
async function cli(...args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  registerWebhooksCommands(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['webhooks', ...args, '--url', s.sandbox.origin, '--client-id', s.api.clientId, '--client-secret', s.api.clientSecret], { from: 'user' });
  } finally {
    spy.mockRestore();
  }
  // eslint-disable-next-line no-control-regex
  return out.replace(/\u001b\[[0-9;]*m/g, '');
}

describe('service-sandbox webhooks', () => {
  it('key prints the public key', async () => {
    const pem = (await s.api.get('/_sandbox/webhooks/public-key')).body.publicKey;
    expect(await cli('key')).toBe(pem);
  });

  it('trigger, list and replay work against a running sandbox', async () => {
    receiver = await Receiver.start((n) => (n === 0 ? { status: 500, body: 'boom' } : { status: 200 }));
    await s.api.patch('/config', { webhookEndpoint: receiver.url });

    const types = await cli('trigger');
    expect(types).toMatch(/^TEST\s+triggerable$/m);

    const triggered = await cli('trigger', 'TEST');
    const id = /triggered TEST (Webhook:\S+)/.exec(triggered)![1]!;
    expect(triggered).toContain(`#1 ${receiver.url} -> 500`);
    expect(triggered).toContain('RETRYING');

    const listed = await cli('list', '--attempts');
    expect(listed).toContain(id);
    expect(listed).toMatch(/RETRYING\s+1 attempt, last 500/);
    expect(listed).toContain('"boom"');

    const replayed = await cli('replay', id);
    expect(replayed).toMatch(new RegExp(`TEST\\s+${id}\\s+#2 -> 200 in \\d+ ms\\s+delivered`));
    await deliveryReaches(s.api, id, 'DELIVERED', 2);
    expect(await cli('list', '--status', 'DELIVERED')).toContain(id);
    expect(receiver.received.map((r) => r.body.id)).toEqual([id, id]);
  });

  it('trigger refuses a type the contract does not have', async () => {
    await expect(cli('trigger', 'CUSTOMER.HAPPY')).rejects.toThrow(/not an event type of the contract/);
  });
});
