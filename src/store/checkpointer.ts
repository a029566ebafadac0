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
  private readonly worker: Worker;

  constructor(file: string, onError: (message: string) => void, intervalMs = 200) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs } });
    this.worker.unref();
    this.worker.on('message', (message: string) => {
      if (message !== 'stopped') onError(message);
    });
    this.worker.on('error', (error) => onError(String(error)));
  }

  /** Runs a last checkpoint and closes the worker's connection. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timeout = setTimeout(resolve, 2000);
      this.worker.once('message', () => {
        clearTimeout(timeout);
        resolve();
      });
      this.worker.once('exit', () => resolve());
      this.worker.postMessage('stop');
    });
    await this.worker.terminate();
  }
}
