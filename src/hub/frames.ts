// The relay's frames: how a whole HTTP exchange crosses the connection an agent opened to the
// hub. The hub writes requests down the agent's event stream; the agent posts the answers back.
//
//   client ──HTTP──▶ hub ──(SSE) request{rid, method, path, headers, body}──▶ agent
//   client ◀──HTTP── hub ◀──(POST) head{rid, status, headers} · chunk{rid, data}… · end{rid}── agent
//
// A plain answer may come whole as one `response` frame. Frames are posted in batches, in
// order; every frame of one request keeps its order, so a stream's events arrive as written.

import { LiteError } from '../errors.js';

/** Hub → agent, one per `data:` line of the connect stream. */
export type DownFrame =
  /**
   * The first frame. `routed`: whether the hub already sends the agent's requests here (its
   * owner coming back); false while the hub still reads and registers the agent's card, and then
   * `routed` follows. A hub that does not say is taken to route at once. `heartbeatMs`, `missed`
   * and `writeTimeoutMs` say how the hub watches the link (net/link-watch.ts), for the agent to
   * watch it the same way; a hub that sends no `missed` watches it with heartbeat frames only.
   */
  | { type: 'hello'; session: string; agentId: string; baseUrl: string; heartbeatMs: number; missed?: number; writeTimeoutMs?: number; routed?: boolean }
  /** The hub now sends the agent's requests down this connection: its card is registered. */
  | { type: 'routed' }
  | { type: 'request'; rid: string; method: string; path: string; query: string; headers: Record<string, string>; body: string; principal: string }
  | { type: 'abort'; rid: string }
  | { type: 'ping'; seq: number };

/** Agent → hub, posted in `{ frames: [...] }`. */
export type UpFrame =
  | { type: 'response'; rid: string; status: number; headers: Record<string, string>; body: string }
  | { type: 'head'; rid: string; status: number; headers: Record<string, string> }
  | { type: 'chunk'; rid: string; data: string }
  | { type: 'end'; rid: string }
  | { type: 'pong'; seq: number };

/** The most frames one post may carry. */
export const MAX_FRAMES_PER_POST = 1000;

const RID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The frames of an agent's post, checked one by one; INVALID_PARAMS naming the first frame that
 * is wrong and how. A connected agent is trusted with its own answers, not with the hub's memory.
 */
export function parseUpFrames(value: unknown): UpFrame[] {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { frames?: unknown }).frames)) {
    throw new LiteError('INVALID_PARAMS', 'a relay post is {"frames": [...]}');
  }
  const frames = (value as { frames: unknown[] }).frames;
  if (frames.length > MAX_FRAMES_PER_POST) throw new LiteError('INPUT_TOO_LARGE', `a relay post holds at most ${MAX_FRAMES_PER_POST} frames`);
  return frames.map((frame, index) => upFrame(frame, index));
}

/**
 * A frame as one WebSocket message: its fields as JSON, a newline, then its `body` or `data`
 * as it is. A relayed body is mostly JSON itself; carried beside the fields, it is neither
 * escaped by the sender nor parsed twice by the receiver.
 */
export function encodeLinkFrame(frame: DownFrame | UpFrame): Buffer {
  // The fields written out by hand: a copy of the frame without its body would cost more.
  if (frame.type === 'request') {
    const { rid, method, path, query, headers, principal, body } = frame;
    return Buffer.from(`{"type":"request","rid":${JSON.stringify(rid)},"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"query":${JSON.stringify(query)},"headers":${JSON.stringify(headers)},"principal":${JSON.stringify(principal)}}\n${body}`);
  }
  if (frame.type === 'response') {
    const { rid, status, headers, body } = frame;
    return Buffer.from(`{"type":"response","rid":${JSON.stringify(rid)},"status":${status},"headers":${JSON.stringify(headers)}}\n${body}`);
  }
  if (frame.type === 'chunk') return Buffer.from(`{"type":"chunk","rid":${JSON.stringify(frame.rid)}}\n${frame.data}`);
  return Buffer.from(`${JSON.stringify(frame)}\n`);
}

/** The fields and the text of a link message; INVALID_PARAMS when it has no JSON fields first. */
function linkParts(payload: Buffer): { fields: Record<string, unknown>; text: string } {
  const newline = payload.indexOf(10);
  let fields: unknown;
  try {
    fields = JSON.parse(payload.toString('utf8', 0, newline === -1 ? payload.length : newline));
  } catch {
    throw new LiteError('INVALID_PARAMS', 'a relay message starts with its frame as a JSON object, then a newline');
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new LiteError('INVALID_PARAMS', 'a relay message starts with its frame as a JSON object');
  return { fields: fields as Record<string, unknown>, text: newline === -1 ? '' : payload.toString('utf8', newline + 1) };
}

/** An agent's frame from a link message, checked as a posted one is. */
export function decodeUpFrame(payload: Buffer): UpFrame {
  const { fields, text } = linkParts(payload);
  if (fields.type === 'response') fields.body = text;
  else if (fields.type === 'chunk') fields.data = text;
  return upFrame(fields, 0);
}

/** The hub's frame from a link message. The agent chose its hub; it checks what it acts on. */
export function decodeDownFrame(payload: Buffer): DownFrame {
  const { fields, text } = linkParts(payload);
  if (typeof fields.type !== 'string') throw new LiteError('INVALID_PARAMS', 'a relay message has no "type"');
  if (fields.type === 'request') {
    if (typeof fields.rid !== 'string' || typeof fields.method !== 'string' || typeof fields.path !== 'string') throw new LiteError('INVALID_PARAMS', 'a relayed request needs "rid", "method" and "path"');
    if (typeof fields.headers !== 'object' || fields.headers === null) fields.headers = {};
    fields.body = text;
  }
  return fields as DownFrame;
}

function upFrame(value: unknown, index: number): UpFrame {
  const where = `frame ${index}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LiteError('INVALID_PARAMS', `${where} is not an object`);
  const frame = value as Record<string, unknown>;
  if (frame.type === 'pong') {
    if (!Number.isSafeInteger(frame.seq)) throw new LiteError('INVALID_PARAMS', `${where}: a pong carries the whole number "seq" of its ping`);
    return { type: 'pong', seq: frame.seq as number };
  }
  if (typeof frame.rid !== 'string' || !RID.test(frame.rid)) throw new LiteError('INVALID_PARAMS', `${where}: "rid" is the id of a relayed request`);
  const rid = frame.rid;
  switch (frame.type) {
    case 'response':
      return { type: 'response', rid, status: status(frame.status, where), headers: headers(frame.headers, where), body: text(frame.body, 'body', where) };
    case 'head':
      return { type: 'head', rid, status: status(frame.status, where), headers: headers(frame.headers, where) };
    case 'chunk':
      return { type: 'chunk', rid, data: text(frame.data, 'data', where) };
    case 'end':
      return { type: 'end', rid };
    default:
      throw new LiteError('INVALID_PARAMS', `${where}: "type" is response, head, chunk, end or pong`);
  }
}

function status(value: unknown, where: string): number {
  if (!Number.isInteger(value) || (value as number) < 200 || (value as number) > 599) throw new LiteError('INVALID_PARAMS', `${where}: "status" is an HTTP status from 200 to 599`);
  return value as number;
}

function text(value: unknown, name: string, where: string): string {
  if (typeof value !== 'string') throw new LiteError('INVALID_PARAMS', `${where}: "${name}" is a string`);
  return value;
}

/** Hop-by-hop and framing headers are the relay's own business, never the agent's to set; so is what the hub says of delivery. */
const DROPPED = new Set(['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'set-cookie', 'a2a-lite-delivery']);

function headers(value: unknown, where: string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LiteError('INVALID_PARAMS', `${where}: "headers" is an object of strings`);
  const out: Record<string, string> = {};
  for (const [name, field] of Object.entries(value)) {
    if (typeof field !== 'string' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(name) || /[\r\n\0]/.test(field)) {
      throw new LiteError('INVALID_PARAMS', `${where}: header ${JSON.stringify(name.slice(0, 64))} is not a valid header`);
    }
    if (!DROPPED.has(name.toLowerCase())) out[name.toLowerCase()] = field;
  }
  return out;
}
