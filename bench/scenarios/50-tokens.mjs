// API-token authentication at 10 connections with a file database: GET /config with a token's
// credentials (uncached lookup by client id on every request, so a deleted token fails at once;
// the secret checked with scrypt the first time, then against the in-memory record of verified
// credentials, a SHA-256 and a map look-up; permission check) next to the platform's own credentials.
import { api } from '../run.mjs';

export async function run({ baseUrl, load }) {
  const token = await api(baseUrl, 'POST', '/tokens', { name: 'bench', permissions: ['VIEW'] });
  const auth = `Basic ${Buffer.from(`${token.clientId}:${token.clientSecret}`).toString('base64')}`;
  // The platform run first also warms the process up, so the two figures compare like for like.
  const withPlatform = await load({ url: `${baseUrl}/config`, connections: 10 });
  const withToken = await load({ url: `${baseUrl}/config`, connections: 10, headers: { Authorization: auth } });
  if (withToken.non2xx || withToken.errors) throw new Error(`GET /config with a token: ${withToken.non2xx} non-2xx, ${withToken.errors} errors`);
  return [
    { name: 'GET /config with platform credentials, same sandbox', value: withPlatform.rps, unit: 'req/s', target: '', ok: true },
    { name: 'GET /config with an API token, 10 connections', value: withToken.rps, unit: 'req/s', target: '>= 3000 req/s', ok: withToken.rps >= 3000 },
    { name: 'GET /config with an API token p99', value: withToken.p99, unit: 'ms', target: '<= 20 ms', ok: withToken.p99 <= 20 },
  ];
}
