import chalk from 'chalk';
import type { Command } from 'commander';
import type { AttemptResult as DeliveryAttemptResult } from '../events/delivery.js';
import type { DeliveryView } from '../resources/webhooks/service.js';
import { call, CliError, clientOptions, originOf, withClientOptions, type ClientOptions } from './client.js';

// The control plane's wire shapes, shared with the server (types only: nothing is loaded).
type Delivery = DeliveryView;
type AttemptResult = Pick<DeliveryAttemptResult, 'eventId' | 'attempt' | 'attemptedAt' | 'url' | 'outcome' | 'responseStatus' | 'error' | 'latencyMs' | 'state' | 'nextAttemptAt'>;

const out = (line: string) => process.stdout.write(`${line}\n`);

const statusColor = (status: string) =>
  status === 'DELIVERED' ? chalk.green(status) : status === 'FAILED' ? chalk.red(status) : status === 'NO_ENDPOINT' ? chalk.dim(status) : chalk.yellow(status);

/** `200 OK in 12 ms` / `500 in 3 ms` / `timed out after 5s`. */
function answerOf(a: { responseStatus: number | null; error: string | null; latencyMs: number }): string {
  const ms = `${Math.round(a.latencyMs)} ms`;
  if (a.responseStatus === null) return chalk.red(`${a.error ?? 'no answer'} (${ms})`);
  const code = a.responseStatus >= 200 && a.responseStatus < 300 ? chalk.green(String(a.responseStatus)) : chalk.red(String(a.responseStatus));
  return `${code} in ${ms}`;
}

/** What follows an attempt: delivered, the next try, or given up. */
function nextOf(r: { state: string; nextAttemptAt: string | null }): string {
  if (r.state === 'DELIVERED') return chalk.green('delivered');
  if (r.state === 'RETRYING') return chalk.yellow(`retry at ${r.nextAttemptAt} (sandbox time)`);
  return chalk.red('gave up (replay it with `webhooks replay`)');
}

/** One line per attempt, as tail and replay print them. */
function attemptLine(type: string, r: AttemptResult): string {
  return `${chalk.dim(r.attemptedAt)}  ${type.padEnd(30)} ${r.eventId}  #${r.attempt} -> ${answerOf(r)}  ${nextOf(r)}`;
}

function query(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Reads the control plane's server-sent events until the sandbox stops or the user hits Ctrl-C. */
async function tail(options: ClientOptions, json: boolean): Promise<void> {
  const origin = originOf(options.url);
  let response: Response;
  try {
    response = await fetch(`${origin}/_sandbox/webhooks/tail`, {
      headers: { Authorization: `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`, Accept: 'text/event-stream' },
    });
  } catch {
    throw new CliError(`no sandbox is answering at ${origin}; start one with \`npx service-sandbox\` or pass --url`);
  }
  if (!response.ok || !response.body) {
    const text = await response.text();
    throw new CliError(`${response.status} ${text}${response.status === 401 ? ' (check --client-id/--client-secret)' : ''}`);
  }
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = response.body.getReader();
  for (;;) {
    let chunk: { done: boolean; value?: Uint8Array };
    try {
      chunk = await reader.read();
    } catch {
      break;
    }
    if (chunk.done) break;
    buffer += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(message)?.[1];
      const data = /^data: (.*)$/m.exec(message)?.[1];
      if (!event || data === undefined) continue;
      if (event === 'ready') {
        if (!json) out(chalk.dim(`tailing webhook deliveries of ${options.clientId} at ${origin} (Ctrl-C to stop)`));
        continue;
      }
      if (json) {
        out(data);
        continue;
      }
      const activity = JSON.parse(data) as
        | { kind: 'attempt'; type: string; result: AttemptResult }
        | { kind: 'no-endpoint'; type: string; eventId: string };
      if (activity.kind === 'attempt') out(attemptLine(activity.type, activity.result));
      else out(`${' '.repeat(24)}  ${activity.type.padEnd(30)} ${activity.eventId}  ${chalk.dim('not sent: the platform has no webhook endpoint')}`);
    }
  }
  if (!json) out(chalk.dim('the sandbox stopped'));
}

/** Waits (up to 7 s of real time) for an event's first attempt to be recorded. */
async function firstOutcome(options: ClientOptions, eventId: string): Promise<Delivery> {
  const deadline = Date.now() + 7_000;
  for (;;) {
    const delivery = (await call(options, 'GET', `/_sandbox/webhooks/deliveries/${encodeURIComponent(eventId)}`)) as Delivery;
    if ((delivery.status !== 'PENDING' && delivery.status !== 'SENDING') || Date.now() > deadline) return delivery;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `service-sandbox webhooks key|list|tail|replay|trigger`. */
export function registerWebhooksCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('inspect, replay and trigger webhook deliveries of a running sandbox');

  withClientOptions(webhooks.command('key').description('print the public key (PEM) that verifies X-Service-Signature')).action(async (opts) => {
    const body = (await call(clientOptions(opts), 'GET', '/_sandbox/webhooks/public-key')) as { publicKey: string };
    process.stdout.write(body.publicKey);
  });

  withClientOptions(
    webhooks
      .command('list')
      .description('list events with their delivery status and attempts, newest first')
      .option('--type <type>', 'only this event type, e.g. CUSTOMER.KYC_APPROVED')
      .option('--resource <id>', 'only events of this resource')
      .option('--since <time>', 'only events at or after this ISO 8601 time')
      .option('--status <status>', 'PENDING, SENDING, RETRYING, DELIVERED, FAILED or NO_ENDPOINT')
      .option('--limit <n>', 'how many (1-100)', '20')
      .option('--attempts', 'print every attempt under its event')
      .option('--json', 'print the JSON page'),
  ).action(async (opts: Record<string, unknown>) => {
    const page = (await call(
      clientOptions(opts),
      'GET',
      `/_sandbox/webhooks/deliveries${query({ type: opts.type, resourceId: opts.resource, since: opts.since, status: opts.status, limit: opts.limit })}`,
    )) as { data: Delivery[]; totalCount: number; hasMore: boolean };
    if (opts.json) {
      out(JSON.stringify(page, null, 2));
      return;
    }
    if (page.data.length === 0) {
      out('no events yet');
      return;
    }
    for (const d of page.data) {
      const last = d.attempts[d.attempts.length - 1];
      const tries = `${d.attempts.length} attempt${d.attempts.length === 1 ? '' : 's'}`;
      out(
        `${chalk.dim(d.timestamp)}  ${d.type.padEnd(30)} ${d.id}  ${statusColor(d.status)}  ${tries}${last ? `, last ${answerOf(last)}` : ''}` +
          `${d.status === 'RETRYING' ? `, next at ${d.nextAttemptAt}` : ''}${d.resourceId ? chalk.dim(`  ${d.resourceId}`) : ''}`,
      );
      if (opts.attempts) {
        for (const a of d.attempts) {
          const excerpt = a.responseExcerpt ? chalk.dim(`  ${JSON.stringify(a.responseExcerpt.slice(0, 80))}`) : '';
          out(`    #${a.attempt} ${chalk.dim(a.attemptedAt)} ${a.url} -> ${answerOf(a)}${excerpt}`);
        }
      }
    }
    out(chalk.dim(`${page.data.length} of ${page.totalCount}${page.hasMore ? '; use --limit or filters for more' : ''}`));
  });

  withClientOptions(
    webhooks.command('tail').description('follow deliveries live: one line per attempt with its outcome').option('--json', 'one JSON object per line'),
  ).action(async (opts: Record<string, unknown>) => tail(clientOptions(opts), Boolean(opts.json)));

  withClientOptions(
    webhooks.command('replay <eventId>').description('send an event again now, with the same id and body'),
  ).action(async (eventId: string, opts: Record<string, unknown>) => {
    const body = (await call(clientOptions(opts), 'POST', `/_sandbox/webhooks/deliveries/${encodeURIComponent(eventId)}/replay`)) as {
      delivery: Delivery;
      attempt: AttemptResult;
    };
    out(attemptLine(body.delivery.type, body.attempt));
  });

  withClientOptions(
    webhooks
      .command('trigger [type]')
      .description('fire an event of a contract type (data from --resource, or a realistic new resource); without a type, list the types')
      .option('--resource <id>', 'the resource whose data the event carries'),
  ).action(async (type: string | undefined, opts: Record<string, unknown>) => {
    const options = clientOptions(opts);
    if (type === undefined) {
      const { data } = (await call(options, 'GET', '/_sandbox/webhooks/event-types')) as { data: { type: string; triggerable: boolean }[] };
      for (const t of data) out(`${t.type.padEnd(46)} ${t.triggerable ? chalk.green('triggerable') : chalk.dim('not produced yet')}`);
      return;
    }
    const { data: types } = (await call(options, 'GET', '/_sandbox/webhooks/event-types')) as { data: { type: string; triggerable: boolean }[] };
    const known = types.find((t) => t.type === type);
    if (!known) throw new CliError(`${type} is not an event type of the contract; \`service-sandbox webhooks trigger\` lists them`);
    if (!known.triggerable) throw new CliError(`no area of the sandbox produces ${type} events yet, so it cannot be triggered`);
    const event = (await call(options, 'POST', '/_sandbox/webhooks/trigger', opts.resource ? { type, resourceId: opts.resource } : { type })) as Delivery;
    out(`triggered ${event.type} ${event.id}${event.resourceId ? ` for ${event.resourceId}` : ''}`);
    const delivery = await firstOutcome(options, event.id);
    const last = delivery.attempts[delivery.attempts.length - 1];
    if (delivery.status === 'NO_ENDPOINT') {
      out(chalk.yellow('not sent: set a webhook endpoint (PATCH /config webhookEndpoint, or start --webhook-url), then `webhooks replay` it'));
    } else if (last) {
      out(`#${last.attempt} ${last.url} -> ${answerOf(last)}  ${statusColor(delivery.status)}`);
    } else {
      out(`${statusColor(delivery.status)}; follow it with \`service-sandbox webhooks tail\``);
    }
  });
}
