// The server's side of signed Agent Cards: every card it serves (each shape, at the address of
// the moment) signed with its key, and the public key published as a JWK set at JWKS_PATH.

import type { SigningKey } from '../wire/card-keys.js';
import { jwkSetOf, JWKS_PATH, signCard } from '../wire/card-signature.js';
import type { HttpRequest, HttpResponse } from '../../net/http-types.js';

/** How the served card is signed. */
export interface CardSigning {
  key: SigningKey;
  /** The `jku` put in each signature (default: JWKS_PATH at the address the card is served at). */
  jku?: string;
}

/** Cards signed lately, by their unsigned JSON: few shapes and addresses are ever served. */
const REMEMBERED = 8;

/**
 * A function that signs a card about to be served. It remembers what it signed, so that a card
 * served again carries the same signature (ES256 and ES384 signatures differ each time) and its
 * ETag stays the same.
 */
export function cardSigner(signing: CardSigning): (card: Record<string, unknown>, baseUrl: string) => Record<string, unknown> {
  const signed = new Map<string, Record<string, unknown>>();
  return (card, baseUrl) => {
    const jku = signing.jku ?? `${baseUrl}${JWKS_PATH}`;
    const key = `${jku}\n${JSON.stringify(card)}`;
    const known = signed.get(key);
    if (known !== undefined) return known;
    const fresh = signCard(card, signing.key, { jku });
    if (signed.size >= REMEMBERED) signed.delete(signed.keys().next().value as string);
    signed.set(key, fresh);
    return fresh;
  };
}

/** The answer to `GET JWKS_PATH`: the public key set, public and cacheable like the card. */
export function keySetResponse(request: HttpRequest, signing: CardSigning): HttpResponse {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }, body: 'the key set is read with GET' };
  }
  const body = JSON.stringify(jwkSetOf([signing.key]));
  return { status: 200, headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'public, max-age=300' }, body: request.method === 'HEAD' ? '' : body };
}
