// What every request to the hub must pass before any route reads it: a path and a query whose
// percent-escapes decode, and a body not nested past the hub's limit. A request that fails is
// the client's mistake, answered 400 naming what was wrong, never an error of the hub's own
// from some reader further on that decodes or copies it.

import { LiteError } from '../errors.js';

/**
 * The deepest nesting of a body the hub takes. An agent refuses a message nested deeper than
 * 64 levels itself; the envelope around a message adds a few, so the hub never refuses what
 * the agent would have read.
 */
export const MAX_BODY_DEPTH = 128;

/**
 * The methods the hub takes. An agent's server may drop a connection that asks for another
 * (CONNECT), which the hub would then report as an agent it could not reach.
 */
export const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

interface CheckedRequest {
  path: string;
  /** The raw query, when the adapter gives it. */
  search?: string;
  body: string;
}

/** Throws INVALID_PARAMS naming a bad percent-escape in the path or query, or a body nested too deep. */
export function checkRequest(request: CheckedRequest): void {
  for (const [where, text] of [['path', request.path], ['query', request.search ?? '']] as const) {
    const escape = badEscape(text);
    if (escape !== undefined) throw new LiteError('INVALID_PARAMS', `the ${where} holds "${escape}", which is not valid percent-encoding (% and two hex digits, of UTF-8)`);
  }
  if (nestsDeeper(request.body, MAX_BODY_DEPTH)) throw new LiteError('INVALID_PARAMS', `the request body nests deeper than ${MAX_BODY_DEPTH} levels`);
}

/**
 * A malformed escape in `text`: the first `%` without two hex digits after it (with what
 * follows, at most two characters), else the first run of escapes that is not UTF-8;
 * undefined when every escape decodes.
 */
export function badEscape(text: string): string | undefined {
  if (!text.includes('%')) return undefined;
  try {
    decodeURIComponent(text);
    return undefined;
  } catch {
    // Malformed somewhere: find where, to name it.
  }
  const lone = /%(?![0-9A-Fa-f]{2})/.exec(text);
  if (lone !== null) return text.slice(lone.index, lone.index + 3);
  let at = text.indexOf('%');
  while (at !== -1) {
    let end = at;
    while (text[end] === '%' && isHex(text.charCodeAt(end + 1)) && isHex(text.charCodeAt(end + 2))) end += 3;
    const run = text.slice(at, end);
    try {
      decodeURIComponent(run);
    } catch {
      return run.length > 24 ? `${run.slice(0, 24)}…` : run;
    }
    at = text.indexOf('%', end);
  }
  return undefined;
}

/**
 * True when `text` nests arrays and objects deeper than `limit`, counted in one pass outside
 * strings, so that no parse or copy of it has to be risked first. Text that is not JSON is
 * counted the same way; it is refused later for what it is.
 */
export function nestsDeeper(text: string, limit: number): boolean {
  // Each level needs its own bracket.
  if (text.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) {
      depth -= 1;
    }
  }
  return false;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
