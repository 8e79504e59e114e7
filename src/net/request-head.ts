// What is read of a node:http request before its body: the path and query of its target, its
// headers as single strings, and the answer a handler gives from those alone (a missing
// credential), so that such a request's body is never read.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpHandler, RequestHead } from './http-types.js';

/** A path of unreserved characters without dot segments, and a query with nothing to escape. */
const PLAIN_URL = /^\/(?:[\w.~:@-]+(?:\/[\w.~:@-]*)*)?(?:\?[\w.~%+=&-]+)?$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;

/**
 * Answers `req` from its head when the handler can (a request without a valid credential), its
 * body left unread and the connection closed after the answer; false when the body is needed.
 */
export function answeredByHead(handler: HttpHandler, req: IncomingMessage, res: ServerResponse): boolean {
  if (handler.beforeBody === undefined) return false;
  const head: RequestHead = { method: req.method ?? 'GET', path: splitUrl(req.url ?? '/').path, headers: flatHeaders(req.headers) };
  if (req.socket.remoteAddress !== undefined) head.remoteAddress = req.socket.remoteAddress;
  const answer = handler.beforeBody(head);
  if (answer === undefined) return false;
  const body = 'body' in answer ? answer.body : '';
  res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(req.method === 'HEAD' ? undefined : body);
  // As after a 413: whatever of the body is still coming is not read.
  res.on('finish', () => req.destroy());
  return true;
}

/**
 * The path and query of a request target: a path is appended to a base, not resolved (`//x`
 * would name a host); a target that is no URL (`http://[/`) is a path no route has. Plain
 * targets like `/jsonrpc`, which parsing leaves unchanged, skip it.
 */
export function splitUrl(target: string): { path: string; search: string } {
  if (PLAIN_URL.test(target) && !DOT_SEGMENT.test(target)) {
    const mark = target.indexOf('?');
    return mark === -1 ? { path: target, search: '' } : { path: target.slice(0, mark), search: target.slice(mark) };
  }
  const text = target.startsWith('/') ? `http://localhost${target}` : target;
  if (!URL.canParse(text, 'http://localhost')) return { path: target, search: '' };
  const url = new URL(text, 'http://localhost');
  return { path: url.pathname, search: url.search };
}

/** Header values as single strings (repeated ones joined); node's own object when they are already. */
export function flatHeaders(raw: IncomingMessage['headers']): Record<string, string> {
  let flat = true;
  for (const name in raw) {
    if (typeof raw[name] !== 'string') {
      flat = false;
      break;
    }
  }
  if (flat) return raw as Record<string, string>;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
