// What bench/serve.mjs and bench/hub.mjs share to measure a server with tracing, metrics or TLS
// on against the same server plain: a local OTLP sink for the traces, a throwaway certificate
// authority and a server certificate for 127.0.0.1 (openssl), and the telemetry a variant starts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A local OTLP sink for the tracing variant: takes every export and answers at once. */
export async function otlpSink() {
  const sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${sink.address().port}`, close: () => sink.close() };
}

/**
 * A certificate authority made for the run and a P-256 server certificate for 127.0.0.1 it
 * signed, as an operator's would be: the files' paths (`ca` is what a client that checks trusts,
 * e.g. through NODE_EXTRA_CA_CERTS).
 */
export function throwawayCertificate() {
  const folder = mkdtempSync(join(tmpdir(), 'a2a-bench-tls-'));
  const openssl = (args) => execFileSync('openssl', args, { cwd: folder, stdio: 'ignore' });
  const [ca, caKey, cert, key, csr, ext] = ['ca.pem', 'ca.key', 'cert.pem', 'key.pem', 'cert.csr', 'cert.ext'].map((file) => join(folder, file));
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', caKey]);
  openssl(['req', '-x509', '-new', '-key', caKey, '-sha256', '-days', '1', '-subj', '/CN=a2a-lite bench CA', '-addext', 'basicConstraints=critical,CA:true', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', ca]);
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:false\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
  openssl(['req', '-new', '-key', key, '-subj', '/CN=127.0.0.1', '-out', csr]);
  openssl(['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-days', '1', '-sha256', '-extfile', ext, '-out', cert]);
  return { ca, cert, key };
}

/**
 * Starts what `variant` turns on in a bench server, with the build's telemetry/sdk.js (`loadSdk`
 * imports it, only then, as the CLI does): "traces", spans through the batched OTLP exporter (to
 * OTEL_EXPORTER_OTLP_ENDPOINT, a local sink); "metrics", the Prometheus reader, as `--metrics`
 * has it. Any other variant: telemetry off, and the SDK not loaded.
 */
export async function startVariantTelemetry(variant, loadSdk, serviceName) {
  if (variant !== 'traces' && variant !== 'metrics') return;
  const { startTelemetry } = await loadSdk();
  await startTelemetry({ traces: variant === 'traces', otlpMetrics: false, prometheus: variant === 'metrics', serviceName });
}
