// Signed Agent Cards through the real binary: `card sign` with key files, `serve --sign-key`
// over real HTTP (every card shape it serves, its key set), and `discover` saying whether the
// card is signed, by which key and whether it verified. jose checks what we sign.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as jose from 'jose';
import { describe, expect, it } from 'vitest';
import { canonicalCard } from '../../src/a2a/wire/card-canonical.js';
import { spawnCli, startServe, type ServeInfo } from '../faults/serve-process.js';
import { tempHome } from '../fixtures/home.js';
import { cli, cliAsync } from './run-cli.js';

type Json = Record<string, unknown>;
interface Entry {
  protected: string;
  signature: string;
}

/** A key pair written as files: the private PEM (mode 600) and the public PEM. */
function keyFiles(dir: string, type: 'ed25519' | 'p256' = 'ed25519', mode = 0o600): { key: string; pub: string } {
  const pair = type === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const key = join(dir, `${type}.pem`);
  const pub = join(dir, `${type}.pub.pem`);
  writeFileSync(key, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  chmodSync(key, mode);
  writeFileSync(pub, pair.publicKey.export({ type: 'spki', format: 'pem' }) as string);
  return { key, pub };
}

/** Checks `card`'s last signature with jose, as a JWS whose detached payload is the canonical card. */
async function joseVerify(card: Json, key: jose.CryptoKey | Uint8Array | jose.JWK | ((header: jose.JWSHeaderParameters) => Promise<jose.CryptoKey>)): Promise<jose.JWSHeaderParameters> {
  const entry = (card.signatures as Entry[]).at(-1) as Entry;
  const jws = { payload: jose.base64url.encode(canonicalCard(card)), protected: entry.protected, signature: entry.signature };
  const verified = typeof key === 'function' ? await jose.flattenedVerify(jws, key) : await jose.flattenedVerify(jws, key as jose.CryptoKey);
  return verified.protectedHeader ?? {};
}

function initCard(home: string): void {
  expect(cli(['card', 'init', '--id', 'jiajia', '--name', '佳佳', '--skill', 'research:调研助手:收集资料'], { home }).code).toBe(0);
}

describe('a2a-lite card sign', () => {
  it("signs this agent's A2A card for its address, naming the key set there", async () => {
    const home = tempHome();
    initCard(home);
    const { key, pub } = keyFiles(home);
    const run = cli(['card', 'sign', '--key', key, '--kid', 'jiajia-2026', '--base-url', 'https://jiajia.example'], { home });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const card = JSON.parse(run.stdout) as Json;
    expect(card.supportedInterfaces).toContainEqual(expect.objectContaining({ url: 'https://jiajia.example/jsonrpc' }));
    const header = await joseVerify(card, await jose.importSPKI(readFileSync(pub, 'utf8'), 'EdDSA'));
    expect(header).toEqual({ alg: 'EdDSA', typ: 'JOSE', kid: 'jiajia-2026', jku: 'https://jiajia.example/.well-known/jwks.json' });
  });

  it('signs a card file as it is, keeping its signatures, and writes it with --out', async () => {
    const dir = tempHome('sign');
    const ed = keyFiles(dir);
    const ec = keyFiles(dir, 'p256');
    const input = join(dir, 'card.json');
    writeFileSync(input, JSON.stringify({ name: 'Other', description: 'x', version: '1', skills: [], url: 'https://other.example/a2a' }));
    expect(cli(['card', 'sign', input, '--key', ed.key, '--out', join(dir, 'once.json')], { cwd: dir }).code).toBe(0);
    const twice = cli(['card', 'sign', join(dir, 'once.json'), '--key', ec.key, '--jku', 'https://other.example/keys.json', '--out', join(dir, 'twice.json')]);
    expect(twice.code).toBe(0);
    expect(twice.stderr).toMatch(/^note: wrote .*twice\.json, signed with ES256 key "[\w-]{43}"; verifiers find the key at https:\/\/other\.example\/keys\.json\n$/);
    const card = JSON.parse(readFileSync(join(dir, 'twice.json'), 'utf8')) as Json;
    expect(card.signatures).toHaveLength(2);
    expect((await joseVerify(card, await jose.importSPKI(readFileSync(ec.pub, 'utf8'), 'ES256'))).alg).toBe('ES256');
    const first = { ...card, signatures: [(card.signatures as Entry[])[0]] };
    expect((await joseVerify(first, await jose.importSPKI(readFileSync(ed.pub, 'utf8'), 'EdDSA'))).alg).toBe('EdDSA');
  });

  it('refuses keys that are missing, public or unusable, and warns of a key others may read', () => {
    const home = tempHome();
    initCard(home);
    const dir = tempHome('keys');
    const { pub } = keyFiles(dir);
    const open = keyFiles(tempHome('open'), 'ed25519', 0o644);
    const args = ['card', 'sign', '--base-url', 'https://a.example'];
    expect(cli([...args], { home })).toMatchObject({ code: 2, stderr: expect.stringContaining('--key FILE is required (the private key file; a key is never given as a flag value)') });
    expect(cli([...args, '--key', join(dir, 'none.pem')], { home })).toMatchObject({ code: 4, stderr: expect.stringContaining('FILE_NOT_FOUND') });
    // A device or a named pipe in place of the key is refused unread (it would never end, or hang).
    execFileSync('mkfifo', [join(dir, 'pipe.pem')]);
    expect(cli([...args, '--key', '/dev/zero'], { home })).toMatchObject({ code: 2, stderr: 'a2a-lite: USAGE: the key file /dev/zero (--key) is a device, not a regular file\n' });
    expect(cli([...args, '--key', join(dir, 'pipe.pem')], { home })).toMatchObject({ code: 2, stderr: `a2a-lite: USAGE: the key file ${join(dir, 'pipe.pem')} (--key) is a named pipe, not a regular file\n` });
    writeFileSync(join(dir, 'big.pem'), Buffer.alloc(65 * 1024, 0x41));
    expect(cli([...args, '--key', join(dir, 'big.pem')], { home })).toMatchObject({ code: 2, stderr: expect.stringContaining(`the key file ${join(dir, 'big.pem')} (--key) is over 65536 bytes; too long for a key`) });
    expect(cli([...args, '--key', pub], { home })).toMatchObject({ code: 3, stderr: `a2a-lite: INVALID_KEY: ${pub} does not hold a private key in PEM (PKCS#8 or SEC1) or a private JWK\n` });
    expect(cli([...args, '--key', open.key, '--kid', 'bad kid'], { home })).toMatchObject({ code: 2, stderr: expect.stringContaining('--kid: a key id is 1 to 128 printable ASCII characters') });
    const warned = cli([...args, '--key', open.key], { home });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toBe(`note: --key ${open.key} may be read by other users of this machine; chmod 600 it\n`);
    expect(cli(['card', 'sign', '--key', open.key], { home })).toMatchObject({ code: 2, stderr: expect.stringContaining('give a CARD file, or --base-url URL') });
  });
});

describe('a2a-lite serve --sign-key', () => {
  it('signs every card shape it serves and publishes the key set, which verifies them with jose and discover', async () => {
    const home = tempHome();
    initCard(home);
    const { key, pub } = keyFiles(home, 'p256');
    const served = spawnCli<ServeInfo>(['serve', '--home', home, '--port', '0', '--json', '--exec', 'cat > /dev/null; echo ok', '--store', 'memory', '--sign-key', key, '--sign-kid', 'served-key', '--auth-bearer-env', 'SECRET_TOKEN'], { SECRET_TOKEN: 'a-token-of-some-length' });
    const base = (await served.ready).url;
    // The key set is public like the card, even when every other request needs a token.
    const keySet = await fetch(`${base}/.well-known/jwks.json`);
    expect(keySet.status).toBe(200);
    expect(keySet.headers.get('content-type')).toBe('application/jwk-set+json');
    const jwks = jose.createLocalJWKSet((await keySet.json()) as jose.JSONWebKeySet);
    for (const headers of [{}, { 'a2a-version': '1.0' }] as Record<string, string>[]) {
      const response = await fetch(`${base}/.well-known/agent-card.json`, { headers });
      const card = (await response.json()) as Json;
      expect(await joseVerify(card, jwks)).toEqual({ alg: 'ES256', typ: 'JOSE', kid: 'served-key', jku: `${base}/.well-known/jwks.json` });
      // Served again, the same signature: the ETag holds.
      const again = await fetch(`${base}/.well-known/agent-card.json`, { headers: { ...headers, 'if-none-match': response.headers.get('etag') as string } });
      expect(again.status).toBe(304);
    }

    const byOrigin = await cliAsync(['discover', base, '--json', '--home', tempHome()]);
    expect(byOrigin.code).toBe(0);
    expect((JSON.parse(byOrigin.stdout) as { signature: Json }).signature).toMatchObject({ signed: true, verified: true, kid: 'served-key', alg: 'ES256', keys: 'origin', jku: `${base}/.well-known/jwks.json` });
    const trusted = await cliAsync(['discover', base, '--lang', 'en', '--trust-key', pub, '--home', tempHome()]);
    expect(trusted.stderr).toContain('note: the card is signed by key "served-key" (ES256), verified against a trusted key (--trust-key)');
    const stranger = keyFiles(tempHome('stranger'), 'p256');
    const refused = await cliAsync(['discover', base, '--trust-key', stranger.pub, '--require-signed', '--home', tempHome()]);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(`a2a-lite: CARD_SIGNATURE_INVALID: the card at ${base}/.well-known/agent-card.json: no signature on the card verifies: it does not match the card: the card was changed after it was signed, or it was signed with another key than "served-key"`);
  });

  it('says plainly when a card is not signed, and --require-signed refuses it', async () => {
    const home = tempHome();
    initCard(home);
    const served = await startServe(home, 'cat > /dev/null; echo ok', ['--store', 'memory']);
    expect((await fetch(`${served.info.url}/.well-known/jwks.json`)).status).toBe(404);
    const plain = await cliAsync(['discover', served.info.url, '--lang', 'en', '--home', tempHome()]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain('note: the card is not signed\n');
    const required = await cliAsync(['discover', served.info.url, '--require-signed', '--home', tempHome()]);
    expect(required).toMatchObject({ code: 6, stderr: expect.stringContaining('CARD_SIGNATURE_INVALID: the card at') });
  });

  it('refuses --sign-kid without --sign-key, a key given in place of a file, and --trust-key with --hub', () => {
    const home = tempHome();
    initCard(home);
    expect(cli(['discover', '--hub', 'http://127.0.0.1:9', '--trust-key', 'k.pem'], { home })).toMatchObject({ code: 2, stderr: expect.stringContaining("--trust-key and --require-signed check one agent's card") });
    expect(cli(['serve', '--exec', 'true', '--sign-kid', 'k'], { home })).toMatchObject({ code: 2, stderr: expect.stringContaining('--sign-kid and --sign-jku need --sign-key FILE') });
    expect(cli(['serve', '--exec', 'true', '--sign-key=-----BEGIN PRIVATE KEY-----'], { home })).toMatchObject({ code: 4, stderr: expect.stringContaining('FILE_NOT_FOUND') });
  });
});
