import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jiajiaCard } from '../../card/examples.js';
import { toAgentCardV1 } from './agent-card.js';
import { publicKeysFrom, signingKeyFrom, type PublicJwk, type SigningKey } from './card-keys.js';
import { assertCardVerified, signatureHeaders, signCard, verifyCard } from './card-signature.js';

type Json = Record<string, unknown>;

function makeKey(type: 'ed25519' | 'p256' | 'p384' | 'rsa', kid?: string): { key: SigningKey; trusted: PublicJwk[] } {
  const pair =
    type === 'ed25519' ? generateKeyPairSync('ed25519') : type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: type === 'p256' ? 'P-256' : 'P-384' });
  const key = signingKeyFrom(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'key.pem', kid);
  return { key, trusted: [key.publicJwk] };
}

const ed = makeKey('ed25519', 'ed-1');
const card = (): Json => toAgentCardV1(jiajiaCard(), { baseUrl: 'https://agent.example', streaming: true, pushNotifications: false });
const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
/** A card whose one signature is `entry`. */
const withEntry = (entry: unknown): Json => ({ ...card(), signatures: [entry] });
const validEntry = (): Json => (signCard(card(), ed.key).signatures as Json[])[0] as Json;

/** JSON values a card may hold, strings without lone surrogates (JCS has no form for those). */
const jsonValue = fc.jsonValue({ maxDepth: 4 });
const anyCard = fc
  .record({ name: fc.string({ minLength: 1 }), description: fc.string(), version: fc.string(), skills: fc.array(fc.dictionary(fc.string(), jsonValue, { maxKeys: 4 }), { maxLength: 3 }) })
  .chain((base) => fc.dictionary(fc.string(), jsonValue, { maxKeys: 6 }).map((extra) => ({ ...extra, ...base }) as Json));

describe('signCard and verifyCard', () => {
  it.each(['ed25519', 'p256', 'p384', 'rsa'] as const)('sign then verify passes for a %s key, naming the key', (type) => {
    const { key, trusted } = makeKey(type);
    const verdict = verifyCard(signCard(card(), key, { jku: 'https://agent.example/.well-known/jwks.json' }), trusted);
    expect(verdict).toMatchObject({ signed: true, verified: true, kid: key.kid, alg: key.alg, jku: 'https://agent.example/.well-known/jwks.json' });
  });

  it('passes for any card signed, then read back from its JSON', () => {
    fc.assert(
      fc.property(anyCard, (raw) => {
        const signed = JSON.parse(JSON.stringify(signCard(raw, ed.key))) as Json;
        expect(verifyCard(signed, ed.trusted)).toMatchObject({ verified: true, kid: 'ed-1', alg: 'EdDSA' });
      }),
    );
  });

  it('fails for any change of any field that the signature covers', () => {
    // Cards with no unset value anywhere, made without the canonical form under test, so that
    // every member is one a reader sees and a change to it must show.
    const key = fc.string({ minLength: 1 }).filter((name) => name !== 'required' && name !== 'pkceRequired' && name !== 'signatures' && name !== '__proto__');
    const { node } = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.string({ minLength: 1 }), fc.integer(), fc.boolean(), fc.array(tie('node'), { minLength: 1, maxLength: 4 }), fc.dictionary(key, tie('node'), { minKeys: 1, maxKeys: 4 })),
    }));
    const clean = fc.record({ name: fc.string({ minLength: 1 }), version: fc.string({ minLength: 1 }) }).chain((base) => fc.dictionary(key, node, { maxKeys: 6 }).map((extra) => ({ ...extra, ...base }) as Json));
    fc.assert(
      fc.property(clean, fc.nat(), fc.nat(), (base, pick, how) => {
        const signed = signCard(base, ed.key);
        const changed = mutate(structuredClone(base), pick, how);
        expect(verifyCard({ ...changed, signatures: signed.signatures }, ed.trusted)).toMatchObject({ signed: true, verified: false, problem: expect.stringContaining('changed after it was signed') });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a signature good when more signatures are added, and when unset values come and go', () => {
    const other = makeKey('p256', 'ec-1');
    const twice = signCard(signCard(card(), ed.key), other.key);
    expect(verifyCard(twice, [...ed.trusted, ...other.trusted]).checks.map((check) => check.verified)).toEqual([true, true]);
    const padded = { ...twice, documentationUrl: '', iconUrl: null, capabilities: { ...(twice.capabilities as Json), extensions: [...((twice.capabilities as Json).extensions as Json[]), {}] } };
    expect(verifyCard(padded, other.trusted)).toMatchObject({ verified: true, kid: 'ec-1' });
  });

  it('covers fields the 1.0 schema does not know, such as the 0.3 url', () => {
    const signed = signCard({ ...card(), url: 'https://agent.example/jsonrpc' }, ed.key);
    expect(verifyCard({ ...signed, url: 'https://attacker.example/jsonrpc' }, ed.trusted).verified).toBe(false);
  });

  it('says a card without signatures is not signed', () => {
    expect(verifyCard(card(), ed.trusted)).toEqual({ signed: false, verified: false, checks: [], problem: 'the card is not signed: it has no "signatures"' });
    expect(verifyCard({ ...card(), signatures: [] }, ed.trusted)).toMatchObject({ signed: false, problem: 'the card is not signed: it has no "signatures"' });
    expect(verifyCard({ ...card(), signatures: 'x' }, ed.trusted)).toMatchObject({ signed: false, problem: 'the card is not signed: its "signatures" is not a list' });
    expect(() => assertCardVerified(card(), ed.trusted, 'agent a')).toThrow(expect.objectContaining({ code: 'CARD_SIGNATURE_INVALID', message: 'agent a: the card is not signed: it has no "signatures"' }));
  });

  const header = (fields: Json): string => b64({ alg: 'EdDSA', typ: 'JOSE', kid: 'ed-1', ...fields });
  const good = validEntry();
  it.each<[string, unknown, string]>([
    ['not an object', 'eyJ', 'it is not a JSON object'],
    ['no protected', { signature: 'AAAA' }, 'its "protected" is missing or not a string'],
    ['a number as protected', { protected: 7, signature: 'AAAA' }, 'its "protected" is missing or not a string'],
    ['no signature', { protected: good.protected }, 'its "signature" is missing or not a string'],
    ['padded base64', { protected: `${good.protected as string}=`, signature: good.signature }, 'its "protected" is not base64url'],
    ['standard base64', { protected: '+/+/', signature: good.signature }, 'its "protected" is not base64url'],
    ['a base64url signature with + in it', { protected: good.protected, signature: 'ab+c' }, 'its "signature" is not base64url'],
    ['protected that is not JSON', { protected: b64('{alg'), signature: good.signature }, 'its "protected" does not decode to JSON text'],
    ['protected that is not UTF-8', { protected: Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url'), signature: good.signature }, 'does not decode to JSON text'],
    ['protected that is a list', { protected: b64([1]), signature: good.signature }, 'its protected header is not a JSON object'],
    ['alg none', { protected: header({ alg: 'none' }), signature: good.signature }, 'its algorithm is "none"'],
    ['alg HS256', { protected: header({ alg: 'HS256' }), signature: good.signature }, 'its algorithm "HS256" is not allowed (allowed: EdDSA, ES256, ES384, RS256)'],
    ['no alg', { protected: b64({ kid: 'ed-1' }), signature: good.signature }, 'its protected header has no "alg"'],
    ['no kid', { protected: b64({ alg: 'EdDSA' }), signature: good.signature }, 'its protected header has no "kid"'],
    ['an unknown kid', { protected: header({ kid: 'who' }), signature: good.signature }, 'its key id "who" is not among the trusted keys'],
    ['an EdDSA key used as ES256', { protected: header({ alg: 'ES256' }), signature: good.signature }, 'no trusted key that may check key id "ed-1" signs with ES256'],
    ['crit', { protected: header({ crit: ['exp'], exp: 1 }), signature: good.signature }, 'it marks header parameters critical'],
    ['an unencoded payload', { protected: header({ b64: false }), signature: good.signature }, '"b64": false'],
    ['jku that is not a string', { protected: header({ jku: 5 }), signature: good.signature }, 'its "jku" is not a string'],
    ['a header that is a string', { ...good, header: 'x' }, 'its "header" is not a JSON object'],
    ['a header repeating alg', { ...good, header: { alg: 'none' } }, 'its "header" repeats protected parameters (alg)'],
    ['crit unprotected', { ...good, header: { crit: [] } }, 'its "header" holds "crit"'],
    ['a huge protected', { protected: 'A'.repeat(100_000), signature: good.signature }, 'its "protected" is over 4096 characters'],
    ['a huge signature', { protected: good.protected, signature: 'A'.repeat(100_000) }, 'its "signature" is over 2048 characters'],
    ['a huge header', { ...good, header: { x: 'y'.repeat(10_000) } }, 'its "header" is over 4096 characters'],
    ['a truncated signature', { protected: good.protected, signature: (good.signature as string).slice(0, 40) }, 'it does not match the card'],
  ])('refuses an entry with %s, saying what is wrong', (_name, entry, problem) => {
    const verdict = verifyCard(withEntry(entry), ed.trusted);
    expect(verdict.signed).toBe(true);
    expect(verdict.verified).toBe(false);
    expect(verdict.problem).toContain(problem);
  });

  it('never throws on hostile signatures, and a good one among them still verifies', () => {
    const entry = fc.oneof(
      fc.anything(),
      fc.record({ protected: fc.oneof(fc.string(), fc.base64String(), fc.anything()), signature: fc.oneof(fc.string(), fc.anything()), header: fc.anything() }, { requiredKeys: [] }),
      fc.jsonValue().map((value) => ({ protected: b64(value), signature: good.signature })),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 20 }), fc.boolean(), (entries, withGood) => {
        const signatures = withGood ? [...entries.slice(0, 10), good] : entries;
        const verdict = verifyCard({ ...card(), signatures }, ed.trusted);
        expect(verdict.verified).toBe(withGood);
        if (!withGood) expect(typeof verdict.problem).toBe('string');
        expect(() => signatureHeaders({ signatures })).not.toThrow();
      }),
    );
  });

  it('reads at most 16 signatures, and says so', () => {
    const verdict = verifyCard({ ...card(), signatures: [...Array.from({ length: 20 }, () => ({ protected: 'x', signature: 'y' })), good] }, ed.trusted);
    expect(verdict).toMatchObject({ verified: false, problem: expect.stringContaining('only the first 16 of 21 were read') });
    expect(verdict.checks).toHaveLength(16);
  });

  it('refuses a card too deep or holding a lone surrogate, in words', () => {
    let deep: Json = {};
    for (let i = 0; i < 100; i++) deep = { d: deep };
    expect(verifyCard({ ...card(), deep, signatures: [good] }, ed.trusted).problem).toContain('nests deeper than 64 levels');
    expect(verifyCard({ ...card(), name: '\ud800', signatures: [good] }, ed.trusted).problem).toContain('cannot be put in canonical form');
    expect(() => signCard({ ...card(), name: '\ud800' }, ed.key)).toThrow(expect.objectContaining({ code: 'INVALID_CARD' }));
  });

  it('trusts a key without a kid (a PEM file) for any kid, and a key only with its own algorithm', () => {
    const pair = generateKeyPairSync('ed25519');
    const key = signingKeyFrom(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'k.pem', 'named-in-card');
    const bare = publicKeysFrom(pair.publicKey.export({ type: 'spki', format: 'pem' }) as string, 'k.pub');
    expect(verifyCard(signCard(card(), key), bare)).toMatchObject({ verified: true, kid: 'named-in-card' });
    expect(verifyCard(signCard(card(), key), [{ ...bare[0]!, alg: 'ES256' }])).toMatchObject({ verified: false, problem: expect.stringContaining('no trusted key that may check key id "named-in-card" signs with EdDSA') });
    expect(verifyCard(signCard(card(), key), [{ ...bare[0]!, use: 'enc' }]).verified).toBe(false);
  });
});

/** `value` with one member changed, added or removed; which one `pick` and `how` choose. */
function mutate(value: Json, pick: number, how: number): Json {
  const spots: Array<{ holder: Json | unknown[]; key: string | number }> = [];
  const walk = (node: unknown): void => {
    const children: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((child, i) => [i, child]) : typeof node === 'object' && node !== null ? Object.entries(node) : [];
    for (const [key, child] of children) {
      spots.push({ holder: node as Json | unknown[], key });
      walk(child);
    }
  };
  walk(value);
  const spot = spots[pick % spots.length];
  if (spot === undefined || how % 3 === 0) return { ...value, added: 'a new member' };
  const { holder, key } = spot;
  const current = (holder as Record<string | number, unknown>)[key];
  if (how % 3 === 1 && (typeof current !== 'object' || current === null)) {
    const next = typeof current === 'string' ? `${current}x` : typeof current === 'number' ? (current === 0 ? 1 : -current) : typeof current === 'boolean' ? !current : 'x';
    (holder as Record<string | number, unknown>)[key] = next;
  } else if (Array.isArray(holder)) holder.splice(key as number, 1);
  else Reflect.deleteProperty(holder, key);
  return value;
}
