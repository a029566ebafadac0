import { ruleFamily } from './rule-ids.js';

/**
 * sandbox-rules.md, "UMA addresses": the sandbox's own UMA test addresses, as receivers of
 * quotes to `UMA_ADDRESS` destinations and as senders of `POST /sandbox/uma/receive`. Each row
 * is one address: what it receives (or sends), how a payment to or from it ends, and the
 * counterparty data a lookup and a transaction show for it.
 */

/** How a payment to or from a test address ends. */
export type UmaBehaviour = 'SUCCEEDS' | 'PENDING_LONG' | 'FAILS_COMPLIANCE';

/** A receiving currency of a UMA address, with the amounts the receiving VASP accepts (smallest unit). */
export interface UmaCurrencyLimit {
  code: string;
  min: number;
  max: number;
}

/** One sandbox UMA test address. */
export interface UmaTestAddress {
  /** The address, lower case (UMA addresses compare case-insensitively). */
  address: string;
  /** Currencies it receives in, first one preferred; a payment it sends is in the first one. */
  currencies: readonly UmaCurrencyLimit[];
  behaviour: UmaBehaviour;
  /** For `PENDING_LONG`: how long, on the sandbox clock, before the payment completes. */
  pendingSeconds?: number;
  /** For `FAILS_COMPLIANCE`: the failure reason (valid for incoming and outgoing transactions). */
  failureReason?: 'COMPLIANCE_REJECTED';
  /** Payer data the receiving VASP asks for (`requiredPayerDataFields` of the lookup). */
  requiredPayerDataFields: readonly { name: string; mandatory: boolean }[];
  /** The account holder behind the address (KYC data the counterparty VASP shares). */
  holder: {
    FULL_NAME: string;
    BIRTH_DATE: string;
    NATIONALITY: string;
    COUNTRY_OF_RESIDENCE: string;
    USER_TYPE: 'INDIVIDUAL' | 'BUSINESS';
    FI_LEGAL_ENTITY_NAME: string;
  };
  /** What the sandbox says happened, kept as a transaction's description. */
  description: string;
  /**
   * A counterparty failure (the UMA errors of API.md's 400 list): at `LOOKUP` the receiver
   * lookup (`GET /receiver/uma/{address}`, and a quote to it) answers `400 <code>`; at `PAYREQ`
   * the lookup succeeds and `POST /quotes` answers it. Such an address sends nothing.
   */
  counterpartyError?: { phase: 'LOOKUP' | 'PAYREQ'; code: UmaCounterpartyCode; message: string; retryable?: boolean };
}

/** API.md's 400 codes of a failing counterparty VASP. */
export type UmaCounterpartyCode =
  | 'LOOKUP_REQUEST_FAILED'
  | 'PARSE_LNURLP_RESPONSE_ERROR'
  | 'CERT_CHAIN_INVALID'
  | 'CERT_CHAIN_EXPIRED'
  | 'INVALID_PUBKEY_FORMAT'
  | 'MISSING_REQUIRED_UMA_PARAMETERS'
  | 'INVALID_RECEIVER'
  | 'INVALID_NONCE'
  | 'INVALID_TIMESTAMP'
  | 'INVALID_PAYREQ_RESPONSE'
  | 'PARSE_PAYREQ_RESPONSE_ERROR'
  | 'SENDER_NOT_ACCEPTED'
  | 'QUOTE_REQUEST_FAILED';

/** The domain of the sandbox test VASP. */
export const UMA_TEST_DOMAIN = 'sandbox.uma.money';

/**
 * Every domain the test addresses answer under, with the same behaviour: sandbox-rules.md's
 * `sandbox.uma.money`, and `sandbox.grid.uma.money`, which the contract's own examples use
 * (`SandboxUmaReceiveRequest.senderUmaAddress`).
 */
export const UMA_TEST_DOMAINS: readonly string[] = [UMA_TEST_DOMAIN, 'sandbox.grid.uma.money'];

const fullName = { name: 'FULL_NAME', mandatory: true } as const;
const vasp = 'Sandbox UMA Test VASP';

/** Address -> behaviour. A rule is changed in one row. */
export const umaTestAddresses: readonly UmaTestAddress[] = [
  {
    address: `$success.usd@${UMA_TEST_DOMAIN}`,
    currencies: [{ code: 'USD', min: 1, max: 10_000_000 }],
    behaviour: 'SUCCEEDS',
    requiredPayerDataFields: [fullName],
    holder: { FULL_NAME: 'Alex Success', BIRTH_DATE: '1988-04-12', NATIONALITY: 'US', COUNTRY_OF_RESIDENCE: 'US', USER_TYPE: 'INDIVIDUAL', FI_LEGAL_ENTITY_NAME: vasp },
    description: 'UMA payment (sandbox address $success.usd: succeeds)',
  },
  {
    address: `$success.eur@${UMA_TEST_DOMAIN}`,
    currencies: [{ code: 'EUR', min: 1, max: 10_000_000 }],
    behaviour: 'SUCCEEDS',
    requiredPayerDataFields: [fullName, { name: 'BIRTH_DATE', mandatory: true }, { name: 'NATIONALITY', mandatory: true }],
    holder: { FULL_NAME: 'Elena Erfolg', BIRTH_DATE: '1991-09-03', NATIONALITY: 'DE', COUNTRY_OF_RESIDENCE: 'DE', USER_TYPE: 'INDIVIDUAL', FI_LEGAL_ENTITY_NAME: vasp },
    description: 'UMA payment (sandbox address $success.eur: succeeds)',
  },
  {
    address: `$success.mxn@${UMA_TEST_DOMAIN}`,
    currencies: [{ code: 'MXN', min: 100, max: 200_000_000 }],
    behaviour: 'SUCCEEDS',
    requiredPayerDataFields: [fullName, { name: 'BIRTH_DATE', mandatory: true }, { name: 'NATIONALITY', mandatory: false }],
    holder: { FULL_NAME: 'Mateo Éxito', BIRTH_DATE: '1985-12-21', NATIONALITY: 'MX', COUNTRY_OF_RESIDENCE: 'MX', USER_TYPE: 'INDIVIDUAL', FI_LEGAL_ENTITY_NAME: vasp },
    description: 'UMA payment (sandbox address $success.mxn: succeeds)',
  },
  {
    address: `$pending.long.usd@${UMA_TEST_DOMAIN}`,
    currencies: [{ code: 'USD', min: 1, max: 10_000_000 }],
    behaviour: 'PENDING_LONG',
    pendingSeconds: 4 * 60 * 60,
    requiredPayerDataFields: [fullName],
    holder: { FULL_NAME: 'Pat Pending', BIRTH_DATE: '1979-06-30', NATIONALITY: 'US', COUNTRY_OF_RESIDENCE: 'US', USER_TYPE: 'INDIVIDUAL', FI_LEGAL_ENTITY_NAME: vasp },
    description: 'UMA payment (sandbox address $pending.long.usd: pending about 4 hours, then completes)',
  },
  {
    address: `$fail.compliance.usd@${UMA_TEST_DOMAIN}`,
    currencies: [{ code: 'USD', min: 1, max: 10_000_000 }],
    behaviour: 'FAILS_COMPLIANCE',
    failureReason: 'COMPLIANCE_REJECTED',
    requiredPayerDataFields: [fullName],
    holder: { FULL_NAME: 'Frank Flagged', BIRTH_DATE: '1970-01-01', NATIONALITY: 'US', COUNTRY_OF_RESIDENCE: 'US', USER_TYPE: 'INDIVIDUAL', FI_LEGAL_ENTITY_NAME: vasp },
    description: 'UMA payment (sandbox address $fail.compliance.usd: fails a compliance check)',
  },
  ...counterpartyFailures(),
];

/**
 * The failing counterparties, one address per UMA error: `$fail.<what>.usd@sandbox.uma.money`.
 * Each receives USD like `$success.usd` when its lookup succeeds (the PAYREQ ones).
 */
function counterpartyFailures(): UmaTestAddress[] {
  const rows: [string, 'LOOKUP' | 'PAYREQ', UmaCounterpartyCode, string][] = [
    ['lookup', 'LOOKUP', 'LOOKUP_REQUEST_FAILED', 'The counterparty VASP did not answer the lookup (LNURLP) request.'],
    ['lnurlp.parse', 'LOOKUP', 'PARSE_LNURLP_RESPONSE_ERROR', 'The counterparty VASP answered the lookup with a response that could not be parsed.'],
    ['cert.invalid', 'LOOKUP', 'CERT_CHAIN_INVALID', "The counterparty VASP's certificate chain does not verify."],
    ['cert.expired', 'LOOKUP', 'CERT_CHAIN_EXPIRED', "The counterparty VASP's certificate chain has expired."],
    ['pubkey', 'LOOKUP', 'INVALID_PUBKEY_FORMAT', "The counterparty VASP's public key is not in a valid format."],
    ['params', 'LOOKUP', 'MISSING_REQUIRED_UMA_PARAMETERS', 'The counterparty VASP left out UMA parameters its lookup response must carry.'],
    ['receiver', 'LOOKUP', 'INVALID_RECEIVER', 'The counterparty VASP reports the receiver as invalid (the account cannot receive).'],
    ['nonce', 'LOOKUP', 'INVALID_NONCE', "The counterparty VASP's signed response carries a nonce already seen."],
    ['timestamp', 'LOOKUP', 'INVALID_TIMESTAMP', "The counterparty VASP's signed response carries a timestamp outside the allowed window."],
    ['payreq', 'PAYREQ', 'INVALID_PAYREQ_RESPONSE', 'The counterparty VASP answered the pay request with an invalid response.'],
    ['payreq.parse', 'PAYREQ', 'PARSE_PAYREQ_RESPONSE_ERROR', "The counterparty VASP's pay request response could not be parsed."],
    ['sender', 'PAYREQ', 'SENDER_NOT_ACCEPTED', 'The counterparty VASP does not accept payments from this sender.'],
    ['quote', 'PAYREQ', 'QUOTE_REQUEST_FAILED', 'The counterparty VASP could not produce a quote this time; retry the request.'],
  ];
  return rows.map(([what, phase, code, message]) => ({
    address: `$fail.${what}.usd@${UMA_TEST_DOMAIN}`,
    currencies: [{ code: 'USD', min: 1, max: 10_000_000 }],
    behaviour: 'SUCCEEDS',
    requiredPayerDataFields: [fullName],
    holder: { FULL_NAME: 'Casey Counterparty', BIRTH_DATE: '1982-02-14', NATIONALITY: 'US', COUNTRY_OF_RESIDENCE: 'US', USER_TYPE: 'INDIVIDUAL', FI_LEGAL_ENTITY_NAME: vasp },
    description: `UMA payment (sandbox address $fail.${what}.usd: the counterparty answers ${code})`,
    counterpartyError: { phase, code, message, ...(code === 'QUOTE_REQUEST_FAILED' ? { retryable: true } : {}) },
  }));
}

/** The user part of a test address (`success.usd` for `$success.usd@sandbox.uma.money`), the key of its rules. */
export function umaTestUser(address: string): string {
  return address.slice(1, address.lastIndexOf('@')).toLowerCase();
}

const behaviours = umaTestAddresses.filter((row) => !row.counterpartyError);

/** Rule ids of the test addresses as receivers of an executed quote (recorded at execution). */
export const umaReceiverRules = ruleFamily(
  'uma',
  'uma.receiver',
  Object.fromEntries(behaviours.map((row) => [umaTestUser(row.address), `Quote to ${row.address}, executed: ${receiverOutcome(row)}`])),
);

/** Rule ids of the test addresses as senders of `POST /sandbox/uma/receive`. */
export const umaSenderRules = ruleFamily(
  'uma',
  'uma.sender',
  Object.fromEntries(behaviours.map((row) => [umaTestUser(row.address), `POST /sandbox/uma/receive from ${row.address}: ${senderOutcome(row)}`])),
);

/** Rule ids of the failing counterparties (recorded where their error is answered). */
export const umaCounterpartyRules = ruleFamily(
  'uma',
  'uma.counterparty',
  Object.fromEntries(
    umaTestAddresses
      .filter((row) => row.counterpartyError)
      .map((row) => [umaTestUser(row.address), `${row.address}: ${row.counterpartyError!.phase === 'LOOKUP' ? 'GET /receiver/uma/{address}' : 'POST /quotes after its lookup'} answers 400 ${row.counterpartyError!.code}`]),
  ),
);

function receiverOutcome(row: UmaTestAddress): string {
  if (row.behaviour === 'PENDING_LONG') return 'PROCESSING for 4 hours of sandbox time, then COMPLETED';
  if (row.behaviour === 'FAILS_COMPLIANCE') return 'FAILED at execution (COMPLIANCE_REJECTED), nothing moves';
  return 'COMPLETED after 5 s';
}

function senderOutcome(row: UmaTestAddress): string {
  if (row.behaviour === 'PENDING_LONG') return 'PENDING for 4 hours, then COMPLETED';
  if (row.behaviour === 'FAILS_COMPLIANCE') return 'FAILED (COMPLIANCE_REJECTED), nothing credited';
  return 'COMPLETED at once';
}

const byAddress = new Map(umaTestAddresses.map((row) => [row.address, row]));

/**
 * The test address row for an address (any letter case, under any of `UMA_TEST_DOMAINS`), or
 * undefined. The row carries the address as asked, so a payment shows the domain its caller used.
 */
export function umaTestAddressOf(address: string): UmaTestAddress | undefined {
  const lower = address.toLowerCase();
  const at = lower.lastIndexOf('@');
  const domain = lower.slice(at + 1);
  if (at < 0 || !UMA_TEST_DOMAINS.includes(domain)) return undefined;
  const row = byAddress.get(`${lower.slice(0, at)}@${UMA_TEST_DOMAIN}`);
  if (!row || domain === UMA_TEST_DOMAIN) return row;
  return { ...row, address: lower };
}
