// Server-sent events (the WHATWG "event stream" format), read and written here only: a second
// reader that cut the same bytes differently is how a relay gets fooled.
//
// Writing: one event is its `id:`, its `event:` name, its JSON on one `data:` line, then a
// blank line. Reading: lines end in CRLF, LF or CR; `data:` lines join with "\n"; an empty line dispatches the event; lines
// starting with ":" are comments (keep-alives). An event still open when the stream ends is
// dropped, as the format requires. One event may not exceed `maxEventBytes`: a peer that
// never sends an empty line cannot make the reader hold its whole stream.

import { LiteError } from '../errors.js';

export interface SseEvent {
  /** The `event:` field; "message" when absent. */
  event: string;
  data: string;
  /** The last `id:` seen so far in the stream (it carries over to later events). */
  id: string;
}

export interface SseOptions {
  /**
   * The most one event may hold, in UTF-16 code units of its lines, one per line end included
   * (default 16 MiB). Comments and other fields count too, so the verdict on a stream never
   * depends on where it was cut into chunks.
   */
  maxEventBytes?: number;
}

export const DEFAULT_MAX_EVENT = 16 * 1024 * 1024;

/** The headers of an event stream: not cached, and not held back by a buffering proxy. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * One event: its `id:` and `event:` when given, `value` as JSON on one `data:` line (JSON holds
 * no line break), then a blank line.
 *
 * @example
 * sseEvent({ a: 1 }, 7); // 'id: 7\ndata: {"a":1}\n\n'
 */
export function sseEvent(value: unknown, id?: number | string, event?: string): string {
  // A line break in a field would start a field of the reader's choosing.
  if (/[\r\n]/.test(`${id ?? ''}${event ?? ''}`)) throw new LiteError('INTERNAL', 'an event id or name holds a line break');
  const data = `data: ${JSON.stringify(value)}\n\n`;
  const named = event === undefined ? data : `event: ${event}\n${data}`;
  return id === undefined ? named : `id: ${id}\n${named}`;
}

/** A comment line, which readers skip: a keep-alive. */
export function sseComment(text: string): string {
  return `: ${text}\n\n`;
}

/**
 * Splits decoded text into events. Feed it chunks with `push`; each call returns the events
 * the chunk completed. Pure and synchronous, so it is easy to test on any split of the input.
 *
 * @example
 * const parser = new SseParser();
 * parser.push('data: {"a":1}\n\n'); // [{ event: 'message', data: '{"a":1}', id: '' }]
 */
export class SseParser {
  private readonly max: number;
  private buffer = '';
  /** The buffer ended in CR: a LF at the start of the next chunk belongs to that line end. */
  private pendingCr = false;
  private first = true;
  private data: string[] = [];
  /** The code units of the current event's complete lines, one per line end included. */
  private size = 0;
  private type = '';
  private lastId = '';

  constructor(options: SseOptions = {}) {
    this.max = options.maxEventBytes ?? DEFAULT_MAX_EVENT;
  }

  push(chunk: string): SseEvent[] {
    let text = chunk;
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.pendingCr && text.charCodeAt(0) === 10) text = text.slice(1);
    this.pendingCr = false;
    const events: SseEvent[] = [];
    let start = 0;
    let buffer = this.buffer + text;
    for (let i = this.buffer.length; i < buffer.length; i += 1) {
      const code = buffer.charCodeAt(i);
      if (code !== 10 && code !== 13) continue;
      this.line(buffer.slice(start, i), events);
      if (code === 13) {
        if (i + 1 === buffer.length) this.pendingCr = true;
        else if (buffer.charCodeAt(i + 1) === 10) i += 1;
      }
      start = i + 1;
    }
    buffer = buffer.slice(start);
    if (buffer.length + this.size > this.max) throw tooLarge(this.max);
    this.buffer = buffer;
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push({ event: this.type || 'message', data: this.data.join('\n'), id: this.lastId });
      this.data = [];
      this.size = 0;
      this.type = '';
      return;
    }
    // Every line counts, as the unfinished line does in `push`: a line cut across chunks is
    // judged as it would be whole.
    this.size += line.length + 1;
    if (this.size > this.max) throw tooLarge(this.max);
    if (line.charCodeAt(0) === 58) return; // ":" a comment
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (name) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.type = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      default:
      // `retry:` and unknown fields: nothing an A2A client needs.
    }
  }
}

/** Reads the events of a response body as they arrive. */
export async function* readSse(body: AsyncIterable<Uint8Array>, options: SseOptions = {}): AsyncGenerator<SseEvent> {
  const parser = new SseParser(options);
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of body) {
    yield* parser.push(decoder.decode(chunk, { stream: true }));
  }
  yield* parser.push(decoder.decode());
}

function tooLarge(max: number): LiteError {
  return new LiteError('PEER_ERROR', `the agent sent a stream event over ${max} bytes; the stream was dropped`, { limit: max });
}
