// Which card a request for the public card gets: the A2A 1.0 card, which a strict 1.0 schema
// accepts, or the hybrid that 0.3 clients read too (a2a/wire/agent-card.ts). A client that says
// its version gets that version's card; one that says nothing gets the 1.0 card at the 1.0 path
// and the hybrid at the path only clients older than 1.0 ask for, unless the operator asks for
// the hybrid everywhere (`cardCompat: '0.3'`) for 0.3 clients that cannot be told apart.

import type { HttpRequest } from '../../net/http-types.js';
import { askedVersion } from './http.js';

/**
 * The public card for requests that do not say their version: `'1.0'` (the default) gives the
 * strict 1.0 card at `/.well-known/agent-card.json`; `'0.3'` gives the hybrid there too, as
 * 0.3 clients that send no A2A-Version need (the official JavaScript SDK 0.3.x among them).
 */
export type CardCompat = '1.0' | '0.3';

/** The well-known path of the card before 0.3 renamed it; only older clients ask for it. */
export const LEGACY_CARD_PATH = '/.well-known/agent.json';

/** A2A-Version values of the versions before 1.0 (`0.3`, `0.3.0`, `0.2.5`). */
const BEFORE_V1 = /^0\.\d+(\.\d+)?$/;
const V1 = /^1\.0(\.\d+)?$/;

/**
 * The shape of card to answer `request` (for the card at `path`, canonical) with. A version
 * asked for (header, else query, §3.6.1) decides; without one, the path and `compat` do.
 *
 * @example
 * cardShapeFor({ headers: {}, query: new URLSearchParams(), … }, '/.well-known/agent-card.json', '1.0'); // 'v1'
 */
export function cardShapeFor(request: Pick<HttpRequest, 'headers' | 'query'>, path: string, compat: CardCompat = '1.0'): 'v1' | 'hybrid' {
  const asked = askedVersion(request);
  if (V1.test(asked)) return 'v1';
  if (BEFORE_V1.test(asked)) return 'hybrid';
  return path === LEGACY_CARD_PATH || compat === '0.3' ? 'hybrid' : 'v1';
}

/** `value` as a CardCompat, or a USAGE-worthy description of what is wrong (for flags and options). */
export function cardCompatProblem(value: unknown): string | undefined {
  return value === '1.0' || value === '0.3' ? undefined : `the card compatibility is 1.0 or 0.3, not ${JSON.stringify(value)}`;
}
