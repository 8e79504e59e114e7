// The extended Agent Card on the server's side (A2A 1.0 §3.1.11, §13.3): who may have it, and
// the card GetExtendedAgentCard (0.3: agent/getAuthenticatedExtendedCard) answers: the public
// card in the shape of the caller's version with the operator's additions laid over it.

import { LiteError } from '../../errors.js';
import { readExtendedCard, withExtendedCard, type ExtendedCard } from '../wire/extended-card.js';
import type { Json } from '../wire/fields.js';
import { statusError, type HttpResponse } from '../../net/http-types.js';
import { challengeFor, type AuthOptions } from './auth.js';
import type { MethodContext } from './methods.js';

/**
 * The extended card a server gives: the same additions to every authenticated caller, or a
 * function of the caller's principal (§13.3: the card MAY differ by who asks), which returns
 * undefined for a caller it has none for: that caller is answered
 * ExtendedAgentCardNotConfigured (-32007).
 */
export type ExtendedCardSource = ExtendedCard | ((principal: string) => ExtendedCard | undefined | Promise<ExtendedCard | undefined>);

/** The method names of the extended card: 1.0 (JSON-RPC and REST) and 0.3. */
export const EXTENDED_CARD_METHODS: ReadonlySet<string> = new Set(['GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard']);

/**
 * The principal the hub's relay vouches for when the hub has no tokens (`hub:` and the hub's
 * `anonymous`): a caller nobody authenticated, who may reach the tasks of an open hub's callers
 * but not the extended card.
 */
export const RELAYED_ANONYMOUS = 'hub:anonymous';

/** True for a caller a credential (ours, or a hub's with tokens) has authenticated. */
export function isAuthenticated(principal: string | undefined): principal is string {
  return principal !== undefined && principal !== RELAYED_ANONYMOUS;
}

/** The extended card for `principal`, laid over `publicCard` (the shape of the version asked). */
export type ExtendedCards = (principal: string, publicCard: Json) => Promise<Json>;

/**
 * The extended cards of `source`. Fixed additions are checked now, against `publicCard`, so that
 * a wrong file stops the server at its start (INVALID_CARD, CARD_HAS_CREDENTIAL); a function's
 * answers are checked as they come, a wrong one being the server's own failure (INTERNAL).
 */
export function extendedCards(source: ExtendedCardSource, publicCard: Json): ExtendedCards {
  if (typeof source !== 'function') {
    const fixed = readExtendedCard(source);
    withExtendedCard(publicCard, fixed);
    return async (_principal, card) => withExtendedCard(card, fixed);
  }
  return async (principal, card) => {
    const given = await source(principal);
    if (given === undefined) throw new LiteError('EXTENDED_CARD_NOT_CONFIGURED', 'this agent has no extended card for this client');
    try {
      return withExtendedCard(card, readExtendedCard(given));
    } catch (error) {
      throw new LiteError('INTERNAL', 'the extended card could not be made', undefined, { cause: error });
    }
  };
}

/**
 * What GetExtendedAgentCard answers in `version`: the card, or UnsupportedOperation when the
 * public card offers none (§3.3.4).
 */
export async function extendedCardOf(context: MethodContext | undefined, version: '1.0' | '0.3'): Promise<Json> {
  if (context?.extendedCard === undefined) throw new LiteError('UNSUPPORTED_OPERATION', 'this agent has no extended card; its card is public');
  return context.extendedCard(version);
}

/** The answer to a caller of the extended card whom nobody authenticated: 401, as auth.ts answers. */
export function unauthenticated(auth: AuthOptions): HttpResponse {
  return statusError(401, 'UNAUTHENTICATED', 'the extended card is given only to authenticated clients', { 'www-authenticate': challengeFor(auth) });
}

/** The extended card is the caller's own: no shared cache may keep it, nor give it to another. */
export function privateAnswer(response: HttpResponse): HttpResponse {
  return { ...response, headers: { ...response.headers, 'cache-control': 'private, no-store' } } as HttpResponse;
}
