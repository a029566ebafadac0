// Embedded wallet: full EMAIL_OTP logins (challenge, verify, signed retry) per second, and signed
// wallet payouts (POST /quotes/{id}/execute with a stamp) per second, 10 concurrent clients, file
// database. The client crypto (HPKE to the target bundle, P-256 stamps) runs in this process.
import net from 'node:net';
import { api, AUTH, importSource } from '../run.mjs';

const { hpkeSeal, fromHex, generateSigningKey, toHex, stampWith } = await importSource(['src/crypto/hpke.ts', 'src/crypto/keys.ts', 'src/crypto/stamp.ts']);

export const CONCURRENCY = 10;
/** Untimed seconds of the same load before each measured one. */
const WARMUP_SECONDS = 2;

/** Idle kept-alive connections by host:port. */
const idle = new Map();
const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * One JSON call over a kept-alive HTTP/1.1 connection, written and read on a plain socket: the
 * same request bytes node:http would send (request line, Host, the headers, Content-Length,
 * body), at a third of its client CPU, so the load generator takes less of the two CPUs it
 * shares with the sandbox. The sandbox answers with Content-Length bodies; anything else
 * (chunked, a closed connection) is an error here, not a guess.
 */
function call(baseUrl, method, path, body, headers = {}) {
  const url = new URL(`${baseUrl}${path}`);
  const payload = body === undefined ? '' : JSON.stringify(body);
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${AUTH}\r\nContent-Type: application/json\r\n`;
  if (body !== undefined) head += `Content-Length: ${Buffer.byteLength(payload)}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  const pool = idle.get(url.host) ?? idle.set(url.host, []).get(url.host);
  let socket = pool.pop();
  // A connection the sandbox closed while idle (its keep-alive timeout) is dropped.
  while (socket && socket.readyState !== 'open') socket = pool.pop();
  socket ??= net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    let status = 0;
    let bodyStart = -1;
    let length = -1;
    let keepAlive = true;
    const done = (error, value) => {
      socket.off('data', onData).off('error', onError).off('close', onClose);
      if (error) {
        socket.destroy();
        reject(error);
        return;
      }
      if (keepAlive) pool.push(socket);
      else socket.end();
      resolve(value);
    };
    const onError = (error) => done(error);
    const onClose = () => done(new Error(`${method} ${path}: connection closed before the response`));
    const onData = (chunk) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      if (bodyStart < 0) {
        const end = buffered.indexOf(HEAD_END);
        if (end < 0) return;
        const lines = buffered.toString('latin1', 0, end).split('\r\n');
        status = Number(lines[0].split(' ')[1]);
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(':');
          const name = line.slice(0, colon).toLowerCase();
          const value = line.slice(colon + 1).trim();
          if (name === 'content-length') length = Number(value);
          else if (name === 'connection') keepAlive = value.toLowerCase() !== 'close';
          else if (name === 'transfer-encoding') return done(new Error(`${method} ${path}: unexpected Transfer-Encoding ${value}`));
        }
        if (length < 0) return done(new Error(`${method} ${path}: response without Content-Length`));
        bodyStart = end + HEAD_END.length;
      }
      if (buffered.length < bodyStart + length) return;
      const json = JSON.parse(buffered.toString('utf8', bodyStart, bodyStart + length));
      if (status >= 300) done(new Error(`${method} ${path}: ${status} ${JSON.stringify(json)}`));
      else done(undefined, json);
    };
    socket.on('data', onData).on('error', onError).on('close', onClose);
    socket.write(`${head}\r\n${payload}`);
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
  // Measured after a warm-up of the same load, as load tools do (autocannon's --warmup): the first
  // seconds after start cost the sandbox about twice the CPU per login while V8 compiles the
  // wallet path, and the figure is the sandbox's steady rate.
  await rate(WARMUP_SECONDS, (i) => login(baseUrl, wallets[i].credential.id));
  const logins = await rate(seconds, (i) => login(baseUrl, wallets[i].credential.id));
  const keys = await Promise.all(wallets.map((w) => login(baseUrl, w.credential.id)));

  // Quotes made beforehand; the timed part is the signed execute (stamp made by the client).
  const queues = await prepareQuotes(baseUrl, wallets, Math.ceil((600 * (seconds + WARMUP_SECONDS)) / CONCURRENCY));
  const pay = async (i) => {
    const quote = queues[i].pop();
    if (!quote) return false;
    await execute(baseUrl, quote, keys[i]);
  };
  await rate(WARMUP_SECONDS, pay);
  const executes = await rate(seconds, pay);
  return [
    { name: 'wallet EMAIL_OTP logins (3 calls each), 10 clients, after 2 s warm-up', value: logins, unit: 'logins/s', target: '>= 200 logins/s', ok: logins >= 200 },
    { name: 'signed wallet payouts (execute with stamp), 10 clients, after 2 s warm-up', value: executes, unit: 'executes/s', target: '>= 300 executes/s', ok: executes >= 300 },
  ];
}
