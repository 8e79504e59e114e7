// Where the hub's trail goes in a message send, found by one pass over the JSON text instead of
// parsing it into objects and writing it out again, which was most of the loop guard's cost on
// every relayed send. The pass finds the message object (`params.message` in JSON-RPC, `message`
// in HTTP+JSON) and its `metadata` object. Whenever the text is not plain enough to be sure what
// a JSON parser would make of it (a repeated or escaped key on the way, metadata that is not an
// object, malformed JSON), it says so, and the caller parses the body as before.

import { HUB_EXTENSION } from '../a2a/wire/hub-trail.js';

/** Where to write: just inside the metadata object, or inside the message when it has none. */
export interface SplicePoint {
  /** The offset just after the `{` the new member goes after. */
  at: number;
  /** True: `at` is inside `metadata`; false: inside the message, which has no metadata. */
  inMetadata: boolean;
  /** True when that object has no members yet (no comma after the new one). */
  empty: boolean;
}

type Role = 'root' | 'params' | 'message' | 'metadata' | 'other';

interface Frame {
  object: boolean;
  role: Role;
  /** Expecting a key next (objects only). */
  wantKey: boolean;
  /** The role the next value takes, from the key before it. */
  next: Role;
  /** The watched key was seen here already. */
  seen: boolean;
}

/** The key in an object of `role` that leads to the next object watched, if any. */
function childKey(role: Role, rpc: boolean): string | undefined {
  if (role === 'root') return rpc ? 'params' : 'message';
  if (role === 'params') return 'message';
  if (role === 'message') return 'metadata';
  return undefined;
}

/**
 * The splice point for the trail in `body`; `'none'` when the body holds no message object to
 * add it to (the agent answers such a body itself); undefined when only a parser can tell.
 */
export function splicePoint(body: string, rpc: boolean): SplicePoint | 'none' | undefined {
  const stack: Frame[] = [];
  let message: SplicePoint | undefined;
  let metadata: SplicePoint | undefined;
  let messageHasMetadata = false;
  let done = false;
  let i = 0;
  const length = body.length;
  const role = (): Role => (stack.length === 0 ? 'root' : (stack[stack.length - 1] as Frame).next);
  const valueEnded = (): void => {
    const top = stack[stack.length - 1];
    if (top === undefined) done = true;
    else top.next = 'other';
  };
  while (i < length) {
    const c = body.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      i += 1;
      continue;
    }
    if (done) return undefined; // text after the whole value
    const top = stack[stack.length - 1];
    if (c === 0x22) {
      // A string: find its closing quote, past escaped ones.
      let end = body.indexOf('"', i + 1);
      while (end !== -1 && escaped(body, end)) end = body.indexOf('"', end + 1);
      if (end === -1) return undefined;
      if (top !== undefined && top.object && top.wantKey) {
        if (top.role === 'metadata') {
          // A trail already there, perhaps under an escaped spelling, is for the parser to read.
          const text = body.slice(i + 1, end);
          if (text.includes('\\') || text === HUB_EXTENSION) return undefined;
        }
        const key = childKey(top.role, rpc);
        if (key !== undefined) {
          const text = body.slice(i + 1, end);
          if (text.includes('\\')) return undefined;
          if (text === key) {
            if (top.seen) return undefined;
            top.seen = true;
            top.next = top.role === 'root' ? (rpc ? 'params' : 'message') : top.role === 'params' ? 'message' : 'metadata';
            if (top.role === 'message') messageHasMetadata = true;
          } else {
            top.next = 'other';
          }
        } else {
          top.next = 'other';
        }
        top.wantKey = false;
        i = end + 1;
        continue;
      }
      if (role() === 'metadata') return undefined; // metadata that is not an object
      valueEnded();
      i = end + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      const object = c === 0x7b;
      const own = role();
      if (own === 'metadata' && !object) return undefined;
      const opened: Frame = { object, role: object ? own : 'other', wantKey: object, next: 'other', seen: false };
      if (object && (own === 'message' || own === 'metadata')) {
        let after = i + 1;
        while (after < length && /\s/.test(body[after] as string)) after += 1;
        const point = { at: i + 1, inMetadata: own === 'metadata', empty: body[after] === '}' };
        if (own === 'message') message = point;
        else metadata = point;
      }
      stack.push(opened);
      i += 1;
      continue;
    }
    if (c === 0x7d || c === 0x5d) {
      if (top === undefined || top.object !== (c === 0x7d)) return undefined;
      stack.pop();
      valueEnded();
      i += 1;
      continue;
    }
    if (c === 0x3a) {
      if (top === undefined || !top.object || top.wantKey) return undefined;
      i += 1;
      continue;
    }
    if (c === 0x2c) {
      if (top === undefined) return undefined;
      if (top.object) top.wantKey = true;
      i += 1;
      continue;
    }
    // A number, true, false or null: up to the next delimiter.
    if (top !== undefined && top.object && top.wantKey) return undefined;
    if (role() === 'metadata') return undefined;
    let end = i;
    while (end < length && !/[\s,:\]}]/.test(body[end] as string)) end += 1;
    if (!/^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)$/.test(body.slice(i, end))) return undefined;
    valueEnded();
    i = end;
  }
  if (!done) return undefined;
  if (message === undefined) return 'none';
  if (messageHasMetadata) return metadata;
  return message;
}

/** True when the quote at `at` is escaped: an odd run of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let count = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i -= 1) count += 1;
  return count % 2 === 1;
}
