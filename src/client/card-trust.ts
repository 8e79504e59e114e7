// Whether a discovered Agent Card is signed, by which key, and whether the signature verifies:
// against keys the user trusts (`--trust-key` files), else against the key set the signature's
// `jku` names, fetched only from the card's own origin, through the address-checked request.

import { isLiteError, LiteError } from '../errors.js';
import { MAX_KEY_TEXT, readJwkSet, type PublicJwk } from '../a2a/wire/card-keys.js';
import { signatureHeaders, verifyCard, type CardVerification, type SignatureHeader } from '../a2a/wire/card-signature.js';
import { readBody } from '../net/body.js';
import { outboundFetch, type Fetch } from '../net/outbound-fetch.js';

/** Where the keys a card was checked against came from. */
export type KeySource = 'trusted' | 'origin';

export interface CardTrust extends CardVerification {
  /** `trusted`: the user's key files; `origin`: the key set the card's origin publishes (`jku`). */
  keys: KeySource;
}

export interface CardTrustOptions {
  /** Keys the user trusts: when given, signatures are checked against these alone and no key set is fetched. */
  trustKeys?: readonly PublicJwk[];
  /** Sends the key set requests instead of the address-checked outbound request (tests). */
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** The most key sets fetched for one card. */
const MAX_KEY_SETS = 4;

/**
 * The verdict on `card`'s signatures. A `jku` is fetched only when it is on the origin `cardUrl`
 * is on (scheme, host and port), without following redirects: a card must not send its reader to
 * fetch keys from anywhere else, and a key set the origin serves binds the card to whoever holds
 * that origin's key, no more. Never throws for what the card or the key set holds.
 */
export async function checkCardSignature(card: unknown, cardUrl: string, options: CardTrustOptions = {}): Promise<CardTrust> {
  if (options.trustKeys !== undefined) return { ...verifyCard(card, options.trustKeys), keys: 'trusted' };
  if (!URL.canParse(cardUrl)) throw new LiteError('USAGE', 'checkCardSignature: cardUrl is the absolute URL the card was fetched from');
  const origin = new URL(cardUrl).origin;
  const fetcher: Fetch = options.fetch ?? outboundFetch({ allowPrivateHosts: [new URL(cardUrl).hostname] });
  const sets = new Map<string, readonly PublicJwk[] | { problem: string }>();
  for (const jku of new Set(signatureHeaders(card).flatMap((header) => (header.jku !== undefined && sameOrigin(header.jku, origin) ? [header.jku] : [])))) {
    if (sets.size >= MAX_KEY_SETS) break;
    sets.set(jku, await fetchKeySet(jku, fetcher, options.timeoutMs ?? 10_000));
  }
  const lookup = (header: SignatureHeader): readonly PublicJwk[] | { problem: string } => {
    if (header.jku === undefined) return { problem: 'it names no key set ("jku"), and no trusted key was given (--trust-key FILE)' };
    if (!sameOrigin(header.jku, origin)) return { problem: `its key set ${JSON.stringify(header.jku.slice(0, 200))} is not on the card's origin (${origin}), so it is not fetched; give a trusted key (--trust-key FILE) to check it` };
    return sets.get(header.jku) ?? { problem: `more than ${MAX_KEY_SETS} key sets are named; this one was not fetched` };
  };
  return { ...verifyCard(card, lookup), keys: 'origin' };
}

function sameOrigin(url: string, origin: string): boolean {
  return URL.canParse(url) && new URL(url).origin === origin;
}

async function fetchKeySet(url: string, fetcher: Fetch, timeoutMs: number): Promise<readonly PublicJwk[] | { problem: string }> {
  const failed = (why: string) => ({ problem: `its key set at ${url} ${why}` });
  let response: Response;
  try {
    response = await fetcher(url, { headers: { accept: 'application/jwk-set+json, application/json' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  } catch (error) {
    if (isLiteError(error)) return failed(`was not fetched: ${error.message}`);
    const cause = (error as { cause?: { code?: string } }).cause;
    return failed(`could not be fetched (${cause?.code ?? (error as Error).name})`);
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    return failed(`answered HTTP ${response.status}${response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : ''}`);
  }
  let text: string | undefined;
  try {
    text = await readBody(response.body, MAX_KEY_TEXT);
  } catch {
    return failed('broke off');
  }
  if (text === undefined) return failed(`is over ${MAX_KEY_TEXT} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return failed('is not JSON');
  }
  try {
    return readJwkSet(json, `the key set at ${url}`);
  } catch (error) {
    return { problem: isLiteError(error) ? error.message : 'its key set could not be read' };
  }
}
