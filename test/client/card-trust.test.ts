// The key set a signed card names (`jku`), fetched over real HTTP on 127.0.0.1: only from the
// card's own origin, without redirects, at most 64 KiB; a hostile or broken key set is a
// problem in words, never an exception, and a key set elsewhere is not even asked for.
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { signingKeyFrom } from '../../src/a2a/wire/card-keys.js';
import { jwkSetOf, signCard } from '../../src/a2a/wire/card-signature.js';
import { checkCardSignature } from '../../src/client/card-trust.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A server on 127.0.0.1 answering each path from `routes`; the paths asked for, in order. */
async function serve(routes: Record<string, (response: ServerResponse) => void>): Promise<{ origin: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    asked.push(request.url ?? '');
    const route = routes[request.url ?? ''];
    if (route === undefined) response.writeHead(404).end();
    else route(response);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

const key = signingKeyFrom(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'k.pem', 'k1');
const card = { name: 'A', description: 'an agent', version: '1', skills: [] };
const json = (body: string) => (response: ServerResponse) => response.writeHead(200, { 'content-type': 'application/json' }).end(body);

describe('checkCardSignature', () => {
  it("verifies against the key set on the card's origin", async () => {
    const { origin, asked } = await serve({ '/keys.json': json(JSON.stringify(jwkSetOf([key]))) });
    const trust = await checkCardSignature(signCard(card, key, { jku: `${origin}/keys.json` }), `${origin}/.well-known/agent-card.json`);
    expect(trust).toMatchObject({ signed: true, verified: true, kid: 'k1', alg: 'EdDSA', keys: 'origin' });
    expect(asked).toEqual(['/keys.json']);
  });

  it.each<[string, (response: ServerResponse) => void, string]>([
    ['not found', (response) => response.writeHead(404).end(), 'answered HTTP 404'],
    ['a redirect', (response) => response.writeHead(302, { location: '/elsewhere.json' }).end(), 'answered HTTP 302 (redirects are not followed)'],
    ['not JSON', json('{"keys": ['), 'is not JSON'],
    ['too large', json(JSON.stringify({ keys: [], pad: 'x'.repeat(70_000) })), 'is over 65536 bytes'],
    ['no keys list', json('{"kty":"OKP"}'), 'is no JWK set: it has no "keys" list'],
    ['only unusable keys', json(JSON.stringify({ keys: [{ kty: 'oct', k: 'AA' }, { kty: 'RSA', n: 'AQAB', e: 'AQAB' }, 'x', null] })), 'holds no key that signs with'],
    ['another key', json(JSON.stringify({ keys: [{ ...signingKeyFrom(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'o.pem', 'k1').publicJwk }] })), 'does not match the card'],
    ['a body cut short', (response) => response.writeHead(200, { 'content-length': '1000' }).end('{"keys":'), 'broke off'],
  ])('says so, in words, when the key set is %s', async (_name, route, problem) => {
    const { origin } = await serve({ '/keys.json': route });
    const trust = await checkCardSignature(signCard(card, key, { jku: `${origin}/keys.json` }), `${origin}/.well-known/agent-card.json`);
    expect(trust.verified).toBe(false);
    expect(trust.problem).toContain(problem);
  });

  it('does not fetch a key set on another origin, nor one the card names without jku', async () => {
    const other = await serve({ '/keys.json': json(JSON.stringify(jwkSetOf([key]))) });
    const own = await serve({});
    const elsewhere = await checkCardSignature(signCard(card, key, { jku: `${other.origin}/keys.json` }), `${own.origin}/.well-known/agent-card.json`);
    expect(elsewhere).toMatchObject({ verified: false, problem: expect.stringContaining(`is not on the card's origin (${own.origin}), so it is not fetched`) });
    const unnamed = await checkCardSignature(signCard(card, key), `${own.origin}/.well-known/agent-card.json`);
    expect(unnamed).toMatchObject({ verified: false, problem: expect.stringContaining('it names no key set ("jku")') });
    expect(other.asked).toEqual([]);
    expect(own.asked).toEqual([]);
  });

  it('uses only the trusted keys when given, fetching nothing', async () => {
    const { origin, asked } = await serve({ '/keys.json': json(JSON.stringify(jwkSetOf([key]))) });
    const signed = signCard(card, key, { jku: `${origin}/keys.json` });
    expect(await checkCardSignature(signed, `${origin}/.well-known/agent-card.json`, { trustKeys: [key.publicJwk] })).toMatchObject({ verified: true, keys: 'trusted' });
    expect(await checkCardSignature(signed, `${origin}/.well-known/agent-card.json`, { trustKeys: [] })).toMatchObject({ verified: false, keys: 'trusted' });
    expect(asked).toEqual([]);
  });

  it('refuses a key set on a link-local address even on the same origin', async () => {
    const signed = signCard(card, key, { jku: 'http://169.254.169.254/keys.json' });
    const trust = await checkCardSignature(signed, 'http://169.254.169.254/.well-known/agent-card.json');
    expect(trust).toMatchObject({ verified: false, problem: expect.stringContaining('was not fetched: no request may go to "169.254.169.254"') });
  });
});
