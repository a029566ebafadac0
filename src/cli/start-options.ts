import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { CliError, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET } from './client.js';
import type { StartOptions } from './start.js';

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new CliError(`--port ${value} is not a port number (0-65535; 0 picks a free port)`);
  return port;
}

/** The flags `start` and `exec` share (exec: in memory and a free port unless told otherwise). */
export function addStartOptions(command: Command, forExec = false): Command {
  return command
    .addOption(new Option('--port <n>', 'port to listen on; 0 picks a free one').default(forExec ? '0' : '8080'))
    .addOption(new Option('--host <host>', 'interface to bind').default('127.0.0.1'))
    .addOption(new Option('--db <file>', forExec ? 'database file (default: in memory)' : 'database file, created with its folder').default(forExec ? undefined : '.service-sandbox/sandbox.db'))
    .addOption(new Option('--memory', 'keep everything in memory; nothing is written to disk'))
    .addOption(new Option('--client-id <id>', 'client id of the default platform').env('SERVICE_SANDBOX_CLIENT_ID').default(DEFAULT_CLIENT_ID))
    .addOption(
      new Option('--client-secret <secret>', 'client secret of the default platform')
        .env('SERVICE_SANDBOX_CLIENT_SECRET')
        .default(DEFAULT_CLIENT_SECRET, 'sandbox-client-secret'),
    )
    .addOption(new Option('--webhook-url <url>', 'webhook endpoint of the default platform (http or https)'))
    .addOption(new Option('--log-format <format>', 'request log format').choices(['pretty', 'json']).default('pretty'))
    .addOption(new Option('--quiet', forExec ? 'no request log (the default for exec; --log turns it on, on stderr)' : 'no request log'))
    .addOption(new Option('--seed <seed>', 'make every generated id, key, secret and token a function of this seed and the order of requests'))
    .addOption(new Option('--clock-start <instant>', 'start the sandbox clock at this ISO 8601 instant, standing still: it moves only by `clock advance`'))
    .addOption(new Option('--import <snapshot>', "restore the default platform's state from a snapshot file (made by `export`) before the ready line"))
    .addOption(new Option('--export-on-exit <file>', "save the default platform's state to this snapshot file when the sandbox stops"));
}

/** Parses the shared start flags. */
export function startOptionsOf(opts: Record<string, unknown>, forExec = false): StartOptions {
  const inMemory = Boolean(opts.memory) || (forExec && opts.db === undefined);
  return {
    port: parsePort(String(opts.port)),
    host: String(opts.host),
    db: inMemory ? ':memory:' : resolve(String(opts.db)),
    clientId: String(opts.clientId),
    clientSecret: String(opts.clientSecret),
    secretIsDefault: opts.clientSecret === DEFAULT_CLIENT_SECRET,
    webhookUrl: opts.webhookUrl === undefined ? undefined : String(opts.webhookUrl),
    logFormat: opts.logFormat === 'json' ? 'json' : 'pretty',
    quiet: Boolean(opts.quiet),
    seed: opts.seed === undefined ? undefined : String(opts.seed),
    clockStart: opts.clockStart === undefined ? undefined : String(opts.clockStart),
    importFile: opts.import === undefined ? undefined : resolve(String(opts.import)),
    exportOnExit: opts.exportOnExit === undefined ? undefined : resolve(String(opts.exportOnExit)),
  };
}

