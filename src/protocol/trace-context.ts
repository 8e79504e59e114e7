// W3C Trace Context as text: what a `traceparent` and a `tracestate` may look like, checked the
// same way wherever one arrives (an HTTP header, gRPC metadata, a relay frame, the lite header's
// `traceparent=` parameter, an exec program's environment). A value that fails is dropped, never
// repaired, and never kept past these limits.

import { readHeader } from './header.js';

/** version-traceid-parentid-flags, lower-case hex (W3C Trace Context, level 1 and later). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[^\s]*)?$/;
/** A later version may append fields; none is longer than this. */
const MAX_TRACEPARENT = 256;
/** The most of a tracestate a receiver is asked to keep; a longer one is dropped whole. */
export const MAX_TRACESTATE = 512;
/** list-members: `key=value`, comma separated, printable ASCII without `,` `=` in the value. */
const TRACESTATE = /^[\x20-\x7e]*$/;

export interface TraceContextText {
  traceparent: string;
  tracestate?: string;
}

/**
 * The trace context in `traceparent` and `tracestate` when the first is well formed: version
 * `ff`, an all-zero trace or parent id, upper-case hex or extra fields on version 00 are not.
 * A tracestate too long or holding other than printable ASCII is left out; the traceparent
 * still counts.
 *
 * @example
 * traceContextOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'x=1')
 * // { traceparent: '00-0af7…-01', tracestate: 'x=1' }
 */
export function traceContextOf(traceparent: string | undefined, tracestate?: string): TraceContextText | undefined {
  if (traceparent === undefined || traceparent.length > MAX_TRACEPARENT) return undefined;
  const parts = TRACEPARENT.exec(traceparent.trim());
  if (parts === null) return undefined;
  const [, version, traceId, parentId, , extra] = parts as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && extra !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentId)) return undefined;
  const state = tracestate?.trim();
  const keep = state !== undefined && state !== '' && state.length <= MAX_TRACESTATE && TRACESTATE.test(state);
  return keep ? { traceparent: traceparent.trim(), tracestate: state } : { traceparent: traceparent.trim() };
}

/** How much of a message's first line is read for its header's trace parameters. */
const MAX_HEADER_LINE = 4096;

/**
 * The trace context a lite header carries in its `traceparent=` (and `tracestate=`)
 * parameters, when the text opens with a header and they are well formed. Chat has no
 * headers of its own, so the protocol header carries them (docs/observability.md).
 *
 * @example
 * traceContextInLite('[A2A:task id=t-1 traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01]\nhello')
 */
export function traceContextInLite(text: string): TraceContextText | undefined {
  const start = text.length - text.trimStart().length;
  if (!text.startsWith('[A2A:', start) || !text.includes('traceparent', start)) return undefined;
  const end = text.indexOf('\n', start);
  const line = text.slice(start, Math.min(end === -1 ? text.length : end, start + MAX_HEADER_LINE));
  const { params } = readHeader(line, 0, () => {});
  return traceContextOf(params.traceparent, params.tracestate);
}
