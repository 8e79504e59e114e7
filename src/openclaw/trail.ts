// The hub's loop trail on what the plugin sends (a2a/wire/hub-trail.ts). OpenClaw's a2a channel
// hands the plugin a chat message, not the A2A request it came in, so the trail a hub put on
// that request is lost before the model acts on it. What the plugin can say truly is that the
// conversation passes through this agent: it adds its own card id, so that a hub that knows the
// agent by that id refuses to relay the conversation back to it (docs/openclaw.md).

import { trailFromEnv, type HubTrail } from '../a2a/wire/hub-trail.js';
import { readOwnCard } from '../home/own-card.js';
import type { Stores } from '../home/stores.js';

/** The trail a task the plugin sends carries: the gateway's own (if it was started with one), then this agent's id. */
export function pluginTrail(stores: Stores, env: NodeJS.ProcessEnv): HubTrail | undefined {
  const inherited = trailFromEnv(env);
  let self: string | undefined;
  try {
    self = readOwnCard(stores).agent.id;
  } catch {
    // No card yet: nothing to add.
  }
  if (self === undefined) return inherited;
  const trail = inherited?.trail ?? [];
  return { hops: inherited?.hops ?? 0, trail: trail.includes(self) ? trail : [...trail, self] };
}
