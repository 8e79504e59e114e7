// `hub --require-signed-cards --trust-key FILE`: over real HTTP and real processes, an agent
// whose card is signed by a trusted key registers (dialled in or by URL) and the API shows its
// card verified; an unsigned card, or one signed by a stranger's key, is refused with words the
// registering agent sees. Without the requirement, the API still says which cards verify.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import * as jose from 'jose';
import { describe, expect, it } from 'vitest';
import { canonicalCard } from '../../src/a2a/wire/card-canonical.js';
import { signingKeyFrom } from '../../src/a2a/wire/card-keys.js';
import { signCard } from '../../src/a2a/wire/card-signature.js';
import { cliAsync } from '../cli/run-cli.js';
import { cardKeyFiles } from '../fixtures/card-keys.js';
import { tempHome } from '../fixtures/home.js';
import { agentHome, freePort, getJson, start, startAgent, startHub, until } from './hub-processes.js';

type Json = Record<string, unknown>;

const agentsOf = async (hub: string): Promise<Json[]> => (await getJson(`${hub}/hub/v1/agents`)).body.agents as Json[];
const signatureOf = async (hub: string, id: string): Promise<Json | undefined> => (await agentsOf(hub)).find((agent) => agent.id === id)?.signature as Json | undefined;

describe('a hub that requires signed cards', () => {
  it('registers a dialled-in agent whose card a trusted key signed, and shows it verified', async () => {
    const trusted = cardKeyFiles();
    const hub = await startHub(['--store', 'memory', '--require-signed-cards', '--trust-key', trusted.pub]);
    expect(hub.info.signedCards).toBe('required');
    await startAgent(hub.url, 'signed', { extra: ['--port', 'none', '--sign-key', trusted.key, '--sign-kid', 'signed-1'] });
    const signature = await until(() => signatureOf(hub.url, 'signed'), 15_000, 'the agent to register');
    expect(signature).toEqual({ signed: true, verified: true, kid: 'signed-1', alg: 'EdDSA' });
    // The card a client fetches from the hub is the agent's own, signature and all.
    const card = (await getJson(`${hub.url}/agents/signed/.well-known/agent-card.json`, { 'a2a-version': '1.0' })).body;
    const entry = (card.signatures as { protected: string; signature: string }[])[0]!;
    const { protectedHeader } = await jose.flattenedVerify({ payload: jose.base64url.encode(canonicalCard(card)), ...entry }, await jose.importSPKI(readFileSync(trusted.pub, 'utf8'), 'EdDSA'));
    expect(protectedHeader?.jku).toBe(`${hub.url}/agents/signed/.well-known/jwks.json`);
    // The key set it names is relayed too, so a client that knows no key checks it at the card's origin.
    const found = await cliAsync(['discover', `${hub.url}/agents/signed`, '--json', '--home', tempHome()]);
    expect((JSON.parse(found.stdout) as { signature: Json }).signature).toMatchObject({ signed: true, verified: true, kid: 'signed-1', keys: 'origin' });
  });

  it.each([
    ['not signed', [] as string[], 'the card is not signed: it has no "signatures"'],
    ['signed by a key it does not trust', ['--sign-kid', 'stranger-1'], 'no signature on the card verifies: it does not match'],
  ])('refuses a dialled-in agent whose card is %s, telling the agent why', async (_name, flags, why) => {
    const trusted = cardKeyFiles();
    const hub = await startHub(['--store', 'memory', '--require-signed-cards', '--trust-key', trusted.pub]);
    const extra = flags.length === 0 ? [] : ['--sign-key', cardKeyFiles().key, ...flags];
    // The agent dials in, its card is read and refused, and it hears why when the link closes.
    // It never starts: `serve --hub` says it is connected only once the hub routes to it.
    const failed = await start(['serve', '--home', agentHome('refused'), '--store', 'memory', '--exec', 'true', '--hub', hub.url, '--port', 'none', ...extra]).then(
      () => '',
      (error: Error) => error.message,
    );
    // serve's error, as JSON on its stderr.
    const started = (JSON.parse(failed.slice(failed.indexOf('{'))) as { error: { message: string } }).error.message;
    expect(started).toContain('the other side closed the link');
    expect(started).toContain('agent refused: ');
    expect(started).toContain(why);
    expect(await agentsOf(hub.url)).toEqual([]);
  });

  it('refuses to register by URL an agent whose card is not signed, with 403 and the reason; takes it once signed', async () => {
    const trusted = cardKeyFiles('p256');
    const hub = await startHub(['--store', 'memory', '--require-signed-cards', '--trust-key', trusted.pub]);
    const home = agentHome('byurl');
    const plainPort = await freePort();
    await start(['serve', '--home', home, '--store', 'memory', '--exec', 'true', '--host', '127.0.0.1', '--port', String(plainPort)]);
    const refused = await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `http://127.0.0.1:${plainPort}` }) });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toContain('agent byurl: the card is not signed: it has no \\"signatures\\"; this hub takes only cards signed by a key it trusts');

    const signedPort = await freePort();
    await start(['serve', '--home', home, '--store', 'memory', '--exec', 'true', '--host', '127.0.0.1', '--port', String(signedPort), '--sign-key', trusted.key]);
    const taken = await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `http://127.0.0.1:${signedPort}` }) });
    expect(taken.status).toBe(201);
    expect(((await taken.json()) as { agent: Json }).agent.signature).toMatchObject({ signed: true, verified: true, alg: 'ES256' });
  });

  it('takes a URL agent down at once when its card stops verifying, and up again once it does', async () => {
    const trusted = cardKeyFiles();
    const key = signingKeyFrom(readFileSync(trusted.key, 'utf8'), 'card.pem');
    const unsigned = { name: 'Changing', description: 'a card that changes', version: '1', skills: [{ id: 's', name: 'S', description: 'd', tags: ['s'] }] };
    let served: Json = signCard(unsigned, key);
    const agent = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served)));
    agent.listen(0, '127.0.0.1');
    await once(agent, 'listening');
    try {
      const hub = await startHub(['--store', 'memory', '--require-signed-cards', '--trust-key', trusted.pub, '--check', '1']);
      const url = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
      const registered = await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url, id: 'changing' }) });
      expect(registered.status).toBe(201);
      served = { ...unsigned, description: 'changed, and no longer signed' };
      const down = await until(async () => (await agentsOf(hub.url)).find((a) => (a.health as { up: boolean }).up === false), 15_000, 'the agent to go down');
      expect((down.health as { reason: string }).reason).toContain('agent changing: the card is not signed');
      expect(down.description).toBe('a card that changes');
      served = signCard({ ...unsigned, description: 'changed, and signed again' }, key);
      const back = await until(async () => (await agentsOf(hub.url)).find((a) => (a.health as { up: boolean }).up === true), 15_000, 'the agent to come back');
      expect(back.description).toBe('changed, and signed again');
    } finally {
      agent.closeAllConnections();
      agent.close();
    }
  });

  it('answers a card with hostile signatures 403 in words, never a failure of its own', async () => {
    const trusted = cardKeyFiles();
    const base = { name: 'Hostile', description: 'd', version: '1', skills: [] };
    const cards: [unknown, string][] = [
      [{ ...base, signatures: 'not a list' }, 'its \\"signatures\\" is not a list'],
      [{ ...base, signatures: [{ protected: 5, signature: [] }] }, 'its \\"protected\\" is missing or not a string'],
      [{ ...base, signatures: [{ protected: 'eyJhbGciOiJub25lIiwia2lkIjoieCJ9', signature: 'AA' }] }, 'its algorithm is \\"none\\"'],
      [{ ...base, signatures: [{ protected: 'A'.repeat(200_000), signature: 'A' }] }, 'is over 4096 characters'],
      [{ ...base, signatures: Array.from({ length: 1000 }, () => ({ protected: '%%', signature: '%%' })) }, 'only the first 16 of 1000 were read'],
    ];
    let served: unknown;
    const agent = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served)));
    agent.listen(0, '127.0.0.1');
    await once(agent, 'listening');
    try {
      const hub = await startHub(['--store', 'memory', '--require-signed-cards', '--trust-key', trusted.pub, '--check', '0']);
      const url = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
      for (const [card, why] of cards) {
        served = card;
        const answer = await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url, id: 'hostile' }) });
        expect(answer.status).toBe(403);
        expect(await answer.text()).toContain(why);
      }
      expect(hub.stderr()).toBe('');
    } finally {
      agent.closeAllConnections();
      agent.close();
    }
  });

  it('will not start without a trusted key', () => {
    return start(['hub', '--store', 'memory', '--port', '0', '--require-signed-cards']).then(
      () => expect.unreachable(),
      (error: Error) => expect(error.message).toContain('--require-signed-cards needs --trust-key FILE'),
    );
  });
});

describe('a hub that checks but does not require signed cards', () => {
  it('registers every agent and says which cards verify', async () => {
    const trusted = cardKeyFiles();
    const hub = await startHub(['--store', 'memory', '--trust-key', trusted.pub]);
    await startAgent(hub.url, 'plain');
    await startAgent(hub.url, 'other', { extra: ['--port', 'none', '--sign-key', cardKeyFiles().key, '--sign-kid', 'other-1'] });
    const plain = await until(() => signatureOf(hub.url, 'plain'), 15_000, 'plain to register');
    const other = await until(() => signatureOf(hub.url, 'other'), 15_000, 'other to register');
    expect(plain).toEqual({ signed: false, verified: false, problem: 'the card is not signed: it has no "signatures"' });
    expect(other).toMatchObject({ signed: true, verified: false, kid: 'other-1', alg: 'EdDSA', problem: expect.stringContaining('does not match the card') });
  });
});
