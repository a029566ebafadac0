import { Readable } from 'node:stream';
import busboy from 'busboy';
import type { AppContext } from './env.js';

/** What a multipart part handler gets for a file part: its bytes as they stream in. */
export interface FilePart {
  name: string;
  filename: string;
  mimeType: string;
  stream: Readable;
}

/** The bounds of one multipart form: a few text fields, at most `files` file parts. */
export interface MultipartLimits {
  files: number;
  fields: number;
  fieldSize: number;
}

const DEFAULT_LIMITS: MultipartLimits = { files: 1, fields: 20, fieldSize: 64 * 1024 };

/** A multipart body that is not one (no boundary, broken framing): the caller decides the answer. */
export class MultipartError extends Error {}

/**
 * Reads a `multipart/form-data` body as it streams in (busboy, a streaming parser: each chunk
 * of the socket is parsed when it arrives, so a 10 MB upload never holds the event loop the way
 * parsing it whole at the end does: undici's `formData()` took 25-67 ms for 10 MB here). Text
 * fields are collected; each file part goes to `onFile`, which must consume its stream. The body
 * is the request's own stream, so the path's body limit (body-limits.ts) counts it; its error
 * (413 or the contract's 400) rejects the promise as it is. Resolves with the text fields once the
 * whole body is read and every `onFile` has finished.
 */
export async function readMultipart(
  c: AppContext,
  onFile: (part: FilePart) => Promise<void>,
  limits: Partial<MultipartLimits> = {},
): Promise<Record<string, string>> {
  const { files, fields, fieldSize } = { ...DEFAULT_LIMITS, ...limits };
  const body = c.req.raw.body;
  const fieldValues: Record<string, string> = {};
  if (!body) return fieldValues;
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { 'content-type': c.req.header('Content-Type') ?? '' }, limits: { files, fields, fieldSize, parts: files + fields } });
  } catch (error) {
    throw new MultipartError(error instanceof Error ? error.message : String(error));
  }
  const handlers: Promise<void>[] = [];
  const open = new Set<Readable>();
  const source = Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>);
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      source.destroy();
      // A file part still streaming ends with the error, so its consumer stops too.
      for (const stream of open) stream.destroy(error instanceof Error ? error : new Error(String(error)));
      reject(error);
    };
    source.on('error', fail);
    parser.on('error', (error: unknown) => fail(new MultipartError(error instanceof Error ? error.message : String(error))));
    parser.on('field', (name, value) => {
      fieldValues[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      open.add(stream);
      stream.once('close', () => open.delete(stream));
      handlers.push(
        onFile({ name, filename: info.filename ?? '', mimeType: info.mimeType, stream }).catch((error: unknown) => {
          stream.resume();
          fail(error);
        }),
      );
    });
    parser.on('close', () => resolve());
    source.pipe(parser);
  });
  await Promise.all(handlers);
  return fieldValues;
}

/** A file part read whole: its bytes are bounded by the path's body limit. */
export interface UploadedPart {
  filename: string;
  mimeType: string;
  bytes: Uint8Array;
}

/**
 * Reads a multipart form as it streams in, keeping the first file part named `fileField` in
 * memory and draining any other file part. Resolves with the text fields and that file, if any.
 */
export async function readMultipartFile(
  c: AppContext,
  fileField = 'file',
  limits: Partial<MultipartLimits> = {},
): Promise<{ fields: Record<string, string>; file: UploadedPart | undefined }> {
  let file: UploadedPart | undefined;
  const fields = await readMultipart(
    c,
    async (part) => {
      if (part.name !== fileField || file) return void part.stream.resume();
      const chunks: Buffer[] = [];
      for await (const chunk of part.stream as AsyncIterable<Buffer>) chunks.push(chunk);
      file = { filename: part.filename, mimeType: part.mimeType, bytes: new Uint8Array(Buffer.concat(chunks)) };
    },
    limits,
  );
  return { fields, file };
}
