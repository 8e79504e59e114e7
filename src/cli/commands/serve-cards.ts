// What `serve` publishes besides its card: the extended card for authenticated clients
// (--extended-card FILE) and the card clients that say no version get (--card-compat).

import { authEnabled, type AuthOptions } from '../../a2a/server/auth.js';
import { cardCompatProblem, type CardCompat } from '../../a2a/server/card-shape.js';
import { toAgentCardV1 } from '../../a2a/wire/agent-card.js';
import { readExtendedCard, withExtendedCard, type ExtendedCard } from '../../a2a/wire/extended-card.js';
import type { LiteCard } from '../../card/types.js';
import { LiteError } from '../../errors.js';
import type { Context } from '../context.js';
import { parseJson, readInput } from '../input.js';

export const CARD_OPTIONS = {
  'extended-card': { type: 'string' },
  'card-compat': { type: 'string' },
} as const;

export const CARD_HELP = `  --extended-card FILE    give authenticated clients an extended card (A2A GetExtendedAgentCard;
                          0.3 agent/getAuthenticatedExtendedCard; REST GET /extendedAgentCard):
                          FILE is JSON in A2A 1.0 field names, laid over the public card: its
                          name, description, version, provider, documentationUrl, iconUrl and
                          default modes replace the public ones; its skills are added (one with
                          a public skill's id adds to that skill). The card declares it. Needs
                          --auth-bearer-env or --auth-api-key-env, or --hub with
                          --hub-token-env (whose callers the hub authenticates); others get 401
  --card-compat 1.0|0.3   the card for clients that say no A2A-Version: 1.0 (default) gives the
                          card a strict 1.0 schema accepts; 0.3 gives it with the 0.3 fields too,
                          for 0.3 clients that send no version and read only
                          /.well-known/agent-card.json (the JavaScript SDK 0.3). A client that
                          says A2A-Version 0.3, or reads /.well-known/agent.json, gets that card
                          either way (docs/conformance.md)`;

export interface CardFlags {
  extendedCard?: ExtendedCard;
  cardCompat?: CardCompat;
}

/**
 * The card flags, checked. An extended card needs someone to authenticate its callers: serve's
 * own credentials, or a hub's tokens (an agent that presents one dials a hub that demands one of
 * every caller). Without either, no one could be given it: the flag is refused rather than left
 * to do nothing.
 */
export async function cardFlags(values: { 'extended-card'?: string; 'card-compat'?: string; hub?: string; 'hub-token-env'?: string }, auth: AuthOptions, card: LiteCard, context: Context): Promise<CardFlags> {
  const flags: CardFlags = {};
  const compat = values['card-compat'];
  if (compat !== undefined) {
    const problem = cardCompatProblem(compat);
    if (problem !== undefined) throw new LiteError('USAGE', `serve: --card-compat: ${problem}`);
    flags.cardCompat = compat as CardCompat;
  }
  const file = values['extended-card'];
  if (file !== undefined) {
    const hubAuthenticates = values.hub !== undefined && values['hub-token-env'] !== undefined;
    if (!authEnabled(auth) && !hubAuthenticates) {
      throw new LiteError('USAGE', 'serve: --extended-card needs --auth-bearer-env or --auth-api-key-env (or --hub with --hub-token-env): the extended card is for authenticated clients only, and without auth there are none');
    }
    flags.extendedCard = readExtendedCard(parseJson(await readInput(context, file, 'serve --extended-card'), file), file);
    // A new skill without a name is found now, before the server opens its store and its port.
    withExtendedCard(toAgentCardV1(card, { baseUrl: '', streaming: true, pushNotifications: false }), flags.extendedCard);
  }
  return flags;
}
