// The hub's console: four plain files (console/ at the package's top: a page, its style, its
// script and the script's module for the limited callers) served as they are, with no build
// step, read once when the hub starts. Only those four names are served, so no request path
// ever reaches the file system. The page itself holds no data and needs no token; it reads the
// hub's API with the token the user gives it.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { HttpRequest, HttpResponse } from '../net/http-types.js';

/** Where the console's files are: `console/` beside `dist/` (and beside `src/`). */
const FOLDER = new URL('../../console/', import.meta.url);

const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'limits.js': 'text/javascript; charset=utf-8',
};

/**
 * The page may load only its own files and talk only to its own hub; nothing may frame it (a
 * console that shows tasks must not be clickjacked).
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

interface ConsoleFile {
  body: string;
  type: string;
  etag: string;
}

/** Serves the console under `/console/`; undefined for any other path. */
export function consoleRoutes(): (request: HttpRequest) => HttpResponse | undefined {
  const files = new Map<string, ConsoleFile>();
  for (const [name, type] of Object.entries(FILES)) {
    const body = readFileSync(new URL(name, FOLDER), 'utf8');
    files.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  return (request): HttpResponse | undefined => {
    if (request.path !== '/console' && !request.path.startsWith('/console/')) return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }, body: 'the console is read with GET' };
    }
    // A relative link on the page resolves against /console/, not against /.
    if (request.path === '/console') return { status: 308, headers: { location: 'console/' }, body: '' };
    const name = request.path === '/console/' ? 'index.html' : request.path.slice('/console/'.length);
    const file = files.get(name);
    if (file === undefined) return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'no such console file' };
    const headers = { ...SECURITY_HEADERS, etag: file.etag, 'cache-control': 'no-cache' };
    if (request.headers['if-none-match'] === file.etag) return { status: 304, headers, body: '' };
    return { status: 200, headers: { ...headers, 'content-type': file.type }, body: request.method === 'HEAD' ? '' : file.body };
  };
}
