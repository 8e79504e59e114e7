// TLS as an operator runs it, with real processes on 127.0.0.1 and authorities made by the test:
// a hub on HTTPS that an agent dials over WSS and a client sends through, both trusting the
// operator's authority with --tls-ca; a client without it refused, told who issued what; and a
// certificate renewed with SIGHUP while `serve` runs, a broken renewal leaving the old one.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import '../faults/serve-process.js';
import { certificateFolder, makeAuthority, makeServerCertificate, OPENSSL } from '../fixtures/tls.js';
import { startAgent, startHub, start, until, agentHome, BEHAVE } from '../hub/hub-processes.js';
import { needsTool } from '../needs-tool.js';
import { cliAsync } from './run-cli.js';

const noOpenssl = needsTool('TLS on the command line', OPENSSL, 'no openssl to make certificates with');


/** The CN of the certificate served at `url` (or at a gRPC `host:port`, over h2). */
const subjectAt = (url: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const port = Number(url.includes('://') ? new URL(url).port : url.slice(url.lastIndexOf(':') + 1));
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
      resolve(String(socket.getPeerCertificate().subject.CN));
      socket.destroy();
    });
    socket.on('error', reject);
  });

describe.skipIf(noOpenssl)('TLS on the command line', () => {
  const folder = certificateFolder();
  const authority = makeAuthority(folder, 'operator CA');
  const server = makeServerCertificate(folder, authority, 'hub-host');
  const renewed = makeServerCertificate(folder, authority, 'renewed-host');

  it('runs a hub on HTTPS that an agent dials over WSS and a client sends through, trusting the operator\'s authority', async () => {
    const hub = await startHub(['--store', 'memory', '--tls-cert', server.cert, '--tls-key', server.key]);
    expect(hub.url).toMatch(/^https:\/\//);
    await startAgent(hub.url, 'secure-echo', { extra: ['--port', 'none', '--tls-ca', authority.cert] });
    const sent = await cliAsync(['send', `${hub.url}/agents/secure-echo`, 'echo over tls', '--no-stream', '--json', '--tls-ca', authority.cert], { home: agentHome('client') });
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain('echo over tls');

    // The same through A2A_LITE_TLS_CA, and refused without either, saying why.
    const byEnv = await cliAsync(['discover', `${hub.url}/agents/secure-echo`, '--json'], { home: agentHome('client-env'), env: { A2A_LITE_TLS_CA: authority.cert } });
    expect(byEnv.code).toBe(0);
    const refused = await cliAsync(['discover', `${hub.url}/agents/secure-echo`], { home: agentHome('client-none') });
    expect(refused.code).toBe(15);
    expect(refused.stderr).toContain('was refused');
    expect(refused.stderr).toContain('issued by CN=operator CA');
    expect(refused.stderr).toContain('--tls-ca');
    // A send is not tried again and again: no retry changes a certificate.
    const unsent = await cliAsync(['send', `${hub.url}/agents/secure-echo`, 'echo never', '--no-stream', '--timeout', '600'], { home: agentHome('client-send') });
    expect(unsent.code).toBe(15);
    expect(unsent.stderr).toContain('issued by CN=operator CA');
  });

  it('serves a renewed certificate after SIGHUP, and keeps the one in use when the new files are broken', async () => {
    const cert = join(folder, 'live.pem');
    const key = join(folder, 'live.key');
    copyFileSync(server.cert, cert);
    copyFileSync(server.key, key);
    const serve = await start(['serve', '--home', agentHome('tls-serve'), '--store', 'memory', '--exec', BEHAVE, '--port', '0', '--grpc-port', '0', '--tls-cert', cert, '--tls-key', key]);
    const url = serve.info.url as string;
    const grpc = serve.info.grpc as string;
    expect(url).toMatch(/^https:\/\//);
    expect(await subjectAt(url)).toBe('hub-host');
    expect(await subjectAt(grpc)).toBe('hub-host');
    // gRPC over TLS, the card read over HTTPS saying so, with the operator's authority.
    const overGrpc = await cliAsync(['send', url, 'echo over grpc and tls', '--transport', 'grpc', '--no-stream', '--json', '--tls-ca', authority.cert], { home: agentHome('client-grpc') });
    expect(overGrpc.code).toBe(0);
    expect(overGrpc.stdout).toContain('over grpc and tls');

    // A certificate whose key is not the one beside it: refused, the old one stays.
    copyFileSync(renewed.cert, cert);
    serve.child.kill('SIGHUP');
    await until(() => serve.stderr().includes('kept the certificate in use'), 10_000, 'the broken renewal to be reported');
    expect(serve.stderr()).toContain('is not the key of the certificate');
    expect(await subjectAt(url)).toBe('hub-host');
    expect(await subjectAt(grpc)).toBe('hub-host');

    copyFileSync(renewed.key, key);
    serve.child.kill('SIGHUP');
    await until(() => serve.stderr().includes('new connections get that certificate'), 10_000, 'the renewal to be taken');
    expect(await subjectAt(url)).toBe('renewed-host');
    expect(await subjectAt(grpc)).toBe('renewed-host');
    const sent = await cliAsync(['send', url, 'echo still here', '--no-stream', '--json', '--tls-ca', authority.cert], { home: agentHome('client-2') });
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain('still here');
  });

  it('refuses --tls-cert without --tls-key, and a key file that is not there, naming it', async () => {
    const alone = await cliAsync(['serve', '--exec', 'true', '--store', 'memory', '--port', '0', '--tls-cert', server.cert], { home: agentHome('alone') });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--tls-cert and --tls-key go together');
    const missing = await cliAsync(['hub', '--store', 'memory', '--port', '0', '--tls-cert', server.cert, '--tls-key', join(folder, 'nowhere.key')]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('nowhere.key does not exist');
  });
});
