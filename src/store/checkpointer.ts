import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// The worker is plain CommonJS evaluated from this string, so it runs the same from src/ (tests)
// and dist/ (the CLI); it loads better-sqlite3 from the path the parent resolved.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { parentPort.postMessage(String(error)); }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  db.close();
  parentPort.postMessage('stopped');
});
`;

/**
 * Moves WAL checkpoints off the request path: the main connection never checkpoints
 * (`wal_autocheckpoint = 0`), and a worker thread with its own connection checkpoints every
 * `intervalMs`. A checkpoint's fsyncs then no longer stall the event loop, while
 * `synchronous = NORMAL` keeps the database as durable as before.
 */
export class Checkpointer {
  private worker: Worker | undefined;
  private readonly watch: NodeJS.Timeout;

  /**
   * The worker starts once the WAL passes `startBytes` (an idle sandbox never needs it, and
   * does not pay its memory); until then the WAL file's size is checked once a second.
   */
  constructor(
    private readonly file: string,
    private readonly onError: (message: string) => void,
    private readonly intervalMs = 200,
    startBytes = 1024 * 1024,
  ) {
    this.watch = setInterval(() => {
      let size = 0;
      try {
        size = statSync(`${file}-wal`).size;
      } catch {
        return;
      }
      if (size >= startBytes) this.start();
    }, 1000);
    this.watch.unref();
  }

  private start(): void {
    clearInterval(this.watch);
    if (this.worker) return;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file: this.file, driver, intervalMs: this.intervalMs } });
    worker.unref();
    worker.on('message', (message: string) => {
      if (message !== 'stopped') this.onError(message);
    });
    worker.on('error', (error) => this.onError(String(error)));
    this.worker = worker;
  }

  /** Runs a last checkpoint and closes the worker's connection. */
  async stop(): Promise<void> {
    clearInterval(this.watch);
    const worker = this.worker;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      const timeout = setTimeout(resolve, 2000);
      worker.once('message', () => {
        clearTimeout(timeout);
        resolve();
      });
      worker.once('exit', () => resolve());
      worker.postMessage('stop');
    });
    await worker.terminate();
  }
}
