// The hub's loop guard as it travels in a message: how many hubs' hops the conversation has
// made and the ids of the agents it passed through, under the hub extension's URI in the
// message metadata. `serve` hands it to the program it runs (A2A_LITE_HUB_TRAIL), and `send`
// run by that program puts it back on the message it sends onward, so a cycle shows.

export const HUB_EXTENSION = 'https://a2a-lite.dev/extensions/hub/v1';

/** The environment variable a program run by `serve --exec` finds the trail in. */
export const HUB_TRAIL_ENV = 'A2A_LITE_HUB_TRAIL';

export interface HubTrail {
  hops: number;
  /** Agent ids, in the order the message reached them. */
  trail: string[];
}

/** The trail in a message's metadata; undefined when there is none or it is malformed. */
export function trailOf(metadata: unknown): HubTrail | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  return readTrail((metadata as Record<string, unknown>)[HUB_EXTENSION]);
}

/** A trail from its JSON form (the metadata value, or the environment variable parsed). */
export function readTrail(value: unknown): HubTrail | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { hops, trail } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(hops) || (hops as number) < 0 || !Array.isArray(trail) || trail.length > 1000 || !trail.every((id) => typeof id === 'string')) return undefined;
  return { hops: hops as number, trail: trail as string[] };
}

/** The trail a program was started with, from its environment; undefined when absent or bad. */
export function trailFromEnv(env: NodeJS.ProcessEnv): HubTrail | undefined {
  const raw = env[HUB_TRAIL_ENV];
  if (raw === undefined || raw === '') return undefined;
  try {
    return readTrail(JSON.parse(raw));
  } catch {
    return undefined;
  }
}
