// TLS on both sides. A server's certificate and key come from files the operator names, read
// whole (bounded, by the one reader of operator files) and checked together before the server
// takes them (at start, and again when the operator asks for a reload). A client trusts the system's authorities plus the ones the
// operator adds (`--tls-ca`), for every connection this process makes: requests, event streams,
// WebSocket links. When a certificate is refused, the error says which name was asked for,
// what the certificate names, and who issued it, which node's own error leaves out.

import { isIP } from 'node:net';
import { connect, createSecureContext, rootCertificates, type PeerCertificate } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { LiteError } from '../errors.js';
import { readOperatorFile } from '../operator-file.js';

/** A server's certificate chain and private key, in PEM. */
export interface TlsCredentials {
  cert: string;
  key: string;
}

/** The largest certificate or key file read: a chain of a few certificates is a few KiB. */
const MAX_PEM_BYTES = 1024 * 1024;

function readPem(path: string, what: string): string {
  const { text } = readOperatorFile(path, { label: `the ${what} file ${path}`, maxBytes: MAX_PEM_BYTES, tooLargeHint: 'it is not a PEM file' });
  if (!text.includes('-----BEGIN ')) throw new LiteError('USAGE', `the ${what} file ${path} is not in PEM form (no "-----BEGIN" line)`);
  return text;
}

/**
 * The certificate chain in `certPath` and the key in `keyPath`, checked: both PEM, and the key
 * the certificate's. USAGE (or FILE_NOT_FOUND) naming the file otherwise; a key's text is never
 * quoted.
 */
export function readTlsCredentials(certPath: string, keyPath: string): TlsCredentials {
  const cert = readPem(certPath, 'certificate');
  const key = readPem(keyPath, 'key');
  try {
    new X509Certificate(cert);
  } catch {
    throw new LiteError('USAGE', `the certificate file ${certPath} holds no certificate that can be read`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    const reason = String((error as { reason?: string }).reason ?? (error as Error).message);
    throw new LiteError('USAGE', /mismatch/i.test(reason) ? `the key in ${keyPath} is not the key of the certificate in ${certPath}` : `the certificate ${certPath} and key ${keyPath} cannot be used together: ${reason}`);
  }
  return { cert, key };
}

/** Authorities trusted besides the system's, for every TLS connection made here. */
let extraAuthorities: readonly string[] = [];

/**
 * Trusts the certificate authorities in the PEM files `paths` (besides the system's) for every
 * TLS connection this process makes from now on. USAGE naming the file when one holds none.
 */
export function trustAuthorities(paths: readonly string[]): void {
  const found: string[] = [];
  for (const path of paths) {
    const text = readPem(path, 'CA certificate');
    const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    for (const block of blocks) {
      try {
        new X509Certificate(block);
      } catch {
        throw new LiteError('USAGE', `the CA certificate file ${path} holds a certificate that cannot be read`);
      }
    }
    if (blocks.length === 0) throw new LiteError('USAGE', `the CA certificate file ${path} holds no certificate`);
    found.push(...blocks);
  }
  extraAuthorities = found;
}

/** The TLS options a client connection takes: the authorities to trust, when any were added. */
export function clientTls(): { ca?: string[] } {
  return extraAuthorities.length === 0 ? {} : { ca: [...rootCertificates, ...extraAuthorities] };
}

/** Node's codes for a certificate it refused. */
const CERTIFICATE_ERRORS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Whether `error` is a refused certificate (as opposed to a network failure). */
export function isCertificateError(error: unknown): boolean {
  return CERTIFICATE_ERRORS.has(String((error as { code?: unknown })?.code));
}

const names = (fields: PeerCertificate['subject'] | undefined): string => {
  if (fields === undefined || fields === null) return 'nothing';
  const cn = fields.CN;
  const o = fields.O;
  return [cn === undefined ? '' : `CN=${String(cn)}`, o === undefined ? '' : `O=${String(o)}`].filter(Boolean).join(', ') || 'no name';
};

/**
 * The refusal of the certificate at `host:port` as an error a person can act on: which name was
 * asked for, what the certificate names and who issued it. It shakes hands once more without
 * checking (and sends nothing) to read the certificate node refused; `address` is where to
 * connect (the address a guard checked). PEER_UNREACHABLE, with `tls` the refusal's code.
 */
export async function certificateRefusal(error: unknown, host: string, port: number, address = host): Promise<LiteError> {
  const code = String((error as { code?: unknown }).code);
  const seen = await peerCertificate(host, port, address).catch(() => undefined);
  const what = seen === undefined ? '' : `; it names ${names(seen.subject)}${seen.subjectaltname ? ` (${seen.subjectaltname})` : ''}, issued by ${names(seen.issuer)}${seen.valid_to ? `, valid until ${seen.valid_to}` : ''}`;
  const hint = code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? '' : code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID' ? '' : '; if its issuer is your own authority, trust it with --tls-ca FILE';
  const reason = code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? `it is not a certificate for "${host}"` : (error as Error).message;
  return new LiteError('PEER_UNREACHABLE', `the TLS certificate of ${host}:${port} was refused: ${reason}${what}${hint}`, { tls: code }, { cause: error });
}

function peerCertificate(host: string, port: number, address: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port, ...(isIP(host) === 0 ? { servername: host } : {}), rejectUnauthorized: false, ...clientTls() }, () => {
      const cert = socket.getPeerCertificate();
      socket.destroy();
      resolve(cert);
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('timed out')));
    socket.on('error', reject);
  });
}
