// TLS on the command line. `serve` and `hub` take `--tls-cert FILE --tls-key FILE` and read the
// two files again on SIGHUP (a renewed certificate, without a restart or a dropped connection).
// Every command takes `--tls-ca FILE` (repeatable, or A2A_LITE_TLS_CA) to trust a private
// authority besides the system's, for every connection it makes.

import { resolve } from 'node:path';
import { readTlsCredentials, trustAuthorities, type TlsCredentials } from '../net/tls.js';
import type { Listening } from '../net/node-http.js';
import { LiteError } from '../errors.js';
import type { Context } from './context.js';

export const TLS_SERVER_OPTIONS = {
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
} as const;

export const TLS_SERVER_HELP = `  --tls-cert FILE         serve HTTPS (and TLS on --grpc-port) with the certificate chain in FILE
                          (PEM); needs --tls-key.
                          Both files are read again on SIGHUP: new connections get the new
                          certificate, open ones and their streams go on
  --tls-key FILE          the private key of --tls-cert (PEM)`;

/** A server whose certificate can be renewed: the HTTP one, the gRPC one. */
export interface Renewable {
  setTls(credentials: TlsCredentials): void;
}

export interface TlsFiles {
  cert: string;
  key: string;
  credentials: TlsCredentials;
}

/** The certificate and key `--tls-cert`/`--tls-key` name, read and checked; none when neither is given. */
export function tlsFiles(command: string, values: { 'tls-cert'?: string; 'tls-key'?: string }, context: Context): TlsFiles | undefined {
  const certGiven = values['tls-cert'];
  const keyGiven = values['tls-key'];
  if (certGiven === undefined && keyGiven === undefined) return undefined;
  if (certGiven === undefined || keyGiven === undefined) throw new LiteError('USAGE', `${command}: --tls-cert and --tls-key go together`);
  const cert = resolve(context.cwd, certGiven);
  const key = resolve(context.cwd, keyGiven);
  return { cert, key, credentials: readTlsCredentials(cert, key) };
}

/**
 * Reads the files again on each SIGHUP and gives the server what they hold; a file that cannot
 * be read, or a key that does not fit, leaves the certificate in use as it is and says why.
 * Returns the way to stop listening for the signal.
 */
export function reloadTlsOnHangup(files: TlsFiles, servers: Listening | readonly (Renewable | undefined)[], log: (line: string) => void): () => void {
  const renewed = Array.isArray(servers) ? servers.filter((server): server is Renewable => server !== undefined) : [servers as Listening];
  const reload = (): void => {
    try {
      const credentials = readTlsCredentials(files.cert, files.key);
      for (const server of renewed) server.setTls(credentials);
      log(`TLS: read ${files.cert} and ${files.key} again; new connections get that certificate`);
    } catch (error) {
      log(`TLS: kept the certificate in use: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
}

/** Trusts the authorities of `--tls-ca FILE …` in `args`, and of A2A_LITE_TLS_CA (paths split by the system's delimiter). */
export function trustFromArgs(args: readonly string[], context: Context): void {
  const paths: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--tls-ca' && i + 1 < args.length) paths.push(args[++i] as string);
    else if (arg.startsWith('--tls-ca=')) paths.push(arg.slice('--tls-ca='.length));
  }
  const fromEnv = context.env.A2A_LITE_TLS_CA?.trim();
  if (fromEnv) paths.push(...fromEnv.split(process.platform === 'win32' ? ';' : ':').filter((path) => path !== ''));
  // Always set, so that one command run in-process does not inherit another's trust.
  trustAuthorities(paths.map((path) => resolve(context.cwd, path)));
}
