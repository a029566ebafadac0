import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  /** The exact body bytes. */
  raw: Buffer;
  body: any;
}

/** How the receiver answers the n-th request (0-based): a status, an optional body, or `hang` (never answers). */
export type Answer = (n: number, received: Received) => { status: number; body?: string } | 'hang';

/** A real webhook receiver on 127.0.0.1 for tests. */
export class Receiver {
  readonly received: Received[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly hanging = new Set<import('node:http').ServerResponse>();

  /** The TEST events answered 200 and left out of `received` (see `start`). */
  readonly swallowed: Received[] = [];
  private swallowNextTest: boolean;

  private constructor(
    private readonly server: Server,
    public answer: Answer,
    swallowConfigTest: boolean,
  ) {
    this.swallowNextTest = swallowConfigTest;
  }

  /**
   * Starts a receiver on a free port (or `port`). The sandbox sends a TEST event when an
   * endpoint is configured; unless `swallowConfigTest` is false, the first TEST event to arrive
   * before any other is answered 200 and kept in `swallowed`, not in `received`, so that tests
   * of other events see only theirs.
   */
  static async start(answer: Answer = () => ({ status: 200, body: 'ok' }), port = 0, options: { swallowConfigTest?: boolean } = {}): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => receiver!.handle(req.headers, Buffer.concat(chunks), res));
    });
    receiver = new Receiver(server, answer, options.swallowConfigTest ?? true);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Resolves once `count` requests have arrived in total. */
  waitFor(count: number): Promise<Received[]> {
    if (this.received.length >= count) return Promise.resolve(this.received);
    return new Promise((resolve) => this.waiters.push({ count, resolve: () => resolve(this.received) }));
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(headers: IncomingHttpHeaders, raw: Buffer, res: import('node:http').ServerResponse): void {
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = raw.toString('utf8');
    }
    const received: Received = { headers, raw, body };
    if (this.swallowNextTest) {
      this.swallowNextTest = false;
      if ((body as { type?: unknown } | undefined)?.type === 'TEST') {
        this.swallowed.push(received);
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('ok');
        return;
      }
    }
    const n = this.received.length;
    this.received.push(received);
    const answer = this.answer(n, received);
    if (answer === 'hang') {
      this.hanging.add(res);
    } else {
      res.writeHead(answer.status, { 'Content-Type': 'text/plain' });
      res.end(answer.body ?? '');
    }
    this.waiters = this.waiters.filter((w) => {
      if (this.received.length < w.count) return true;
      w.resolve();
      return false;
    });
  }
}
