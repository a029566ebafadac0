/**
 * The integration coverage report (`GET /_sandbox/coverage`, `service-sandbox coverage`,
 * `exec --coverage`): what a client did, against the whole contract, the whole sandbox rule list
 * and every webhook type. Types only: the control plane builds it, the CLI prints it.
 */

/** One contract operation: how often it was answered, by status. */
export interface OperationCoverage {
  operationId: string;
  method: string;
  path: string;
  /** The contract tag it is listed under (the report's grouping). */
  area: string;
  /** Requests answered (every status). */
  calls: number;
  /** Answers by HTTP status, e.g. `{ "201": 2, "400": 1 }`. */
  statuses: Record<string, number>;
  /** The statuses the contract declares for it. */
  declared: number[];
}

/** One sandbox rule: how often a request triggered it. */
export interface RuleCoverage {
  id: string;
  area: string;
  title: string;
  hits: number;
}

/** One webhook type: delivery attempts and how the receiver answered them. */
export interface WebhookCoverage {
  type: string;
  /** Delivery attempts (the worker's, and `webhooks listen --forward-to` forwards). */
  delivered: number;
  /** Attempts the receiver answered 2xx. */
  acknowledged: number;
  /** Attempts answered otherwise (or not at all) and retried later. */
  retried: number;
  /** Attempts after which delivery gave up. */
  failed: number;
}

/** Covered and total of one section. */
export interface CoverageTally {
  covered: number;
  total: number;
}

export interface CoverageReport {
  /** `platform`: the calling platform's since its last reset; `run`: everything this process's sandbox recorded, every platform, across resets (exec). */
  scope: 'platform' | 'run';
  /** The platform's client id (scope `platform`). */
  clientId?: string;
  contractVersion: string;
  /** When the report was made, on the sandbox clock. */
  generatedAt: string;
  /** False when the sandbox records nothing (`SERVICE_SANDBOX_COVERAGE=off`). */
  recording: boolean;
  summary: {
    /** An operation is covered once it was called (any status). */
    operations: CoverageTally;
    /** Declared statuses answered at least once, over all operations. */
    statuses: CoverageTally;
    /** A rule is covered once it fired. */
    rules: CoverageTally;
    /** A webhook type is covered once the receiver acknowledged (2xx) one. */
    webhooks: CoverageTally;
  };
  operations: OperationCoverage[];
  rules: RuleCoverage[];
  webhooks: WebhookCoverage[];
}
