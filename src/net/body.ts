// The one way a body is read: whole, as UTF-8 text, and never past a limit. Requests a server
// receives, answers a client gets and cards a hub fetches all come through here, so that no
// reader anywhere holds what a peer chooses to send without end.

import { LiteError } from '../errors.js';

/** What a body can come as: a node stream (a request or an answer), a web stream, or any async iterable of bytes. */
export type BodySource = NodeReadable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string> | null | undefined;

/** The part of a node Readable the reader uses (IncomingMessage, a socket). */
interface NodeReadable {
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  destroy(error?: Error): unknown;
}

/**
 * The body as text, or undefined once it is over `max` bytes: then nothing more is read, and a
 * node stream is left to the caller (a server answers 413 before it drops the connection).
 * A stream that fails rejects with its error.
 */
export function readBody(source: BodySource, max: number): Promise<string | undefined> {
  if (source === null || source === undefined) return Promise.resolve('');
  if (isNodeReadable(source)) return readNode(source, max);
  return readIterable(source, max);
}

/**
 * The body of an answer as text; INPUT_TOO_LARGE naming `what` once it is over `max` bytes (a
 * node stream is then destroyed: the rest of it is not wanted).
 */
export async function readText(source: BodySource, max: number, what = 'the answer'): Promise<string> {
  const text = await readBody(source, max);
  if (text !== undefined) return text;
  if (source !== null && source !== undefined && isNodeReadable(source)) source.destroy();
  throw new LiteError('INPUT_TOO_LARGE', `${what} is over ${max} bytes`, { limit: max });
}

/**
 * Whether `text` takes more than `max` bytes as UTF-8, counted only when its length leaves it in
 * doubt (a UTF-16 unit is one to three bytes), so that a short body costs no scan.
 */
export function overBytes(text: string, max: number): boolean {
  return text.length > max || (text.length * 3 > max && Buffer.byteLength(text) > max);
}

function isNodeReadable(source: object): source is NodeReadable {
  return typeof (source as { on?: unknown }).on === 'function' && typeof (source as { off?: unknown }).off === 'function';
}

/** Listens for data rather than iterating: `for await` over a request costs a promise per chunk. */
function readNode(source: NodeReadable, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > max) {
        done();
        resolve(undefined);
      } else {
        chunks.push(bytes);
      }
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
  });
}

async function readIterable(source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early cancels a web stream and ends an iterator: the rest is not read.
  for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
    const bytes = Buffer.from(chunk);
    size += bytes.length;
    if (size > max) return undefined;
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}
