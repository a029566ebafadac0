import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** How long a kept-alive connection to a receiver may stay idle. */
const IDLE_MS = 4_000;

/** A receiver's answer to one delivery: its status and at most `maxChars` of its body. */
export interface PostAnswer {
  status: number;
  body: string;
}

/**
 * POSTs deliveries with node's own HTTP client. Deliveries went through `fetch` before (issue 26):
 * the WHATWG layers over undici (a Request, a ReadableStream and its reader per attempt) cost
 * more CPU than the rest of an attempt together, and a delivery needs none of them: one POST, no
 * redirects followed (a 3xx is an answer, as with `redirect: 'manual'`), a bounded read.
 * Connections to receivers stay open between deliveries (as `fetch` keeps them), at most
 * `maxSockets` per receiver; `close()` ends them.
 */
export class Poster {
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;

  constructor(maxSockets: number) {
    // An idle connection is closed after 4 s (as fetch's pool does) unless the receiver's
    // `Keep-Alive: timeout=` says less: many servers close idle ones after 5 s without saying so.
    this.http = new HttpAgent({ keepAlive: true, maxSockets, timeout: IDLE_MS });
    this.https = new HttpsAgent({ keepAlive: true, maxSockets, timeout: IDLE_MS });
  }

  /**
   * POSTs `body` to `url` and reads at most `maxChars` of the answer. Fails with the client's
   * error (its `code`, e.g. `ECONNREFUSED`), or with `signal`'s reason when `signal` aborts it.
   */
  post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, maxChars: number): Promise<PostAnswer> {
    return this.once(url, headers, body, signal, maxChars).catch((error: unknown) => {
      // A kept-alive connection the receiver closed as the request went out: sent again once on a
      // new connection (node's documented remedy), not an attempt that failed.
      if ((error as { reusedSocket?: boolean }).reusedSocket && !signal.aborted) return this.once(url, headers, body, signal, maxChars);
      throw error;
    });
  }

  private once(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, maxChars: number): Promise<PostAnswer> {
    return new Promise((resolve, reject) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch (error) {
        reject(error);
        return;
      }
      const secure = target.protocol === 'https:';
      if (!secure && target.protocol !== 'http:') {
        reject(new Error(`unsupported URL scheme ${target.protocol} (http: or https:)`));
        return;
      }
      const fail = (error: unknown) => reject(signal.aborted ? signal.reason : error);
      const onAnswer = (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.length >= maxChars) {
            res.destroy();
            resolve({ status, body: text.slice(0, maxChars) });
          }
        });
        res.on('end', () => resolve({ status, body: text }));
        res.on('error', fail);
        res.on('aborted', () => fail(Object.assign(new Error('connection reset'), { code: 'ECONNRESET' })));
      };
      const options = { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, signal };
      const req = secure ? httpsRequest(target, { ...options, agent: this.https }, onAnswer) : httpRequest(target, { ...options, agent: this.http }, onAnswer);
      req.on('error', (error: Error & { code?: string }) => {
        // Reset before any answer on a reused connection: the caller may send it again.
        if (req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE') && !signal.aborted) reject(Object.assign(error, { reusedSocket: true }));
        else fail(error);
      });
      req.end(body);
    });
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
