import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runSync as run, startCli } from '../helpers/cli.js';

describe('stablecoins CLI', () => {
  it('requests enablement and sets the operator status of a stablecoin', async () => {
    const { baseUrl, origin } = await startCli();
    const headers = {
      Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`,
      'Content-Type': 'application/json',
    };
    const post = async (path: string, body: unknown) =>
      (await (await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': randomUUID() }, body: JSON.stringify(body) })).json()) as { id: string };
    await post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: 'cli-key', apiClientSecret: 'cli-secret' });
    const coin = await post('/stablecoins', { providerTokenIdentifier: 'SBC', networkTokenIdentifier: 'btkn-cli', network: 'SPARK' });
    expect(run(['stablecoins', 'request-enablement', coin.id, '--url', origin]).stdout).toContain('PENDING_APPROVAL');
    expect(run(['stablecoins', 'set-status', coin.id, 'enabled', '--url', origin]).stdout).toContain('ENABLED');
    const bad = run(['stablecoins', 'set-status', coin.id, 'PENDING_APPROVAL', '--url', origin]);
    expect(bad.status).not.toBe(0);
    const again = run(['stablecoins', 'request-enablement', coin.id, '--url', origin]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('STABLECOIN_SERVICE_ENABLEMENT_NOT_REQUESTABLE');
  });
});
