// Embedded wallet: full EMAIL_OTP logins (challenge, verify, signed retry) per second, and signed
// wallet payouts (POST /quotes/{id}/execute with a stamp) per second, 10 concurrent clients, file
// database. The client crypto (HPKE to the target bundle, P-256 stamps) runs in this process.
import http from 'node:http';
import { api, AUTH, importSource } from '../run.mjs';

const { hpkeSeal, fromHex, generateSigningKey, toHex, stampWith } = await importSource(['src/crypto/hpke.ts', 'src/crypto/keys.ts', 'src/crypto/stamp.ts']);

export const CONCURRENCY = 10;

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
/** One JSON call over a kept-alive connection (node:http: a fraction of fetch's client CPU, so the load generator is not the bottleneck). */
function call(baseUrl, method, path, body, headers = {}) {
  const url = new URL(`${baseUrl}${path}`);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: { Authorization: AUTH, 'Content-Type': 'application/json', ...(payload ? { 'Content-Length': Buffer.byteLength(payload) } : {}), ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (res.statusCode >= 300) reject(new Error(`${method} ${path}: ${res.statusCode} ${JSON.stringify(json)}`));
        else resolve(json);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * One full EMAIL_OTP login (challenge, verify, signed retry); returns the session key. The client
 * makes a fresh key per login, as @turnkey/crypto's generateP256KeyPair does, and keeps it as a
 * node:crypto KeyObject for its stamps: the wire bytes are what ApiKeyStamper sends.
 */
export async function login(baseUrl, credentialId) {
  const challenge = await call(baseUrl, 'POST', `/auth/credentials/${credentialId}/challenge`, {});
  const target = JSON.parse(Buffer.from(JSON.parse(challenge.otpEncryptionTargetBundle).data, 'hex').toString()).targetPublic;
  const key = generateSigningKey();
  const sealed = await hpkeSeal(fromHex(target), new TextEncoder().encode(JSON.stringify({ otp_code: '000000', public_key: toHex(key.publicKeyUncompressed) })));
  const body = { type: 'EMAIL_OTP', encryptedOtpBundle: JSON.stringify({ encappedPublic: toHex(sealed.encappedPublic), ciphertext: toHex(sealed.ciphertext) }) };
  const first = await call(baseUrl, 'POST', `/auth/credentials/${credentialId}/verify`, body);
  await call(baseUrl, 'POST', `/auth/credentials/${credentialId}/verify`, body, { 'Service-Wallet-Signature': stampWith(first.payloadToSign, key), 'Request-Id': first.requestId });
  return key;
}

/** Runs `task` in CONCURRENCY loops for `seconds`; returns completions per second. */
export async function rate(seconds, task) {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      while (performance.now() < end) {
        if ((await task(worker)) === false) return;
        done += 1;
      }
    }),
  );
  return done / seconds;
}

/** One funded wallet (and its customer's USD account and EMAIL_OTP credential) per client: each OTP issuance belongs to one credential. */
export async function setupWallets(baseUrl) {
  const wallets = [];
  for (let i = 0; i < CONCURRENCY; i += 1) {
    const customer = await api(baseUrl, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bench Wallet', email: `bench${i}@example.com`, currencies: ['USD', 'USDB'] });
    const accounts = (await api(baseUrl, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).data;
    const wallet = accounts.find((a) => a.type === 'EMBEDDED_WALLET');
    const usd = accounts.find((a) => a.type !== 'EMBEDDED_WALLET');
    const credential = (await api(baseUrl, 'GET', `/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`)).data[0];
    await api(baseUrl, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(wallet.id)}/fund`, { amount: 100_000_000_000 });
    wallets.push({ wallet, usd, credential });
  }
  return wallets;
}

/** Quotes from each wallet to its USD account, made before the timed part: one queue per client. */
export function prepareQuotes(baseUrl, wallets, perWorker) {
  return Promise.all(
    wallets.map(async (w) => {
      const out = [];
      for (let n = 0; n < perWorker; n += 1) {
        const quote = await call(baseUrl, 'POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: w.wallet.id }, destination: { destinationType: 'ACCOUNT', accountId: w.usd.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000_000 });
        out.push(quote);
      }
      return out;
    }),
  );
}

/** One signed payout: the stamp (made here) over the quote's payloadToSign, then the execute. */
export function execute(baseUrl, quote, key) {
  const stamp = stampWith(quote.paymentInstructions[1].accountOrWalletInfo.payloadToSign, key);
  return call(baseUrl, 'POST', `/quotes/${quote.id}/execute`, {}, { 'Service-Wallet-Signature': stamp });
}

export async function run({ baseUrl, seconds }) {
  const wallets = await setupWallets(baseUrl);
  const logins = await rate(seconds, (i) => login(baseUrl, wallets[i].credential.id));
  const keys = await Promise.all(wallets.map((w) => login(baseUrl, w.credential.id)));

  // Quotes made beforehand; the timed part is the signed execute (stamp made by the client).
  const queues = await prepareQuotes(baseUrl, wallets, Math.ceil((600 * seconds) / CONCURRENCY));
  const executes = await rate(seconds, async (i) => {
    const quote = queues[i].pop();
    if (!quote) return false;
    await execute(baseUrl, quote, keys[i]);
  });
  return [
    { name: 'wallet EMAIL_OTP logins (3 calls each), 10 clients', value: logins, unit: 'logins/s', target: '>= 200 logins/s', ok: logins >= 200 },
    { name: 'signed wallet payouts (execute with stamp), 10 clients', value: executes, unit: 'executes/s', target: '>= 300 executes/s', ok: executes >= 300 },
  ];
}
