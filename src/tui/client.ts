/**
 * The terminal UI's connection to a running sandbox: contract and control-plane calls with the
 * platform's credentials, and the change stream (`GET /_sandbox/changes`). The UI never opens
 * the database.
 */
import { readSse } from '../client/sse.js';

/** A change as the control plane's change stream sends it (see src/control/changes.ts). */
export interface Change {
  kind: 'request' | 'event' | 'delivery' | 'clock';
  platformId: string | null;
  path?: string;
  method?: string;
  type?: string;
  resourceId?: string | null;
  eventId?: string;
  state?: string;
}

/** An error answer of the sandbox, with its code and message. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The fields at fault (`details.errors` of the envelope), for a form to show beside its fields. */
    readonly fields: { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** Where and as whom the UI connects. */
export interface Connection {
  /** The sandbox origin or base URL (`http://127.0.0.1:8080`). */
  url: string;
  clientId: string;
  clientSecret: string;
}

/** Calls and change subscription the views use. */
export class SandboxClient {
  readonly origin: string;
  private readonly auth: string;

  constructor(readonly connection: Connection) {
    this.origin = new URL(connection.url).origin;
    this.auth = `Basic ${Buffer.from(`${connection.clientId}:${connection.clientSecret}`).toString('base64')}`;
  }

  /** A contract call: `api('GET', '/customers?limit=50')`. */
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    return this.request<T>(method, `/2025-10-13${path}`, body);
  }

  /** A control-plane call: `control('POST', '/clock/advance', { seconds: 60 })`. */
  control<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    return this.request<T>(method, `/_sandbox${path}`, body);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Authorization: this.auth };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw new RequestError(0, 'UNREACHABLE', `no sandbox is answering at ${this.origin}`);
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = { message: text };
    }
    if (!response.ok) {
      const error = json as { code?: string; message?: string; details?: { errors?: { field?: unknown; message?: unknown }[] } };
      const fields = (Array.isArray(error.details?.errors) ? error.details.errors : [])
        .slice(0, 50)
        .filter((e) => typeof e?.field === 'string')
        .map((e) => ({ field: String(e.field), message: typeof e.message === 'string' ? e.message : 'invalid' }));
      throw new RequestError(response.status, error.code ?? String(response.status), `${response.status} ${error.code ?? ''} ${error.message ?? ''}`.trim(), fields);
    }
    return json as T;
  }

  /**
   * Follows the change stream; `onChange` gets each change, `onStatus` whether the stream is
   * connected. Reconnects after a drop. Returns the function that stops it.
   */
  subscribe(onChange: (change: Change) => void, onStatus: (connected: boolean) => void = () => {}): () => void {
    let stopped = false;
    let abort = new AbortController();
    const run = async () => {
      while (!stopped) {
        try {
          const response = await fetch(`${this.origin}/_sandbox/changes`, {
            headers: { Authorization: this.auth, Accept: 'text/event-stream' },
            signal: abort.signal,
          });
          if (!response.ok || !response.body) throw new Error(String(response.status));
          await readSse(response, ({ event, data }) => {
            if (event === 'ready') onStatus(true);
            else if (event === 'change') onChange(JSON.parse(data) as Change);
          });
        } catch {
          // dropped or refused: retry below
        }
        if (stopped) return;
        onStatus(false);
        await new Promise((resolve) => setTimeout(resolve, 500));
        abort = new AbortController();
      }
    };
    void run();
    return () => {
      stopped = true;
      abort.abort();
    };
  }
}
