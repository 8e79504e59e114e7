// Signed Agent Cards against two independent implementations: `jose` checks our signatures as the
// JWS they are (flattened, with the canonical card as the detached payload) and makes signatures
// our verifier must accept; the official SDK's verifier accepts the 1.0 card we sign, and its
// signer's cards pass ours.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { canonicalizeAgentCard, generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import * as jose from 'jose';
import { describe, expect, it } from 'vitest';
import { toAgentCardV1, toHybridAgentCard, type CardOptions } from '../../src/a2a/wire/agent-card.js';
import { canonicalCard } from '../../src/a2a/wire/card-canonical.js';
import { publicKeysFrom, signingKeyFrom, type SigningKey } from '../../src/a2a/wire/card-keys.js';
import { signCard, verifyCard, type AgentCardSignature } from '../../src/a2a/wire/card-signature.js';
import { jiajiaCard, mexicoCard } from '../fixtures/cards.js';

type Json = Record<string, unknown>;

const OPTIONS: CardOptions = { baseUrl: 'http://127.0.0.1:7331', streaming: true, pushNotifications: true, security: { bearer: true, apiKeyHeader: 'X-API-Key' } };

function keyPair(type: 'ed25519' | 'p256'): { pem: string; publicPem: string } {
  const pair = type === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { pem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string };
}

const flattened = (card: Json, entry: AgentCardSignature): jose.FlattenedJWS => ({
  payload: jose.base64url.encode(canonicalCard(card)),
  protected: entry.protected,
  signature: entry.signature,
});

describe.each(['ed25519', 'p256'] as const)('a card signed with %s', (type) => {
  const { pem, publicPem } = keyPair(type);
  const key: SigningKey = signingKeyFrom(pem, 'key.pem', 'key-1');
  const cards = { v1: toAgentCardV1(jiajiaCard(), OPTIONS), hybrid: toHybridAgentCard(mexicoCard(), OPTIONS) };

  it.each(Object.keys(cards))('verifies with jose flattenedVerify over the canonical payload (%s card)', async (shape) => {
    const signed = signCard(cards[shape as keyof typeof cards], key, { jku: 'http://127.0.0.1:7331/.well-known/jwks.json' });
    const entry = (signed.signatures as AgentCardSignature[])[0] as AgentCardSignature;
    const { protectedHeader } = await jose.flattenedVerify(flattened(signed, entry), await jose.importSPKI(publicPem, key.alg), { algorithms: [key.alg] });
    expect(protectedHeader).toEqual({ alg: key.alg, typ: 'JOSE', kid: 'key-1', jku: 'http://127.0.0.1:7331/.well-known/jwks.json' });
    // The compact form with the payload put back is the same JWS.
    await jose.compactVerify(`${entry.protected}.${jose.base64url.encode(canonicalCard(signed))}.${entry.signature}`, await jose.importSPKI(publicPem, key.alg));
  });

  it('stays a valid A2A 1.0 card once signed, twice', () => {
    const schema = JSON.parse(readFileSync(new URL('../fixtures/a2a-v1-agent-card.schema.json', import.meta.url), 'utf8')) as Json;
    const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
    const signed = signCard(signCard(cards.v1, key), key);
    expect(validate(signed), JSON.stringify(validate.errors)).toBe(true);
  });

  it('is verified by the official SDK (1.0 card), whose canonical form is ours', async () => {
    const signed = signCard(cards.v1, key);
    expect(canonicalizeAgentCard(signed as never)).toBe(canonicalCard(signed));
    const verifier = verifyAgentCardSignature(async (kid) => {
      expect(kid).toBe('key-1');
      return jose.importSPKI(publicPem, key.alg);
    });
    await expect(verifier(signed as never)).resolves.toBeUndefined();
  });

  it('accepts what jose signs over the canonical card, and refuses it once the card changes', async () => {
    const card = cards.hybrid;
    const jws = await new jose.FlattenedSign(new TextEncoder().encode(canonicalCard(card)))
      .setProtectedHeader({ alg: key.alg, typ: 'JOSE', kid: 'jose-key' })
      .sign(await jose.importPKCS8(pem, key.alg));
    const signed = { ...card, signatures: [{ protected: jws.protected, signature: jws.signature }] };
    const keys = publicKeysFrom(publicPem, 'public.pem').map((jwk) => ({ ...jwk, kid: 'jose-key' }));
    expect(verifyCard(signed, keys)).toMatchObject({ signed: true, verified: true, kid: 'jose-key', alg: key.alg });
    expect(verifyCard({ ...signed, url: 'http://attacker.example/jsonrpc' }, keys)).toMatchObject({ verified: false, problem: expect.stringContaining('the card was changed after it was signed') });
  });

  it("accepts the official SDK's signatures on a 1.0 card", async () => {
    const signer = generateAgentCardSignature(await jose.importPKCS8(pem, key.alg), { alg: key.alg, typ: 'JOSE', kid: 'sdk-key' });
    const signed = (await signer(cards.v1 as never)) as unknown as Json;
    const keys = publicKeysFrom(publicPem, 'public.pem').map((jwk) => ({ ...jwk, kid: 'sdk-key' }));
    expect(verifyCard(signed, keys)).toMatchObject({ verified: true, kid: 'sdk-key' });
  });
});

describe('the canonical form', () => {
  it('is the example of A2A §8.4.1 less the empty description, as the official SDKs write it', () => {
    const card = { name: 'Example Agent', description: '', capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [] };
    expect(canonicalCard(card)).toBe('{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}');
    expect(canonicalizeAgentCard(card as never)).toBe(canonicalCard(card));
  });
});
