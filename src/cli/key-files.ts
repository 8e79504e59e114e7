// The key files of signed Agent Cards: a signing key (`card sign --key`, `serve --sign-key`) and
// trusted public keys (`discover --trust-key`, `hub --trust-key`). Keys come from files only,
// never from a flag's value; a private key others may read is warned about.

import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { MAX_KEY_TEXT, publicKeysFrom, signingKeyFrom, type PublicJwk, type SigningKey } from '../a2a/wire/card-keys.js';
import type { CardSigning } from '../a2a/server/card-signing.js';
import { LiteError } from '../errors.js';
import type { Context } from './context.js';
import { note } from './output.js';

/** The signing key in the PEM or JWK file at `path`, named `kid` (default: its RFC 7638 thumbprint). */
export function readSigningKey(context: Context, path: string, option: string, kid?: string): SigningKey {
  const file = resolve(context.cwd, path);
  const text = readKeyFile(file, option);
  if (kid !== undefined && !/^[\x21-\x7e]{1,128}$/.test(kid)) throw new LiteError('USAGE', `${option.replace(/key$/, 'kid')}: a key id is 1 to 128 printable ASCII characters`);
  const key = signingKeyFrom(text, path, kid);
  // Group or others may read it: say so, as ssh does, but go on (a container may run as root).
  try {
    if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) note(context, `${option} ${path} may be read by other users of this machine; chmod 600 it`);
  } catch {
    // Read a moment ago; a stat that fails now changes nothing.
  }
  return key;
}

/** The public keys of every file in `paths` (PEM, JWK or JWK set), in order. */
export function readTrustKeys(context: Context, paths: readonly string[], option: string): PublicJwk[] {
  return paths.flatMap((path) => publicKeysFrom(readKeyFile(resolve(context.cwd, path), option), path));
}

function readKeyFile(file: string, option: string): string {
  let buffer: Buffer;
  try {
    buffer = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new LiteError('FILE_NOT_FOUND', `${option}: no file ${file}`);
    throw new LiteError('IO_ERROR', `${option}: could not read ${file} (${code ?? 'unknown'})`);
  }
  if (buffer.length > MAX_KEY_TEXT) throw new LiteError('INVALID_KEY', `${option}: ${file} is over ${MAX_KEY_TEXT} bytes, too long for a key`);
  return buffer.toString('utf8');
}

/** `serve --sign-key FILE [--sign-kid ID] [--sign-jku URL]`: how the served card is signed, if it is. */
export function signingFrom(values: { 'sign-key'?: string; 'sign-kid'?: string; 'sign-jku'?: string }, context: Context): CardSigning | undefined {
  const path = values['sign-key'];
  if (path === undefined) {
    if (values['sign-kid'] !== undefined || values['sign-jku'] !== undefined) throw new LiteError('USAGE', 'serve: --sign-kid and --sign-jku need --sign-key FILE');
    return undefined;
  }
  const key = readSigningKey(context, path, '--sign-key', values['sign-kid']);
  const jku = values['sign-jku'];
  if (jku === undefined) return { key };
  if (!URL.canParse(jku) || !/^https?:$/.test(new URL(jku).protocol)) throw new LiteError('USAGE', 'serve: --sign-jku is an http:// or https:// URL');
  return { key, jku };
}
