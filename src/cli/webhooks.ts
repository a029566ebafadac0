import chalk from 'chalk';
import type { Command } from 'commander';
import type { DeliveryAttemptResult, DeliveryView } from '../index.js';
import { call, CliError, clientOf, clientOptions, originOf, withClientOptions, type ClientOptions } from './client.js';
import { readSse, type SseMessage } from '../client/sse.js';
import { withExamples } from './help.js';

// The control plane's wire shapes, shared with the server (types only: nothing is loaded).
type Delivery = DeliveryView;
type AttemptResult = Pick<DeliveryAttemptResult, 'eventId' | 'attempt' | 'attemptedAt' | 'url' | 'outcome' | 'responseStatus' | 'error' | 'latencyMs' | 'state' | 'nextAttemptAt' | 'listenSession'>;

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

/** Where an attempt went: the endpoint's URL, or a listen session forwarding to its URL. */
const targetOf = (a: { url: string; listenSession?: string | null }) => (a.listenSession ? `listen session ${a.listenSession} -> ${a.url}` : a.url);

/** What follows an attempt: delivered, the next try, or given up. */
function nextOf(r: { state: string; nextAttemptAt: string | null; listenSession?: string | null }): string {
  if (r.listenSession) return r.state === 'DELIVERED' ? chalk.green('delivered (forwarded by webhooks listen)') : chalk.red('not delivered (a forward is not retried)');
  if (r.state === 'DELIVERED') return chalk.green('delivered');
  if (r.state === 'RETRYING') return chalk.yellow(`retry at ${r.nextAttemptAt} (sandbox time)`);
  return chalk.red('gave up (replay it with `webhooks replay`)');
}

/** One line per attempt, as tail and replay print them. */
function attemptLine(type: string, r: AttemptResult): string {
  return `${chalk.dim(r.attemptedAt)}  ${type.padEnd(30)} ${r.eventId}  #${r.attempt}${r.listenSession ? ` (${targetOf(r)})` : ''} -> ${answerOf(r)}  ${nextOf(r)}`;
}

function query(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Follows a control-plane SSE stream, reconnecting (every half second) when the sandbox stops
 * or restarts, until Ctrl-C. The first connection must succeed; `path()` is asked again at each
 * reconnect (so it can resume after the last event seen).
 */
export async function follow(
  options: ClientOptions,
  path: () => string,
  json: boolean,
  onMessage: (message: SseMessage) => void | Promise<void>,
): Promise<void> {
  const origin = originOf(options.url);
  const headers = { ...clientOf(options).headers(), Accept: 'text/event-stream' };
  let connectedBefore = false;
  for (;;) {
    let response: Response | undefined;
    try {
      response = await fetch(`${origin}${path()}`, { headers });
    } catch {
      if (!connectedBefore) throw new CliError(`no sandbox is answering at ${origin}; start one with \`npx service-sandbox\` or pass --url`);
    }
    if (response && (!response.ok || !response.body)) {
      const text = await response.text();
      if (!connectedBefore || response.status === 401) {
        throw new CliError(`${response.status} ${text}${response.status === 401 ? ' (check --client-id/--client-secret)' : ''}`);
      }
    } else if (response) {
      if (connectedBefore && !json) out(chalk.dim(`reconnected to ${origin}`));
      connectedBefore = true;
      await readSse(response, onMessage);
      if (!json) out(chalk.dim(`the sandbox at ${origin} stopped; waiting for it to come back (Ctrl-C to stop)`));
    }
    await sleep(500);
  }
}

/** `webhooks tail`: one line per delivery attempt, reconnecting across sandbox restarts. */
async function tail(options: ClientOptions, json: boolean, payload: boolean): Promise<void> {
  const origin = originOf(options.url);
  let announced = false;
  await follow(options, () => '/_sandbox/webhooks/tail', json, async ({ event, data }) => {
    if (event === 'ready') {
      if (!json && !announced) out(chalk.dim(`tailing webhook deliveries of ${options.clientId} at ${origin} (Ctrl-C to stop)`));
      announced = true;
      return;
    }
    const activity = JSON.parse(data) as
      | { kind: 'attempt'; type: string; result: AttemptResult }
      | { kind: 'no-endpoint'; type: string; eventId: string };
    const eventId = activity.kind === 'attempt' ? activity.result.eventId : activity.eventId;
    let body: unknown;
    if (payload) {
      try {
        body = ((await call(options, 'GET', `/_sandbox/webhooks/deliveries/${encodeURIComponent(eventId)}`)) as Delivery).data;
      } catch {
        body = undefined;
      }
    }
    if (json) {
      out(payload ? JSON.stringify({ ...activity, data: body }) : data);
      return;
    }
    if (activity.kind === 'attempt') out(attemptLine(activity.type, activity.result));
    else out(`${' '.repeat(24)}  ${activity.type.padEnd(30)} ${activity.eventId}  ${chalk.dim('not sent: the platform has no webhook endpoint')}`);
    if (payload && body !== undefined) out(indent(JSON.stringify(body, null, 2)));
  });
}

const indent = (text: string) => text.split('\n').map((line) => `    ${chalk.dim(line)}`).join('\n');

interface StreamedEvent {
  seq: number;
  id: string;
  type: string;
  resourceId: string | null;
  timestamp: string;
  body: string;
  signatureHeader: string;
  /** Every header name a delivery carries the signature under (absent from older sandboxes). */
  signatureHeaders?: string[];
  signature: string;
}

/** `webhooks listen [--forward-to <url>]`: each event as it is recorded, optionally forwarded signed. */
async function listen(options: ClientOptions, json: boolean, forwardTo: string | undefined): Promise<void> {
  const origin = originOf(options.url);
  if (forwardTo !== undefined) {
    try {
      const url = new URL(forwardTo);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    } catch {
      throw new CliError(`--forward-to ${forwardTo} is not an http or https URL`);
    }
  }
  let last: number | undefined;
  let announced = false;
  // The session this connection opened (a reconnect opens another): forwards are reported under it.
  let session: string | undefined;
  const streamPath = () => {
    const params = new URLSearchParams();
    if (last !== undefined) params.set('after', String(last));
    if (forwardTo !== undefined) params.set('forwardTo', forwardTo);
    const text = params.toString();
    return `/_sandbox/webhooks/events/stream${text ? `?${text}` : ''}`;
  };
  await follow(options, streamPath, json, async ({ event, data }) => {
    if (event === 'ready') {
      session = (JSON.parse(data) as { listenSession?: string }).listenSession;
      if (!json && !announced) {
        out(chalk.dim(`listening for webhook events of ${options.clientId} at ${origin}${forwardTo ? `, forwarding to ${forwardTo} (listen session ${session})` : ''} (Ctrl-C to stop)`));
      }
      announced = true;
      return;
    }
    if (event !== 'webhook') return;
    const e = JSON.parse(data) as StreamedEvent;
    last = e.seq;
    let forwarded: { status: number | null; error?: string; ms: number } | undefined;
    let reportFailed: string | undefined;
    if (forwardTo) {
      const started = performance.now();
      let excerpt: string | null = null;
      try {
        const response = await fetch(forwardTo, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...Object.fromEntries((e.signatureHeaders ?? [e.signatureHeader]).map((name) => [name, e.signature])), 'User-Agent': 'service-sandbox-listen' },
          body: e.body,
          signal: AbortSignal.timeout(5000),
        });
        excerpt = (await response.text()).slice(0, 500);
        forwarded = { status: response.status, ms: performance.now() - started };
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        forwarded = { status: null, error: cause === 'ECONNREFUSED' ? 'connection refused' : (error as Error).name === 'TimeoutError' ? 'timed out after 5s' : (error as Error).message, ms: performance.now() - started };
      }
      // One truth per delivery: the forward is recorded as an attempt of the event (webhooks list, the UI, the deliveries list).
      try {
        await call(options, 'POST', `/_sandbox/webhooks/deliveries/${encodeURIComponent(e.id)}/forwarded`, {
          listenSession: session,
          responseStatus: forwarded.status,
          error: forwarded.error ?? null,
          latencyMs: Math.round(forwarded.ms * 100) / 100,
          responseExcerpt: excerpt,
        });
      } catch (error) {
        reportFailed = (error as Error).message;
      }
    }
    const payload = JSON.parse(e.body) as { data: unknown };
    if (json) {
      out(JSON.stringify({ receivedAt: new Date().toISOString(), sandboxTime: e.timestamp, id: e.id, type: e.type, resourceId: e.resourceId, data: payload.data, ...(forwarded ? { forwarded: { ...forwarded, listenSession: session, ...(reportFailed ? { notRecorded: reportFailed } : {}) } } : {}) }));
      return;
    }
    const answer = forwarded
      ? `  -> ${forwarded.status === null ? chalk.red(`${forwarded.error} (${Math.round(forwarded.ms)} ms)`) : answerOf({ responseStatus: forwarded.status, error: null, latencyMs: forwarded.ms })}`
      : '';
    out(`${chalk.dim(new Date().toISOString().slice(11, 19))} ${chalk.dim(`(sandbox ${e.timestamp})`)}  ${e.type.padEnd(30)} ${e.resourceId ?? '-'}  ${chalk.dim(e.id)}${answer}`);
    if (reportFailed) out(chalk.yellow(`  the sandbox did not record this forward: ${reportFailed}`));
    out(indent(JSON.stringify(payload.data, null, 2)));
  });
}

/** The earlier event of the same resource still being retried, which holds this one back (events of one resource go in order). */
async function blockerOf(options: ClientOptions, delivery: Delivery): Promise<Delivery | undefined> {
  if (!delivery.resourceId) return undefined;
  const page = (await call(options, 'GET', `/_sandbox/webhooks/deliveries${query({ resourceId: delivery.resourceId, limit: 100 })}`)) as { data: Delivery[] };
  return page.data.find((d) => d.id < delivery.id && (d.status === 'RETRYING' || d.status === 'SENDING'));
}

/** Waits (up to 7 s of real time) for an event's first attempt, or finds the earlier event it is queued behind. */
async function firstOutcome(options: ClientOptions, eventId: string): Promise<{ delivery: Delivery; blocker?: Delivery }> {
  const deadline = Date.now() + 7_000;
  for (;;) {
    const delivery = (await call(options, 'GET', `/_sandbox/webhooks/deliveries/${encodeURIComponent(eventId)}`)) as Delivery;
    if ((delivery.status !== 'PENDING' && delivery.status !== 'SENDING') || Date.now() > deadline) return { delivery };
    if (delivery.status === 'PENDING') {
      const blocker = await blockerOf(options, delivery);
      if (blocker) return { delivery, blocker };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `service-sandbox webhooks key|list|tail|replay|trigger`. */
export function registerWebhooksCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('inspect, replay and trigger webhook deliveries of a running sandbox');

  withClientOptions(webhooks.command('key').description('print the public key (PEM) that verifies X-Service-Signature (and X-Grid-Signature, the same value)')).action(async (opts) => {
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
          out(`    #${a.attempt} ${chalk.dim(a.attemptedAt)} ${targetOf(a)} -> ${answerOf(a)}${excerpt}`);
        }
      }
    }
    out(chalk.dim(`${page.data.length} of ${page.totalCount}${page.hasMore ? '; use --limit or filters for more' : ''}`));
  });

  withExamples(
    withClientOptions(
      webhooks
        .command('tail')
        .description('follow deliveries live: one line per attempt with its outcome; reconnects when the sandbox restarts')
        .option('--payload', "print each event's data under its line")
        .option('--json', 'one JSON object per line'),
    ).action(async (opts: Record<string, unknown>) => tail(clientOptions(opts), Boolean(opts.json), Boolean(opts.payload))),
    ['service-sandbox webhooks tail', 'service-sandbox webhooks tail --payload', 'service-sandbox webhooks tail --json | jq .result.responseStatus'],
  );

  withExamples(
    withClientOptions(
      webhooks
        .command('listen')
        .description('print each event as it is produced (type, resource, wall-clock and sandbox time, payload); with --forward-to, deliver it signed to a local URL. Reconnects when the sandbox restarts')
        .option('--forward-to <url>', 'POST each event, signed (X-Service-Signature and X-Grid-Signature), to this URL and print the answer')
        .option('--json', 'one JSON object per line'),
    ).action(async (opts: Record<string, unknown>) => listen(clientOptions(opts), Boolean(opts.json), opts.forwardTo === undefined ? undefined : String(opts.forwardTo))),
    ['service-sandbox webhooks listen', 'service-sandbox webhooks listen --forward-to http://127.0.0.1:3000/webhooks', 'service-sandbox webhooks listen --json > events.ndjson'],
  );

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
      const { data } = (await call(options, 'GET', '/_sandbox/webhooks/event-types')) as { data: { type: string; triggerable: boolean; producedWhen?: string }[] };
      for (const t of data) {
        const how = t.triggerable ? chalk.green('triggerable') : t.producedWhen ? chalk.dim(`sent when ${t.producedWhen}`) : chalk.dim('not produced by the sandbox');
        out(`${t.type.padEnd(46)} ${how}`);
      }
      return;
    }
    const { data: types } = (await call(options, 'GET', '/_sandbox/webhooks/event-types')) as { data: { type: string; triggerable: boolean; producedWhen?: string }[] };
    const known = types.find((t) => t.type === type);
    if (!known) throw new CliError(`${type} is not an event type of the contract; \`service-sandbox webhooks trigger\` lists them`);
    if (!known.triggerable) {
      throw new CliError(
        known.producedWhen ? `${type} cannot be triggered on its own: it is sent when ${known.producedWhen}` : `the sandbox does not produce ${type} events, so it cannot be triggered`,
      );
    }
    const event = (await call(options, 'POST', '/_sandbox/webhooks/trigger', opts.resource ? { type, resourceId: opts.resource } : { type })) as Delivery;
    out(`triggered ${event.type} ${event.id}${event.resourceId ? ` for ${event.resourceId}` : ''}`);
    const { delivery, blocker } = await firstOutcome(options, event.id);
    const last = delivery.attempts.at(-1);
    if (blocker) {
      out(
        chalk.yellow(
          `queued: events of ${delivery.resourceId} are delivered in order, and the earlier ${blocker.type} ${blocker.id} is ${blocker.status}` +
            `${blocker.nextAttemptAt ? ` (next attempt at ${blocker.nextAttemptAt}, sandbox time)` : ''}; this one goes after it. ` +
            `Fix the endpoint and \`webhooks replay ${blocker.id}\`, or move the clock with \`clock advance\``,
        ),
      );
    } else if (delivery.status === 'NO_ENDPOINT') {
      out(
        chalk.yellow(
          'not sent: the platform has no webhook endpoint and no `webhooks listen --forward-to` is running; set an endpoint (PATCH /config webhookEndpoint, or start --webhook-url) and `webhooks replay` it, or start `webhooks listen --forward-to <url>`',
        ),
      );
    } else if (last) {
      // Where it went: the endpoint's URL, or the listen session that forwarded it (and to where).
      const lines = delivery.attempts.map((a) => `#${a.attempt} ${a.listenSession ? `sent to ${targetOf(a)}` : a.url} -> ${answerOf(a)}`);
      lines[lines.length - 1] += `  ${statusColor(delivery.status)}`;
      for (const line of lines) out(line);
    } else {
      out(`${statusColor(delivery.status)}; follow it with \`service-sandbox webhooks tail\``);
    }
  });
}
