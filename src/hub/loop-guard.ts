// The hub's two loop guards. A message on its way to an agent carries the trail of agents the
// conversation already passed through (a2a/wire/hub-trail.ts): the hub refuses a message whose
// trail already holds its target, or that has made too many hops, and otherwise adds the target
// to the trail before relaying it; agents that relay onwards with `a2a-lite send` carry it on.
// And every request the hub makes names the hubs it passed through (`A2A-Lite-Via`), so that an
// agent registered at a URL that leads back to a hub (its own `/agents/…`) cannot make it call
// itself without end, whatever the request is: a card read and a health check have no message.

import { trailOf, type HubTrail } from '../a2a/wire/hub-trail.js';
import { LiteError } from '../errors.js';

/** Hops allowed by default: a conversation may pass through this many agents at most. */
export const DEFAULT_MAX_HOPS = 8;

/** The header naming the hubs a request passed through, each by the id it has while it runs. */
export const VIA_HEADER = 'a2a-lite-via';

/** Hubs one request may pass through. */
const MAX_HUBS = 4;

/**
 * The trail a message with `metadata` (as the agent's server read it) goes on with to `target`.
 * Throws FORBIDDEN when it has been to `target` before or has made `maxHops` hops already.
 */
export function nextTrail(metadata: unknown, target: string, maxHops = DEFAULT_MAX_HOPS): HubTrail {
  const trail = trailOf(metadata) ?? { hops: 0, trail: [] };
  if (trail.trail.includes(target)) {
    throw new LiteError('FORBIDDEN', `loop refused: this conversation already passed through ${target} (${[...trail.trail, target].join(' → ')})`);
  }
  if (trail.hops >= maxHops) throw new LiteError('FORBIDDEN', `loop refused: this conversation has made ${trail.hops} hops, the most the hub allows`);
  return { hops: trail.hops + 1, trail: [...trail.trail, target] };
}

/**
 * The `A2A-Lite-Via` value for a request hub `self` sends on, given the one it came with.
 * Throws FORBIDDEN when the request has been through `self` already, or through too many hubs.
 */
export function viaFor(self: string, incoming: string | undefined): string {
  // Most requests come straight from a client.
  if (incoming === undefined || incoming === '') return self;
  const hubs = (incoming ?? '').split(',').map((hub) => hub.trim()).filter((hub) => hub !== '');
  if (hubs.includes(self)) throw new LiteError('FORBIDDEN', 'loop refused: this request came back to the hub that sent it (an agent registered at a URL that leads back to the hub)');
  if (hubs.length >= MAX_HUBS) throw new LiteError('FORBIDDEN', `loop refused: this request has passed through ${hubs.length} hubs, the most allowed`);
  return [...hubs, self].join(', ');
}
