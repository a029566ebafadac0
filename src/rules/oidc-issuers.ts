/**
 * OIDC issuers the sandbox accepts for `OAUTH` credentials (API.md "Sandbox behaviour": `iss`
 * must be a supported issuer). One row per identity provider; the `providerName` is what the
 * `payloadToSign` of a registration names.
 */
export const supportedOidcIssuers: Readonly<Record<string, { providerName: string }>> = {
  'https://accounts.google.com': { providerName: 'Google' },
  'accounts.google.com': { providerName: 'Google' },
  'https://appleid.apple.com': { providerName: 'Apple' },
  'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0': { providerName: 'Microsoft' },
  'https://www.facebook.com': { providerName: 'Facebook' },
  'https://id.twitch.tv/oauth2': { providerName: 'Twitch' },
  'https://discord.com': { providerName: 'Discord' },
  'https://x.com': { providerName: 'X' },
};

/** Clock skew allowed on `iat` (seconds). */
export const OIDC_IAT_SKEW_SECONDS = 5;
/** How old `iat` may be (seconds). */
export const OIDC_MAX_AGE_SECONDS = 60;
