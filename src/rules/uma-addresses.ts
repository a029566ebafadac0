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
}

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
];

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
