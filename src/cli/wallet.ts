import type { Command } from 'commander';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseBundle, verifyBundle } from '../crypto/bundle.js';
import { hpkeSeal } from '../crypto/hpke.js';
import { fromHex, generateKeyPair, publicKeyOf, toHex } from '../crypto/keys.js';
import { signStamp } from '../crypto/stamp.js';
import { CliError, clientOptions, originOf, withClientOptions, type ClientOptions } from './client.js';

/** Where `wallet login` saves the session key, and where `quotes execute` looks for it. */
export const DEFAULT_KEY_FILE = '.service-sandbox/wallet-session.json';
const API = '/2025-10-13';

/** A signing key saved by `wallet login` (the private key never leaves this file). */
export interface SavedKey {
  accountId: string;
  sessionId: string;
  expiresAt: string;
  publicKey: string;
  privateKey: string;
}

/** A key file: what `wallet login` saved, or a session signing key of your own (P-256 private key, 64 hex digits, alone or as `{"privateKey": ...}`). */
export type WalletKey = Pick<SavedKey, 'privateKey'> & Partial<SavedKey>;

async function request(options: ClientOptions, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const origin = originOf(options.url);
  let response: Response;
  try {
    response = await fetch(`${origin}${API}${path}`, {
      method,
      headers: { Authorization: `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`, 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new CliError(`no sandbox is answering at ${origin}; start one with \`npx service-sandbox\` or pass --url`);
  }
  const text = await response.text();
  const json = text ? (JSON.parse(text) as any) : undefined;
  if (!response.ok) throw new CliError(`${method} ${path}: ${response.status} ${json?.code ?? ''} ${json?.details?.reason ?? json?.message ?? text}`.replace(/\s+/g, ' ').trim());
  return { status: response.status, body: json };
}

/**
 * The whole EMAIL_OTP login of an embedded wallet, as a client does it: challenge, a fresh P-256
 * key, the OTP `000000` HPKE-encrypted to the signed target bundle, the signed retry.
 */
async function login(options: ClientOptions, accountId: string, keyFile: string): Promise<SavedKey> {
  const list = await request(options, 'GET', `/auth/credentials?accountId=${encodeURIComponent(accountId)}`);
  const credential = (list.body.data as { id: string; type: string }[]).find((c) => c.type === 'EMAIL_OTP');
  if (!credential) throw new CliError(`${accountId} has no EMAIL_OTP credential (is it an embedded wallet of a customer with an email?)`);
  const challenge = await request(options, 'POST', `/auth/credentials/${credential.id}/challenge`, {});
  const bundle = parseBundle(challenge.body.otpEncryptionTargetBundle as string);
  if (!verifyBundle(bundle)) throw new CliError('the otpEncryptionTargetBundle signature does not verify against its enclaveQuorumPublic');
  const key = generateKeyPair();
  const plaintext = JSON.stringify({ otp_code: '000000', public_key: toHex(publicKeyOf(key.secretKey, false)) });
  const sealed = await hpkeSeal(fromHex(String(bundle.data.targetPublic)), new TextEncoder().encode(plaintext));
  const body = { type: 'EMAIL_OTP', encryptedOtpBundle: JSON.stringify({ encappedPublic: toHex(sealed.encappedPublic), ciphertext: toHex(sealed.ciphertext) }) };
  const first = await request(options, 'POST', `/auth/credentials/${credential.id}/verify`, body);
  const privateKey = toHex(key.secretKey);
  const session = await request(options, 'POST', `/auth/credentials/${credential.id}/verify`, body, {
    'Service-Wallet-Signature': signStamp(first.body.payloadToSign as string, privateKey),
    'Request-Id': first.body.requestId as string,
  });
  const saved: SavedKey = { accountId, sessionId: session.body.id, expiresAt: session.body.expiresAt, publicKey: toHex(key.publicKey), privateKey };
  mkdirSync(dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  return saved;
}

/** Reads a key file, or undefined when there is none; a file that holds no key is an error. */
export function readWalletKey(keyFile: string): WalletKey | undefined {
  let text: string;
  try {
    text = readFileSync(keyFile, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read the wallet key file ${keyFile}: ${(error as Error).message}`);
  }
  const hex = /^(0x)?([0-9a-fA-F]{64})$/.exec(text);
  if (hex) return { privateKey: hex[2]!.toLowerCase() };
  let parsed: Partial<SavedKey> | undefined;
  try {
    parsed = JSON.parse(text) as Partial<SavedKey>;
  } catch {
    parsed = undefined;
  }
  if (!parsed || typeof parsed.privateKey !== 'string' || !/^[0-9a-fA-F]{64}$/.test(parsed.privateKey)) {
    throw new CliError(`${keyFile} holds no wallet session key (the file \`wallet login\` saves, or a P-256 private key as 64 hex digits)`);
  }
  return parsed as WalletKey;
}

function readKey(keyFile: string): WalletKey {
  const key = readWalletKey(keyFile);
  if (!key) throw new CliError(`no wallet key at ${keyFile}; run \`service-sandbox wallet login <internalAccountId>\` first`);
  return key;
}

/**
 * The `Service-Wallet-Signature` stamp of an embedded-wallet payout: the quote's `payloadToSign`
 * signed with the session key in `keyFile` (saved by `wallet login <accountId>`). Says what to run
 * when there is no key, or it is another wallet's.
 */
export function signWalletPayout(quote: { id: string; source?: { accountId?: string } }, payloadToSign: string, keyFile: string): string {
  const accountId = quote.source?.accountId ?? '<internalAccountId>';
  const key = readWalletKey(keyFile);
  if (!key) {
    throw new CliError(
      `quote ${quote.id} pays from the embedded wallet ${accountId}, so its payout is signed with a wallet session key, and there is none at ${keyFile}: ` +
        `run \`service-sandbox wallet login ${accountId}\` (it saves one there), or pass --key-file <file>`,
    );
  }
  if (key.accountId && quote.source?.accountId && key.accountId !== quote.source.accountId) {
    throw new CliError(
      `the wallet session key in ${keyFile} is for ${key.accountId}, but quote ${quote.id} pays from ${quote.source.accountId}: ` +
        `run \`service-sandbox wallet login ${quote.source.accountId}\` (with --key-file to keep both), or pass --key-file <file> of that wallet's session`,
    );
  }
  return signStamp(payloadToSign, key.privateKey);
}

/** `wallet login` and `wallet sign`: try the embedded wallet by hand, without writing crypto. */
export function registerWalletCommands(program: Command): void {
  const wallet = program.command('wallet').description('embedded wallet helpers: log in with the sandbox OTP, stamp payloads');
  withClientOptions(
    wallet
      .command('login <internalAccountId>')
      .description('run the EMAIL_OTP login (OTP 000000) of an embedded wallet and save the session key')
      .option('--key-file <file>', 'where to save the session signing key', DEFAULT_KEY_FILE),
  ).action(async (accountId: string, opts: Record<string, unknown>) => {
    const keyFile = resolve(String(opts.keyFile));
    const saved = await login(clientOptions(opts), accountId, keyFile);
    process.stdout.write(`session ${saved.sessionId} (expires ${saved.expiresAt})\nsession public key ${saved.publicKey}\nprivate key saved to ${keyFile}\n`);
  });
  wallet
    .command('sign <payloadToSign>')
    .description('print the Service-Wallet-Signature stamp of a payloadToSign with the saved session key')
    .option('--key-file <file>', 'the key saved by wallet login', DEFAULT_KEY_FILE)
    .action((payload: string, opts: Record<string, unknown>) => {
      const saved = readKey(resolve(String(opts.keyFile)));
      process.stdout.write(`${signStamp(payload, saved.privateKey)}\n`);
    });
}
