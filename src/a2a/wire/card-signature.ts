// Signed Agent Cards (A2A 1.0.1 §8.4): a JWS over the card's canonical form (card-canonical.ts)
// with a detached, base64url-encoded payload; each entry of `signatures` holds `protected` and
// `signature` (and maybe an unprotected `header`). Signing adds an entry; verifying checks each
// entry against trusted public keys and says, for each, what is wrong. Never throws on a card.
//
//   signing input = BASE64URL(protected header JSON) "." BASE64URL(JCS(card − signatures − unset))

import { sign, verify, type KeyObject } from 'node:crypto';
import { LiteError } from '../../errors.js';
import { canonicalCard } from './card-canonical.js';
import { algOf, CARD_SIGNING_ALGS, keyOfJwk, type CardSigningAlg, type PublicJwk, type SigningKey } from './card-keys.js';
import { readSignatureEntry, type SignatureHeader } from './card-signature-entry.js';

export type { SignatureHeader } from './card-signature-entry.js';

/** One `signatures` entry as A2A 1.0.1 §4.4.7 shapes it. */
export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

/** What became of one entry of `signatures`. */
export interface SignatureCheck {
  /** Its place in `signatures`, from 1. */
  index: number;
  kid?: string;
  alg?: string;
  jku?: string;
  verified: boolean;
  /** What is wrong with it, when it did not verify. */
  problem?: string;
}

/** The verdict on a card's signatures. */
export interface CardVerification {
  /** Whether the card carries a `signatures` list with at least one entry. */
  signed: boolean;
  /** Whether at least one entry verified against a trusted key. */
  verified: boolean;
  /** The key of the first entry that verified. */
  kid?: string;
  alg?: string;
  jku?: string;
  checks: SignatureCheck[];
  /** One sentence saying why the card did not verify. */
  problem?: string;
}

/** Where `serve --sign-key` publishes its public key as a JWK set, and the `jku` it signs with by default. */
export const JWKS_PATH = '/.well-known/jwks.json';

/**
 * The keys trusted for a card: one list for every signature, or a list for each signature's
 * protected header (the key set its `jku` names, say), or why there is none for it.
 */
export type TrustedKeys = readonly PublicJwk[] | ((header: SignatureHeader) => readonly PublicJwk[] | { problem: string });

/** The most entries of `signatures` looked at; a card with more is read up to here. */
export const MAX_SIGNATURES = 16;

const HASH: Readonly<Record<CardSigningAlg, string | null>> = { EdDSA: null, ES256: 'sha256', ES384: 'sha384', RS256: 'sha256' };

/**
 * `card` with one more entry in `signatures`, made with `key` over the card as it is (its other
 * signatures aside). The protected header holds `alg`, `typ: "JOSE"`, `kid` and, when given, `jku`.
 * INVALID_CARD when the card has no canonical form (a lone surrogate in a string, say).
 *
 * @example
 * const signed = signCard(card, signingKeyFrom(pem, 'key.pem'), { jku: 'https://agent.example/.well-known/jwks.json' });
 */
export function signCard(card: Record<string, unknown>, key: SigningKey, options: { jku?: string } = {}): Record<string, unknown> {
  const header: Record<string, string> = { alg: key.alg, typ: 'JOSE', kid: key.kid };
  if (options.jku !== undefined) header.jku = options.jku;
  const protectedPart = Buffer.from(JSON.stringify(header)).toString('base64url');
  let payload: string;
  try {
    payload = canonicalCard(card);
  } catch (error) {
    throw new LiteError('INVALID_CARD', `the card cannot be signed: it has no canonical form (RFC 8785): ${(error as Error).message}`);
  }
  const input = Buffer.from(`${protectedPart}.${Buffer.from(payload).toString('base64url')}`);
  const signature = sign(HASH[key.alg], input, { key: key.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  const earlier = Array.isArray(card.signatures) ? card.signatures : [];
  return { ...card, signatures: [...earlier, { protected: protectedPart, signature }] };
}

/** The protected headers of `card`'s signatures that can be read: what to fetch keys for (`jku`) and by which `kid`. */
export function signatureHeaders(card: unknown): SignatureHeader[] {
  const list = signaturesOf(card);
  if (list === undefined) return [];
  return list.slice(0, MAX_SIGNATURES).flatMap((entry) => {
    const read = readSignatureEntry(entry);
    return 'header' in read ? [read.header] : [];
  });
}

/**
 * Checks every entry of `card.signatures` (up to {@link MAX_SIGNATURES}) against `keys`, the
 * public keys trusted for this card. A key with a `kid` is tried for the entries naming that
 * `kid`; a key without one (a PEM file) for every entry. A key is used only with the algorithm of
 * its type (and of its `alg`, when it has one), so that no entry can choose how its key is read.
 */
export function verifyCard(card: unknown, keys: TrustedKeys): CardVerification {
  const list = signaturesOf(card);
  if (list === undefined || list.length === 0) {
    const why = list === undefined && typeof card === 'object' && card !== null && 'signatures' in card ? 'its "signatures" is not a list' : 'it has no "signatures"';
    return { signed: false, verified: false, checks: [], problem: `the card is not signed: ${why}` };
  }
  let payload: string;
  try {
    payload = Buffer.from(canonicalCard(card as Record<string, unknown>)).toString('base64url');
  } catch (error) {
    return { signed: true, verified: false, checks: [], problem: `the card cannot be put in canonical form (RFC 8785), so no signature on it can verify: ${(error as Error).message}` };
  }
  const usable = (jwks: readonly PublicJwk[]) =>
    jwks.flatMap((jwk) => {
      const key = keyOfJwk(jwk);
      return key === undefined ? [] : [{ jwk, key }];
    });
  const fixed = typeof keys === 'function' ? undefined : usable(keys);
  const lookup = (header: SignatureHeader): TrustedKey[] | { problem: string } => {
    if (fixed !== undefined) return fixed;
    const found = (keys as Exclude<TrustedKeys, readonly PublicJwk[]>)(header);
    return 'problem' in found ? found : usable(found);
  };
  const checks = list.slice(0, MAX_SIGNATURES).map((entry, i) => checkEntry(entry, i + 1, payload, lookup));
  const good = checks.find((check) => check.verified);
  if (good !== undefined) return { signed: true, verified: true, ...pick(good), checks };
  const more = list.length > MAX_SIGNATURES ? ` (only the first ${MAX_SIGNATURES} of ${list.length} were read)` : '';
  const problem = checks.map((check) => (checks.length === 1 ? check.problem : `signature ${check.index}: ${check.problem}`)).join('; ');
  return { signed: true, verified: false, checks, problem: `no signature on the card verifies: ${problem}${more}` };
}

/** Throws CARD_SIGNATURE_INVALID, naming `whose` card and what is wrong, unless `card` verifies against `keys`. */
export function assertCardVerified(card: unknown, keys: TrustedKeys, whose: string): CardVerification {
  const verdict = verifyCard(card, keys);
  if (!verdict.verified) throw new LiteError('CARD_SIGNATURE_INVALID', `${whose}: ${verdict.problem ?? 'the card did not verify'}`);
  return verdict;
}

/** The public key set to publish for `keys`: `{"keys": [...]}` (RFC 7517 §5). */
export function jwkSetOf(keys: readonly SigningKey[]): { keys: PublicJwk[] } {
  return { keys: keys.map((key) => key.publicJwk) };
}

interface TrustedKey {
  jwk: PublicJwk;
  key: KeyObject;
}

function checkEntry(entry: unknown, index: number, payload: string, lookup: (header: SignatureHeader) => TrustedKey[] | { problem: string }): SignatureCheck {
  const read = readSignatureEntry(entry);
  if (!('header' in read)) return { index, verified: false, ...read.seen, problem: read.problem };
  const { header, protectedPart, signature } = read;
  const named = { kid: header.kid, alg: header.alg, ...(header.jku === undefined ? {} : { jku: header.jku }) };
  if (!(CARD_SIGNING_ALGS as readonly string[]).includes(header.alg)) {
    return { index, verified: false, ...named, problem: `its algorithm "${header.alg}" is not allowed (allowed: ${CARD_SIGNING_ALGS.join(', ')})` };
  }
  const alg = header.alg as CardSigningAlg;
  const trusted = lookup(header);
  if ('problem' in trusted) return { index, verified: false, ...named, problem: trusted.problem };
  const byKid = trusted.filter(({ jwk }) => jwk.kid === undefined || jwk.kid === header.kid);
  if (byKid.length === 0) return { index, verified: false, ...named, problem: `its key id "${header.kid}" is not among the trusted keys` };
  const fitting = byKid.filter(({ jwk, key }) => fits(jwk, key, alg));
  if (fitting.length === 0) return { index, verified: false, ...named, problem: `no trusted key that may check key id "${header.kid}" signs with ${alg}` };
  const input = Buffer.from(`${protectedPart}.${payload}`);
  for (const { key } of fitting) {
    if (verifiedBy(alg, input, key, signature)) return { index, verified: true, ...named };
  }
  return { index, verified: false, ...named, problem: `it does not match the card: the card was changed after it was signed, or it was signed with another key than "${header.kid}"` };
}

/** Whether `key` may check an `alg` signature: its type signs with `alg`, and its JWK does not say otherwise. */
function fits(jwk: PublicJwk, key: KeyObject, alg: CardSigningAlg): boolean {
  if (algOf(key) !== alg) return false;
  if (jwk.alg !== undefined && jwk.alg !== alg) return false;
  if (jwk.use !== undefined && jwk.use !== 'sig') return false;
  return jwk.key_ops === undefined || jwk.key_ops.includes('verify');
}

function verifiedBy(alg: CardSigningAlg, input: Buffer, key: KeyObject, signature: Buffer): boolean {
  try {
    return verify(HASH[alg], input, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    // A signature of the wrong length for its curve, say: no match.
    return false;
  }
}

function signaturesOf(card: unknown): unknown[] | undefined {
  if (typeof card !== 'object' || card === null) return undefined;
  const list = (card as { signatures?: unknown }).signatures;
  return Array.isArray(list) ? list : undefined;
}

function pick(check: SignatureCheck): Pick<CardVerification, 'kid' | 'alg' | 'jku'> {
  return { ...(check.kid === undefined ? {} : { kid: check.kid }), ...(check.alg === undefined ? {} : { alg: check.alg }), ...(check.jku === undefined ? {} : { jku: check.jku }) };
}
