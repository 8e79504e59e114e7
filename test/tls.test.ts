// TLS in the network layer, over real sockets on 127.0.0.1 with authorities made by the test:
// a server started with a certificate, clients that trust the operator's authority (and refuse
// anyone else's, saying which name and which issuer failed), a certificate renewed in a running
// server without dropping a stream that is open, and files that are not what they claim.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readText } from '../src/net/body.js';
import type { HttpHandler } from '../src/net/http-types.js';
import { listen, type Listening } from '../src/net/node-http.js';
import { request } from '../src/net/outbound.js';
import { readTlsCredentials, trustAuthorities } from '../src/net/tls.js';
import { Channel } from '../src/hub/channel.js';
import { certificateFolder, makeAuthority, makeServerCertificate, OPENSSL } from './fixtures/tls.js';
import { needsTool } from './needs-tool.js';

const noOpenssl = needsTool('TLS with throwaway authorities', OPENSSL, 'no openssl to make certificates with');

describe.skipIf(noOpenssl)('TLS', () => {
  const folder = certificateFolder();
  const trusted = makeAuthority(folder, 'a2a-lite test CA');
  const stranger = makeAuthority(folder, 'someone else CA');
  const good = makeServerCertificate(folder, trusted, 'server');
  const renewed = makeServerCertificate(folder, trusted, 'renewed');
  const foreign = makeServerCertificate(folder, stranger, 'foreign');
  const elsewhere = makeServerCertificate(folder, trusted, 'elsewhere', ['127.0.0.2', 'agent.example']);
  const servers: Listening[] = [];

  afterEach(() => trustAuthorities([]));
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  const hello: HttpHandler = async () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'hello over TLS' });
  const serve = async (files: { cert: string; key: string }, handler = hello) => {
    const server = await listen(handler, { tls: readTlsCredentials(files.cert, files.key) });
    servers.push(server);
    return server;
  };
  const refusal = (url: string) => request(url).then(() => undefined, (error: Error & { code?: string }) => error);

  it('serves HTTPS to a client that trusts the operator\'s authority', async () => {
    const server = await serve(good);
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    trustAuthorities([trusted.cert]);
    const answer = await request(`${server.url}/`);
    expect(answer.statusCode).toBe(200);
    expect(await readText(answer, 1000)).toBe('hello over TLS');
  });

  it('refuses a certificate from an authority not trusted, naming what the certificate names and who issued it', async () => {
    const server = await serve(foreign);
    const error = await refusal(`${server.url}/`);
    expect(error).toMatchObject({ code: 'PEER_UNREACHABLE', details: { tls: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' } });
    expect(error?.message).toContain(`the TLS certificate of 127.0.0.1:${new URL(server.url).port} was refused`);
    expect(error?.message).toContain('CN=foreign');
    expect(error?.message).toContain('issued by CN=someone else CA');
    expect(error?.message).toContain('--tls-ca');
    // Trusting another authority does not make this one trusted.
    trustAuthorities([trusted.cert]);
    expect(await refusal(`${server.url}/`)).toMatchObject({ code: 'PEER_UNREACHABLE' });
  });

  it('refuses a certificate for another name, saying which name was asked for and which it holds', async () => {
    trustAuthorities([trusted.cert]);
    const server = await serve(elsewhere);
    const error = await refusal(`${server.url}/`);
    expect(error).toMatchObject({ code: 'PEER_UNREACHABLE', details: { tls: 'ERR_TLS_CERT_ALTNAME_INVALID' } });
    expect(error?.message).toContain('it is not a certificate for "127.0.0.1"');
    expect(error?.message).toContain('DNS:agent.example');
    expect(error?.message).toContain('issued by CN=a2a-lite test CA');
  });

  it('serves a renewed certificate to new connections while a stream opened before goes on', async () => {
    const events = new Channel(false);
    const server = await serve(good, async (req) => (req.path === '/stream' ? { status: 200, headers: { 'content-type': 'text/event-stream' }, events } : hello(req)));
    trustAuthorities([trusted.cert]);
    const stream = await request(`${server.url}/stream`);
    const chunks: string[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    events.push('data: before\n\n');
    server.setTls(readTlsCredentials(renewed.cert, renewed.key));
    const port = Number(new URL(server.url).port);
    const subject = await new Promise<string>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        resolve(String(socket.getPeerCertificate().subject.CN));
        socket.destroy();
      });
      socket.on('error', reject);
    });
    expect(subject).toBe('renewed');
    events.push('data: after\n\n');
    events.end();
    await new Promise((resolve) => stream.on('end', resolve));
    expect(chunks.join('')).toBe('data: before\n\ndata: after\n\n');
  });

  it('refuses files that are not a certificate and its key, naming the file and never quoting a key', () => {
    const bad = join(folder, 'bad');
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, 'not-pem.pem'), 'just some text');
    writeFileSync(join(bad, 'huge.pem'), Buffer.alloc(2 * 1024 * 1024, 0x41));
    execFileSync('mkfifo', [join(bad, 'pipe.pem')]);
    const cases: [string, string, RegExp][] = [
      [join(bad, 'missing.pem'), good.key, /certificate file .*missing\.pem does not exist/],
      [join(bad, 'not-pem.pem'), good.key, /not-pem\.pem is not in PEM form/],
      [join(bad, 'huge.pem'), good.key, /huge\.pem is over 1048576 bytes; it is not a PEM file/],
      [bad, good.key, /certificate file .*bad is a folder, not a file/],
      // Neither may hang the server or fill its memory: both are refused unread.
      [join(bad, 'pipe.pem'), good.key, /certificate file .*pipe\.pem is a named pipe, not a regular file/],
      [good.cert, '/dev/zero', /key file \/dev\/zero is a device, not a regular file/],
      [good.cert, renewed.key, /the key in .*renewed\.key is not the key of the certificate in .*server\.pem/],
      [good.key, good.key, /holds no certificate that can be read/],
    ];
    for (const [cert, key, message] of cases) {
      let thrown: unknown;
      try {
        readTlsCredentials(cert, key);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, cert).toMatchObject({ message: expect.stringMatching(message) });
      expect(String((thrown as Error).message)).not.toContain('PRIVATE KEY');
    }
    expect(() => trustAuthorities([good.key])).toThrow(/holds no certificate/);
  });
});
