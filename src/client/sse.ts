/** One server-sent message (`event`, optional `id`, one `data` line). */
export interface SseMessage {
  event: string;
  id: string | undefined;
  data: string;
}

/**
 * Reads one server-sent-events response until it ends; resolves when the stream closes or drops
 * (the sandbox stopped, or the request was aborted). Used by the CLI's `webhooks listen|tail` and
 * the terminal UI's change stream.
 */
export async function readSse(response: Response, onMessage: (message: SseMessage) => void | Promise<void>): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = response.body!.getReader();
  for (;;) {
    let chunk: { done: boolean; value?: Uint8Array };
    try {
      chunk = await reader.read();
    } catch {
      return;
    }
    if (chunk.done) return;
    buffer += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(message)?.[1];
      const data = /^data: (.*)$/m.exec(message)?.[1];
      if (!event || data === undefined) continue;
      await onMessage({ event, id: /^id: (.*)$/m.exec(message)?.[1], data });
    }
  }
}
