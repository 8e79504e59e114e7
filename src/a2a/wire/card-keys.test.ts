import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { publicKeysFrom, readJwkSet, signingKeyFrom, thumbprint } from './card-keys.js';

const ed = generateKeyPairSync('ed25519');
const edPem = ed.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const edPublicPem = ed.publicKey.export({ type: 'spki', format: 'pem' }) as string;

describe('signing keys', () => {
  it('reads PKCS#8 and SEC1 PEM and private JWKs, naming the key by its thumbprint unless told', () => {
    const key = signingKeyFrom(edPem, 'k.pem');
    expect(key.alg).toBe('EdDSA');
    expect(key.kid).toBe(thumbprint(key.publicJwk));
    expect(key.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: key.kid, alg: 'EdDSA', use: 'sig' });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(signingKeyFrom(ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string, 'ec.pem', 'mine')).toMatchObject({ alg: 'ES256', kid: 'mine' });
    expect(signingKeyFrom(JSON.stringify(ec.privateKey.export({ format: 'jwk' })), 'ec.jwk').alg).toBe('ES256');
  });

  it.each<[string, string, string]>([
    ['a public key', edPublicPem, 'k.pem does not hold a private key'],
    ['a public JWK', JSON.stringify(ed.publicKey.export({ format: 'jwk' })), 'k.pem does not hold a private key'],
    ['text', 'hello', 'k.pem does not hold a private key'],
    ['an RSA key of 1024 bits', generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'k.pem holds an RSA key of 1024 bits'],
    ['a secp256k1 key', generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'k.pem holds an EC key on secp256k1'],
    ['an encrypted key', ed.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'p' }) as string, 'k.pem does not hold a private key'],
    ['an HMAC secret as JWK', JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' }), 'k.pem does not hold a private key'],
  ])('refuses %s with INVALID_KEY, never quoting it', (_name, text, message) => {
    let thrown: unknown;
    try {
      signingKeyFrom(text, 'k.pem');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'INVALID_KEY', message: expect.stringContaining(message) });
    expect((thrown as Error).message).not.toContain('MC4CAQ');
  });
});

describe('public keys', () => {
  it('reads a PEM public key, a private one (its public half), a JWK and a JWK set', () => {
    const [fromPem] = publicKeysFrom(edPublicPem, 'p.pem');
    expect(fromPem).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.any(String) });
    expect(publicKeysFrom(edPem, 'k.pem')).toEqual([fromPem]);
    const { d: _d, ...jwk } = ed.privateKey.export({ format: 'jwk' });
    expect(publicKeysFrom(JSON.stringify({ ...jwk, kid: 'a' }), 'j.json')).toEqual([{ ...jwk, kid: 'a' }]);
    expect(publicKeysFrom(JSON.stringify({ keys: [{ kty: 'oct', k: 'AA' }, { ...jwk, kid: 'b', d: 'never kept' }] }), 'set.json')).toEqual([{ ...jwk, kid: 'b' }]);
  });

  it('gives the RFC 7638 thumbprint of its example key', () => {
    const n =
      '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw';
    expect(thumbprint({ kty: 'RSA', n, e: 'AQAB' })).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });

  it.each<[string, unknown, string]>([
    ['no keys list', { key: [] }, 'set.json is no JWK set: it has no "keys" list'],
    ['keys that is not a list', { keys: {} }, 'set.json is no JWK set: it has no "keys" list'],
    ['no usable key', { keys: [{ kty: 'oct', k: 'AA' }, 5, null] }, 'set.json holds no key that signs with EdDSA, ES256, ES384, RS256'],
    ['too many keys', { keys: Array.from({ length: 33 }, () => ({})) }, 'set.json holds 33 keys; at most 32 are read'],
  ])('refuses a set with %s', (_name, set, message) => {
    expect(() => readJwkSet(set, 'set.json')).toThrow(expect.objectContaining({ code: 'INVALID_KEY', message }));
  });

  it('never throws anything but INVALID_KEY on any JSON or text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue().map((value) => JSON.stringify(value)), fc.jsonValue().map((keys) => JSON.stringify({ keys }))), (text) => {
        try {
          publicKeysFrom(text, 'x');
        } catch (error) {
          expect(error).toMatchObject({ code: 'INVALID_KEY' });
        }
      }),
    );
  });

  it('refuses a key text over 64 KiB', () => {
    expect(() => publicKeysFrom(' '.repeat(70_000), 'big.pem')).toThrow(expect.objectContaining({ code: 'INVALID_KEY', message: 'big.pem is over 65536 bytes, too long for a key' }));
  });
});
