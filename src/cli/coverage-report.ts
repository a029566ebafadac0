import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import xmlbuilder from 'xmlbuilder';
import type { CoverageReport, CoverageTally } from '../core/coverage-report.js';
import { CliError } from './client.js';

/**
 * The integration coverage report as a person and a CI system read it: a terminal table, a
 * Markdown summary, JUnit XML, and the readiness check against a profile. Pure functions over the
 * report of `GET /_sandbox/coverage` (or exec's run report).
 */

/** A readiness profile: what an integration must have exercised (docs/testing.md). */
export interface ReadinessProfile {
  name: string;
  description?: string;
  /** `operationId`, or `operationId:status` (that status answered at least once). */
  operations: string[];
  /** Rule ids; `prefix.*` means every rule under the prefix. */
  rules: string[];
  /** Event types acknowledged (2xx) at least once; `TYPE:retried` / `TYPE:failed` for a retried or failed delivery. */
  webhooks: string[];
}

/** What the check of a profile found. */
export interface Readiness {
  profile: string;
  /** Every required item, expanded (`rule payouts.suffix.002`, `operation createQuote:201`, `webhook OUTGOING_PAYMENT.COMPLETED`). */
  required: string[];
  /** The required items not covered, in profile order. */
  missing: string[];
}

const list = (value: unknown, field: string, file: string): string[] => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === '')) {
    throw new CliError(`${file}: ${field} must be a list of strings`, 2);
  }
  return value.map((item: string) => item.trim());
};

/** The profiles shipped in the package (`profiles/<name>.yaml`), one folder above dist/ or two above src/cli. */
function shippedProfile(name: string): string | undefined {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) return undefined;
  for (const base of ['../profiles/', '../../profiles/']) {
    const file = fileURLToPath(new URL(`${base}${name}.yaml`, import.meta.url));
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** Reads a profile: a YAML or JSON file, or the name of a shipped one (`payouts`). */
export function loadProfile(pathOrName: string): ReadinessProfile {
  const file = existsSync(pathOrName) ? pathOrName : shippedProfile(pathOrName);
  if (!file) throw new CliError(`readiness profile ${pathOrName} not found: give a YAML or JSON file, or a shipped profile name (payouts)`, 2);
  let document: unknown;
  try {
    document = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`${pathOrName} is not YAML or JSON: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, 2);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new CliError(`${pathOrName}: a profile is a mapping with operations, rules and webhooks lists`, 2);
  }
  const doc = document as Record<string, unknown>;
  const unknownKeys = Object.keys(doc).filter((key) => !['name', 'description', 'operations', 'rules', 'webhooks'].includes(key));
  if (unknownKeys.length) throw new CliError(`${pathOrName}: unknown key ${unknownKeys.join(', ')} (a profile has name, description, operations, rules, webhooks)`, 2);
  return {
    name: typeof doc.name === 'string' && doc.name ? doc.name : pathOrName,
    ...(typeof doc.description === 'string' ? { description: doc.description } : {}),
    operations: list(doc.operations, 'operations', pathOrName),
    rules: list(doc.rules, 'rules', pathOrName),
    webhooks: list(doc.webhooks, 'webhooks', pathOrName),
  };
}

/**
 * Checks a profile against a report. A name the sandbox does not know (a typo, an operation of
 * another contract version) is an error, not a silent pass or fail.
 */
export function checkReadiness(report: CoverageReport, profile: ReadinessProfile): Readiness {
  const unknown: string[] = [];
  const required: string[] = [];
  const missing: string[] = [];
  const need = (item: string, covered: boolean) => {
    required.push(item);
    if (!covered) missing.push(item);
  };
  const operations = new Map(report.operations.map((op) => [op.operationId, op]));
  for (const entry of profile.operations) {
    const [operationId, status, extra] = entry.split(':');
    const op = operations.get(operationId!);
    if (!op || extra !== undefined || (status !== undefined && !op.declared.includes(Number(status)))) {
      unknown.push(`operation ${entry}${op && status !== undefined ? ` (it declares ${op.declared.join(', ')})` : ''}`);
      continue;
    }
    need(`operation ${entry}`, status === undefined ? op.calls > 0 : (op.statuses[status] ?? 0) > 0);
  }
  for (const entry of profile.rules) {
    const matching = entry.endsWith('.*') ? report.rules.filter((rule) => rule.id.startsWith(entry.slice(0, -1))) : report.rules.filter((rule) => rule.id === entry);
    if (matching.length === 0) unknown.push(`rule ${entry}`);
    for (const rule of matching) need(`rule ${rule.id}`, rule.hits > 0);
  }
  const webhooks = new Map(report.webhooks.map((w) => [w.type, w]));
  for (const entry of profile.webhooks) {
    const [type, outcome, extra] = entry.split(':');
    const webhook = webhooks.get(type!);
    if (!webhook || extra !== undefined || (outcome !== undefined && outcome !== 'retried' && outcome !== 'failed')) {
      unknown.push(`webhook ${entry}`);
      continue;
    }
    need(`webhook ${entry}`, outcome === 'retried' ? webhook.retried > 0 : outcome === 'failed' ? webhook.failed > 0 : webhook.acknowledged > 0);
  }
  if (unknown.length) throw new CliError(`readiness profile ${profile.name} names what this sandbox does not know: ${unknown.join('; ')}`, 2);
  return { profile: profile.name, required, missing };
}

const percent = (tally: CoverageTally) => (tally.total === 0 ? '-' : `${((tally.covered / tally.total) * 100).toFixed(1)} %`);

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

const statusList = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');

/** Colors for the terminal table (identity functions when not wanted). */
export interface TableColors {
  covered: (text: string) => string;
  uncovered: (text: string) => string;
  dim: (text: string) => string;
  bold: (text: string) => string;
}

const plain: TableColors = { covered: (t) => t, uncovered: (t) => t, dim: (t) => t, bold: (t) => t };

/** The report as a terminal table, grouped by area: ✓ covered, ✗ not covered. */
export function coverageTable(report: CoverageReport, options: { uncoveredOnly?: boolean; colors?: TableColors; readiness?: Readiness } = {}): string {
  const c = options.colors ?? plain;
  const mark = (covered: boolean) => (covered ? c.covered('✓') : c.uncovered('✗'));
  const show = (covered: boolean) => !options.uncoveredOnly || !covered;
  const { summary } = report;
  const lines: string[] = [
    c.bold(`Integration coverage ${report.scope === 'run' ? 'of this run (every platform)' : `of ${report.clientId ?? 'the platform'} since its last reset`}`) + c.dim(`  (✓ covered, ✗ not covered; ${report.generatedAt})`),
    `  operations  ${summary.operations.covered}/${summary.operations.total} called (${percent(summary.operations)}); declared statuses ${summary.statuses.covered}/${summary.statuses.total} answered`,
    `  rules       ${summary.rules.covered}/${summary.rules.total} fired (${percent(summary.rules)})`,
    `  webhooks    ${summary.webhooks.covered}/${summary.webhooks.total} types acknowledged (${percent(summary.webhooks)})`,
  ];
  if (!report.recording) lines.push(c.uncovered('  recording is off in this sandbox (SERVICE_SANDBOX_COVERAGE=off): nothing is counted'));
  const idWidth = Math.max(...report.operations.map((op) => op.operationId.length));
  const routeWidth = Math.max(...report.operations.map((op) => op.method.length + op.path.length + 1));
  lines.push('', c.bold('Operations'));
  for (const [area, ops] of groupBy(report.operations, (op) => op.area)) {
    const shown = ops.filter((op) => show(op.calls > 0));
    if (shown.length === 0) continue;
    lines.push(`  ${c.bold(area)}  ${c.dim(`${ops.filter((op) => op.calls > 0).length}/${ops.length}`)}`);
    for (const op of shown) {
      lines.push(`    ${mark(op.calls > 0)} ${op.operationId.padEnd(idWidth)}  ${c.dim(`${op.method} ${op.path}`.padEnd(routeWidth))}  ${statusList(op.statuses)}`.trimEnd());
    }
  }
  const ruleWidth = Math.max(...report.rules.map((rule) => rule.id.length));
  lines.push('', c.bold('Sandbox rules'));
  for (const [area, rules] of groupBy(report.rules, (rule) => rule.area)) {
    const shown = rules.filter((rule) => show(rule.hits > 0));
    if (shown.length === 0) continue;
    lines.push(`  ${c.bold(area)}  ${c.dim(`${rules.filter((rule) => rule.hits > 0).length}/${rules.length}`)}`);
    for (const rule of shown) lines.push(`    ${mark(rule.hits > 0)} ${rule.id.padEnd(ruleWidth)}  ${(rule.hits ? `×${rule.hits}` : '').padEnd(6)}${c.dim(rule.title)}`);
  }
  const typeWidth = Math.max(...report.webhooks.map((w) => w.type.length));
  lines.push('', c.bold('Webhooks'));
  for (const w of report.webhooks.filter((w) => show(w.acknowledged > 0))) {
    const detail = w.delivered === 0 ? c.dim('never delivered') : `delivered ${w.delivered}, acknowledged ${w.acknowledged}, retried ${w.retried}, failed ${w.failed}`;
    lines.push(`    ${mark(w.acknowledged > 0)} ${w.type.padEnd(typeWidth)}  ${detail}`);
  }
  if (options.readiness) lines.push('', readinessLine(options.readiness, c));
  return `${lines.join('\n')}\n`;
}

function readinessLine(readiness: Readiness, c: TableColors = plain): string {
  const head = `Readiness (profile ${readiness.profile}):`;
  if (readiness.missing.length === 0) return c.covered(`${head} ready, all ${readiness.required.length} required items covered`);
  return c.uncovered(`${head} not ready, ${readiness.missing.length} of ${readiness.required.length} required items not covered: ${readiness.missing.join(', ')}`);
}

const code = (text: string) => `\`${text}\``;

/** The report as a Markdown summary a CI job can post (a pull-request comment, a job summary). */
export function coverageMarkdown(report: CoverageReport, readiness?: Readiness): string {
  const { summary } = report;
  const out: string[] = [
    '### Integration coverage (service-sandbox)',
    '',
    '| | Covered | Total | |',
    '| --- | ---: | ---: | ---: |',
    `| Operations called | ${summary.operations.covered} | ${summary.operations.total} | ${percent(summary.operations)} |`,
    `| Declared statuses answered | ${summary.statuses.covered} | ${summary.statuses.total} | ${percent(summary.statuses)} |`,
    `| Sandbox rules fired | ${summary.rules.covered} | ${summary.rules.total} | ${percent(summary.rules)} |`,
    `| Webhook types acknowledged | ${summary.webhooks.covered} | ${summary.webhooks.total} | ${percent(summary.webhooks)} |`,
    '',
  ];
  if (readiness) {
    out.push(
      readiness.missing.length === 0
        ? `**Readiness (profile ${code(readiness.profile)}): ready**, all ${readiness.required.length} required items covered.`
        : `**Readiness (profile ${code(readiness.profile)}): not ready**, ${readiness.missing.length} of ${readiness.required.length} required items not covered: ${readiness.missing.map(code).join(', ')}.`,
      '',
    );
  }
  const section = <T>(title: string, groups: Map<string, T[]>, covered: (item: T) => boolean, name: (item: T) => string) => {
    out.push(`<details><summary>${title}</summary>`, '', '| Area | Covered | Not covered |', '| --- | ---: | --- |');
    for (const [area, items] of groups) {
      const missing = items.filter((item) => !covered(item)).map((item) => code(name(item)));
      out.push(`| ${area} | ${items.length - missing.length}/${items.length} | ${missing.join(', ') || '-'} |`);
    }
    out.push('', '</details>', '');
  };
  section('Operations by area', groupBy(report.operations, (op) => op.area), (op) => op.calls > 0, (op) => op.operationId);
  section('Sandbox rules by area', groupBy(report.rules, (rule) => rule.area), (rule) => rule.hits > 0, (rule) => rule.id);
  out.push('<details><summary>Webhooks</summary>', '', '| Type | Delivered | Acknowledged | Retried | Failed |', '| --- | ---: | ---: | ---: | ---: |');
  for (const w of report.webhooks.filter((w) => w.delivered > 0)) out.push(`| ${code(w.type)} | ${w.delivered} | ${w.acknowledged} | ${w.retried} | ${w.failed} |`);
  const never = report.webhooks.filter((w) => w.delivered === 0).map((w) => code(w.type));
  out.push('', `Never delivered: ${never.join(', ') || 'none'}.`, '', '</details>', '');
  return out.join('\n');
}

/**
 * The report as JUnit XML: one test case per sandbox rule, per operation and per webhook type, so
 * a CI system's test view lists what was exercised. Covered passes; not covered is skipped; not
 * covered but required by the readiness profile fails, naming the profile.
 */
export function coverageJunit(report: CoverageReport, readiness?: Readiness): string {
  const missing = new Set(readiness?.missing ?? []);
  interface Case {
    classname: string;
    name: string;
    covered: boolean;
    required: string;
    out: string;
  }
  const suites: { name: string; cases: Case[] }[] = [
    {
      name: 'sandbox rules',
      cases: report.rules.map((rule) => ({ classname: `service-sandbox.rules.${rule.area}`, name: rule.id, covered: rule.hits > 0, required: `rule ${rule.id}`, out: `${rule.title}\nfired ${rule.hits} times` })),
    },
    {
      name: 'operations',
      cases: report.operations.map((op) => ({
        classname: `service-sandbox.operations.${op.area}`,
        name: op.operationId,
        covered: op.calls > 0,
        required: `operation ${op.operationId}`,
        out: `${op.method} ${op.path}\nanswered ${statusList(op.statuses) || 'never'}; declared ${op.declared.join(', ')}`,
      })),
    },
    {
      name: 'webhooks',
      cases: report.webhooks.map((w) => ({
        classname: 'service-sandbox.webhooks',
        name: w.type,
        covered: w.acknowledged > 0,
        required: `webhook ${w.type}`,
        out: `delivered ${w.delivered}, acknowledged ${w.acknowledged}, retried ${w.retried}, failed ${w.failed}`,
      })),
    },
  ];
  // A required item that names a status or an outcome (createQuote:201, TYPE:retried) fails its case too.
  const failing = (item: Case) => [...missing].some((entry) => entry === item.required || entry.startsWith(`${item.required}:`));
  const root = xmlbuilder.create('testsuites', { version: '1.0', encoding: 'UTF-8' }, {}, { invalidCharReplacement: '\uFFFD' });
  let total = 0;
  let totalFailures = 0;
  for (const suite of suites) {
    const failures = suite.cases.filter(failing).length;
    const skipped = suite.cases.filter((item) => !item.covered && !failing(item)).length;
    total += suite.cases.length;
    totalFailures += failures;
    const element = root.ele('testsuite', { name: suite.name, tests: suite.cases.length, failures, errors: 0, skipped, timestamp: report.generatedAt });
    if (readiness) element.ele('properties').ele('property', { name: 'readinessProfile', value: readiness.profile });
    for (const item of suite.cases) {
      const testcase = element.ele('testcase', { classname: item.classname, name: item.name });
      if (failing(item)) {
        const which = [...missing].filter((entry) => entry === item.required || entry.startsWith(`${item.required}:`));
        testcase.ele('failure', { type: 'NotCovered', message: `required by readiness profile ${readiness!.profile}, not covered: ${which.join(', ')}` }, item.out);
      } else if (!item.covered) {
        testcase.ele('skipped', { message: 'not exercised by this run' });
      }
      testcase.ele('system-out', {}, item.out);
    }
  }
  root.att('name', 'service-sandbox integration coverage').att('tests', total).att('failures', totalFailures).att('errors', 0);
  return root.end({ pretty: true });
}
