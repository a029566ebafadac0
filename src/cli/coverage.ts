import chalk from 'chalk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CoverageReport } from '../core/coverage-report.js';
import { call, CliError, clientOptions, withClientOptions } from './client.js';
import { withExamples } from './help.js';
import { checkReadiness, coverageJunit, coverageMarkdown, coverageTable, loadProfile, type Readiness, type ReadinessProfile } from './coverage-report.js';

const colors = { covered: chalk.green, uncovered: chalk.red, dim: chalk.dim, bold: chalk.bold };

/** Writes a file, creating its folder. */
function writeOut(file: string, text: string): void {
  mkdirSync(dirname(resolve(file)), { recursive: true });
  writeFileSync(file, text);
}

/** Where `--coverage <file>` puts its Markdown summary: `coverage.json` -> `coverage.md`, anything else -> `<file>.md`. */
export function markdownPathOf(file: string): string {
  return file.endsWith('.json') ? `${file.slice(0, -'.json'.length)}.md` : `${file}.md`;
}

/** What exec writes when its command ends (`--coverage`, `--coverage-junit`, `--require`). */
export interface CoverageOutputs {
  json?: string;
  junit?: string;
  profile?: ReadinessProfile;
}

/** exec's coverage flags, the profile read at once (a bad profile stops exec before the command runs). */
export function coverageOutputsOf(opts: Record<string, unknown>): CoverageOutputs | undefined {
  const outputs: CoverageOutputs = {};
  if (typeof opts.coverage === 'string') outputs.json = opts.coverage;
  if (typeof opts.coverageJunit === 'string') outputs.junit = opts.coverageJunit;
  if (typeof opts.require === 'string') outputs.profile = loadProfile(opts.require);
  return outputs.json || outputs.junit || outputs.profile ? outputs : undefined;
}

/**
 * Writes the run's coverage as asked and checks the profile; returns the readiness (when a
 * profile was given). Prints one summary line on stderr, and the missing items when not ready.
 */
export function writeCoverageOutputs(report: CoverageReport, outputs: CoverageOutputs): Readiness | undefined {
  const readiness = outputs.profile ? checkReadiness(report, outputs.profile) : undefined;
  const written: string[] = [];
  if (outputs.json) {
    writeOut(outputs.json, `${JSON.stringify(readiness ? { ...report, readiness } : report, null, 2)}\n`);
    writeOut(markdownPathOf(outputs.json), coverageMarkdown(report, readiness));
    written.push(outputs.json, markdownPathOf(outputs.json));
  }
  if (outputs.junit) {
    writeOut(outputs.junit, coverageJunit(report, readiness));
    written.push(outputs.junit);
  }
  if (!report.recording) process.stderr.write('service-sandbox: coverage recording is off (SERVICE_SANDBOX_COVERAGE=off): the report counts nothing\n');
  const { summary } = report;
  const tally = `operations ${summary.operations.covered}/${summary.operations.total}, rules ${summary.rules.covered}/${summary.rules.total}, webhook types ${summary.webhooks.covered}/${summary.webhooks.total}`;
  process.stderr.write(`service-sandbox: coverage ${tally}${written.length ? `; written to ${written.join(', ')}` : ''}\n`);
  if (readiness) {
    process.stderr.write(
      readiness.missing.length === 0
        ? `service-sandbox: ready (profile ${readiness.profile}): all ${readiness.required.length} required items covered\n`
        : `service-sandbox: not ready (profile ${readiness.profile}): ${readiness.missing.length} of ${readiness.required.length} required items not covered:\n${readiness.missing.map((item) => `  ${item}\n`).join('')}`,
    );
  }
  return readiness;
}

/** `service-sandbox coverage`: the platform's integration coverage in a running sandbox. */
export function registerCoverageCommand(program: Command): void {
  withExamples(
    withClientOptions(
      program
        .command('coverage')
        .description("the platform's integration coverage: operations called, sandbox rules fired, webhooks acknowledged (covered / not covered, by area)")
        .option('--json', 'print the report as JSON')
        .option('--markdown', 'print the Markdown summary')
        .option('--junit <file>', 'write JUnit XML (a test case per rule, operation and webhook type)')
        .option('--require <profile>', 'check a readiness profile (YAML/JSON file or a shipped name: payouts); exit 1 when it is not covered')
        .option('--uncovered', 'list only what is not covered'),
    ),
    ['service-sandbox coverage', 'service-sandbox coverage --uncovered --require payouts', 'service-sandbox coverage --json > coverage.json'],
  ).action(async (opts: Record<string, unknown>) => {
    const profile = typeof opts.require === 'string' ? loadProfile(opts.require) : undefined;
    const report = (await call(clientOptions(opts), 'GET', '/_sandbox/coverage')) as CoverageReport;
    const readiness = profile ? checkReadiness(report, profile) : undefined;
    if (typeof opts.junit === 'string') writeOut(opts.junit, coverageJunit(report, readiness));
    if (opts.json) process.stdout.write(`${JSON.stringify(readiness ? { ...report, readiness } : report, null, 2)}\n`);
    else if (opts.markdown) process.stdout.write(coverageMarkdown(report, readiness));
    else process.stdout.write(coverageTable(report, { uncoveredOnly: Boolean(opts.uncovered), colors, ...(readiness ? { readiness } : {}) }));
    if (readiness && readiness.missing.length > 0) {
      throw new CliError(`not ready (profile ${readiness.profile}): ${readiness.missing.length} of ${readiness.required.length} required items not covered: ${readiness.missing.join(', ')}`);
    }
  });
}
