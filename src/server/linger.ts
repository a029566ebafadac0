import type { Socket } from 'node:net';

/** How long a closing connection goes on reading (and dropping) what its client still sends. */
export const LINGER_MS = 2000;
/** How much of it, at most: a client uploading 200 MB is cut off well before its end. */
export const LINGER_BYTES = 16 * 1024 * 1024;

const lingering = new WeakSet<Socket>();

/**
 * Makes the close after this answer a lingering close, as web servers do. Node ends a
 * `Connection: close` socket and destroys it as soon as the answer is written; a client still
 * writing its upload then meets a reset (EPIPE, ECONNRESET) that can throw away the answer it had
 * already received before it read it (one in forty 200 MB uploads on a loaded machine). Instead
 * the sandbox ends its side after the answer, then reads and drops whatever still arrives until
 * the client closes, LINGER_BYTES have come or LINGER_MS have passed, and only then destroys the
 * socket. Nothing read is kept, so memory stays flat, and the client reads its answer whole.
 */
export function lingerOnClose(socket: Socket): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.destroyed) return;
    let read = 0;
    const stop = () => this.destroy();
    const timer = setTimeout(stop, LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    this.once('end', stop);
    this.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > LINGER_BYTES) stop();
    });
    this.end();
    this.resume();
  };
}
