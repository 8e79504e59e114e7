// The hub's loop guard: a message on its way to an agent carries the trail of agents the
// conversation already passed through (a2a/wire/hub-trail.ts). The hub refuses a message whose
// trail already holds its target, or that has made too many hops, and otherwise adds the target
// to the trail before relaying it. Agents that relay onwards with `a2a-lite send` carry it on.

import { HUB_EXTENSION, trailOf } from '../a2a/wire/hub-trail.js';
import { LiteError } from '../errors.js';
import { splicePoint } from './trail-splice.js';

/** Hops allowed by default: a conversation may pass through this many agents at most. */
export const DEFAULT_MAX_HOPS = 8;

const RPC_SENDS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);
const REST_SENDS = new Set(['/message:send', '/message:stream']);

/** True when `path` and `body` start or continue a task: the requests the guard reads. */
export function isSend(method: string, path: string, body: string): boolean {
  if (method !== 'POST') return false;
  if (REST_SENDS.has(path)) return true;
  if (path !== '/jsonrpc' && path !== '/') return false;
  return RPC_SENDS.has(/"method"\s*:\s*"([^"]+)"/.exec(body)?.[1] ?? '');
}

/**
 * The body to relay to `target`: the message's trail with `target` added. Throws FORBIDDEN when
 * the message has been to `target` before or has made `maxHops` hops already. A body that is
 * not a message send it can read is returned as it was: the agent answers that one itself.
 */
export function guardLoop(path: string, body: string, target: string, maxHops = DEFAULT_MAX_HOPS): string {
  // A message with no trail yet, the usual case, gets one without being parsed.
  const point = maxHops > 0 ? splicePoint(body, path === '/jsonrpc' || path === '/') : undefined;
  if (point === 'none') return body;
  if (point !== undefined) {
    const trail = `${JSON.stringify(HUB_EXTENSION)}:${JSON.stringify({ hops: 1, trail: [target] })}`;
    const member = point.inMetadata ? trail : `"metadata":{${trail}}`;
    return `${body.slice(0, point.at)}${member}${point.empty ? '' : ','}${body.slice(point.at)}`;
  }
  let envelope: unknown;
  try {
    envelope = JSON.parse(body);
  } catch {
    return body;
  }
  const holder = (path === '/jsonrpc' || path === '/' ? (envelope as { params?: unknown } | null)?.params : envelope) as { message?: unknown } | null | undefined;
  const message = typeof holder === 'object' && holder !== null ? holder.message : undefined;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return body;
  const record = message as Record<string, unknown>;
  const metadata = typeof record.metadata === 'object' && record.metadata !== null && !Array.isArray(record.metadata) ? (record.metadata as Record<string, unknown>) : {};
  const trail = trailOf(metadata) ?? { hops: 0, trail: [] };
  if (trail.trail.includes(target)) {
    throw new LiteError('FORBIDDEN', `loop refused: this conversation already passed through ${target} (${[...trail.trail, target].join(' → ')})`);
  }
  if (trail.hops >= maxHops) throw new LiteError('FORBIDDEN', `loop refused: this conversation has made ${trail.hops} hops, the most the hub allows`);
  record.metadata = { ...metadata, [HUB_EXTENSION]: { hops: trail.hops + 1, trail: [...trail.trail, target] } };
  return JSON.stringify(envelope);
}
