// The keys of signed Agent Cards: a signing key read from a PEM or JWK text, public keys read
// from PEM, a JWK or a JWK set, the algorithm each key signs with, and RFC 7638 thumbprints
// (the default `kid`). Parsing only: the CLI reads the files.

import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { LiteError } from '../../errors.js';

/** The algorithms a card may be signed with; `none`, HMAC and everything else are refused. */
export const CARD_SIGNING_ALGS = ['EdDSA', 'ES256', 'ES384', 'RS256'] as const;
export type CardSigningAlg = (typeof CARD_SIGNING_ALGS)[number];

/** A public key in JWK form, as a key set holds it. */
export interface PublicJwk {
  kty: string;
  kid?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
}

/** A key to sign cards with: the private key, its algorithm and its public half (with `kid`). */
export interface SigningKey {
  privateKey: KeyObject;
  alg: CardSigningAlg;
  kid: string;
  publicJwk: PublicJwk;
}

/** The most keys a key set may hold, and the longest key text read. */
export const MAX_KEYS = 32;
export const MAX_KEY_TEXT = 64 * 1024;

const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e'] as const;

/** The algorithm `key` signs with, or undefined for a key no card algorithm uses. */
export function algOf(key: KeyObject): CardSigningAlg | undefined {
  const details = key.asymmetricKeyDetails;
  switch (key.asymmetricKeyType) {
    case 'ed25519':
      return 'EdDSA';
    case 'ec':
      return details?.namedCurve === 'prime256v1' ? 'ES256' : details?.namedCurve === 'secp384r1' ? 'ES384' : undefined;
    case 'rsa':
      return (details?.modulusLength ?? 0) >= 2048 ? 'RS256' : undefined;
    default:
      return undefined;
  }
}

/** The RFC 7638 thumbprint of a public key: SHA-256 over its required members, base64url. */
export function thumbprint(jwk: PublicJwk): string {
  const required = jwk.kty === 'OKP' ? ['crv', 'kty', 'x'] : jwk.kty === 'EC' ? ['crv', 'kty', 'x', 'y'] : ['e', 'kty', 'n'];
  const members = Object.fromEntries(required.map((name) => [name, (jwk as unknown as Record<string, unknown>)[name]]));
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

/**
 * The signing key in `text` (PEM: PKCS#8 or SEC1; or a private JWK), named `kid` (default: its
 * thumbprint). INVALID_KEY, naming `source`, for anything else or a key no card algorithm uses.
 */
export function signingKeyFrom(text: string, source: string, kid?: string): SigningKey {
  const privateKey = keyObject(text, source, 'private');
  const alg = algOf(privateKey);
  if (alg === undefined) throw unusable(source, privateKey);
  const bare = publicJwkOf(createPublicKey(privateKey));
  const id = kid ?? thumbprint(bare);
  return { privateKey, alg, kid: id, publicJwk: { ...bare, kid: id, alg, use: 'sig' } };
}

/**
 * The public keys in `text`: a PEM public key (or a private one, whose public half is taken), a
 * JWK, or a JWK set `{"keys": […]}`. A key with a `kid` is used only for signatures naming that
 * `kid`; one without (every PEM key) for any. INVALID_KEY, naming `source`, when none is usable.
 */
export function publicKeysFrom(text: string, source: string): PublicJwk[] {
  if (text.length > MAX_KEY_TEXT) throw new LiteError('INVALID_KEY', `${source} is over ${MAX_KEY_TEXT} bytes, too long for a key`);
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      throw new LiteError('INVALID_KEY', `${source} is neither PEM nor valid JSON`);
    }
    if (typeof json === 'object' && json !== null && 'keys' in json) return readJwkSet(json, source);
    return [publicJwkFrom(json, source)];
  }
  const key = keyObject(text, source, 'public');
  if (algOf(key) === undefined) throw unusable(source, key);
  // A PEM key has no key id: it is tried for a signature whatever `kid` that names.
  return [publicJwkOf(key)];
}

/**
 * The usable keys of a JWK set (RFC 7517 §5). Keys of a type no card algorithm uses are skipped,
 * as the RFC asks; INVALID_KEY when `json` is no set or nothing in it is usable.
 */
export function readJwkSet(json: unknown, source: string): PublicJwk[] {
  const keys = (json as { keys?: unknown } | null)?.keys;
  if (typeof json !== 'object' || json === null || !Array.isArray(keys)) throw new LiteError('INVALID_KEY', `${source} is no JWK set: it has no "keys" list`);
  if (keys.length > MAX_KEYS) throw new LiteError('INVALID_KEY', `${source} holds ${keys.length} keys; at most ${MAX_KEYS} are read`);
  const usable: PublicJwk[] = [];
  for (const key of keys) {
    try {
      usable.push(publicJwkFrom(key, source));
    } catch {
      // RFC 7517 §5: a key the reader cannot use is ignored, not an error of the set.
    }
  }
  if (usable.length === 0) throw new LiteError('INVALID_KEY', `${source} holds no key that signs with ${CARD_SIGNING_ALGS.join(', ')}`);
  return usable;
}

/** The key object of a public JWK, or undefined when it is no usable public key. */
export function keyOfJwk(jwk: PublicJwk): KeyObject | undefined {
  try {
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    return algOf(key) === undefined ? undefined : key;
  } catch {
    return undefined;
  }
}

/** A JWK checked and stripped to its public members (with `kid`, `alg`, `use`, `key_ops` kept when well-formed). */
function publicJwkFrom(value: unknown, source: string): PublicJwk {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LiteError('INVALID_KEY', `${source}: a JWK is a JSON object`);
  const record = value as Record<string, unknown>;
  const jwk: Record<string, unknown> = {};
  for (const name of PUBLIC_MEMBERS) if (typeof record[name] === 'string') jwk[name] = record[name];
  for (const name of ['kid', 'alg', 'use'] as const) {
    if (record[name] === undefined) continue;
    if (typeof record[name] !== 'string') throw new LiteError('INVALID_KEY', `${source}: the JWK's "${name}" is not a string`);
    jwk[name] = record[name];
  }
  if (record.key_ops !== undefined) {
    if (!Array.isArray(record.key_ops) || !record.key_ops.every((op) => typeof op === 'string')) throw new LiteError('INVALID_KEY', `${source}: the JWK's "key_ops" is not a list of strings`);
    jwk.key_ops = record.key_ops;
  }
  const key = keyOfJwk(jwk as unknown as PublicJwk);
  if (key === undefined) throw new LiteError('INVALID_KEY', `${source}: the JWK is not an Ed25519, P-256, P-384 or RSA (2048 bits or more) public key`);
  return jwk as unknown as PublicJwk;
}

function publicJwkOf(key: KeyObject): PublicJwk {
  const jwk = key.export({ format: 'jwk' }) as Record<string, unknown>;
  return Object.fromEntries(PUBLIC_MEMBERS.filter((name) => typeof jwk[name] === 'string').map((name) => [name, jwk[name]])) as unknown as PublicJwk;
}

function keyObject(text: string, source: string, kind: 'private' | 'public'): KeyObject {
  if (text.length > MAX_KEY_TEXT) throw new LiteError('INVALID_KEY', `${source} is over ${MAX_KEY_TEXT} bytes, too long for a key`);
  const trimmed = text.trimStart();
  try {
    if (trimmed.startsWith('{')) {
      const jwk = JSON.parse(trimmed) as JsonWebKey;
      if (kind === 'private' && typeof jwk.d !== 'string') throw new Error('no private part');
      return kind === 'private' ? createPrivateKey({ key: jwk, format: 'jwk' }) : createPublicKey({ key: jwk, format: 'jwk' });
    }
    if (!trimmed.startsWith('-----BEGIN ')) throw new Error('not PEM');
    if (kind === 'private' && !/-----BEGIN (?:EC |RSA )?PRIVATE KEY-----/.test(trimmed)) throw new Error('no private key');
    return kind === 'private' ? createPrivateKey({ key: trimmed, format: 'pem' }) : createPublicKey({ key: trimmed, format: 'pem' });
  } catch {
    // Node's words may quote the key; ours name only the file.
    const what = kind === 'private' ? 'a private key in PEM (PKCS#8 or SEC1) or a private JWK' : 'a public key in PEM, a JWK or a JWK set';
    throw new LiteError('INVALID_KEY', `${source} does not hold ${what}`);
  }
}

function unusable(source: string, key: KeyObject): LiteError {
  const details = key.asymmetricKeyDetails;
  const what = key.asymmetricKeyType === 'ec' ? `an EC key on ${details?.namedCurve ?? 'an unknown curve'}` : key.asymmetricKeyType === 'rsa' ? `an RSA key of ${details?.modulusLength ?? 0} bits` : `a ${key.asymmetricKeyType ?? 'secret'} key`;
  return new LiteError('INVALID_KEY', `${source} holds ${what}; cards are signed with Ed25519 (EdDSA), P-256 (ES256), P-384 (ES384) or RSA of 2048 bits or more (RS256)`);
}
