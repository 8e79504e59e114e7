// The key files of signed Agent Cards: a signing key (`card sign --key`, `serve --sign-key`) and
// trusted public keys (`discover --trust-key`, `hub --trust-key`). Keys come from files only,
// never from a flag's value; a private key others may read is warned about.

import { resolve } from 'node:path';
import { MAX_KEY_TEXT, publicKeysFrom, signingKeyFrom, type PublicJwk, type SigningKey } from '../a2a/wire/card-keys.js';
import type { CardSigning } from '../a2a/server/card-signing.js';
import { LiteError } from '../errors.js';
import { readOperatorFile, type OperatorFile } from '../operator-file.js';
import type { Context } from './context.js';
import { note } from './output.js';

/** The signing key in the PEM or JWK file at `path`, named `kid` (default: its RFC 7638 thumbprint). */
export function readSigningKey(context: Context, path: string, option: string, kid?: string): SigningKey {
  const file = resolve(context.cwd, path);
  const { text, mode } = readKeyFile(file, option);
  if (kid !== undefined && !/^[\x21-\x7e]{1,128}$/.test(kid)) throw new LiteError('USAGE', `${option.replace(/key$/, 'kid')}: a key id is 1 to 128 printable ASCII characters`);
  const key = signingKeyFrom(text, path, kid);
  // Group or others may read it: say so, as ssh does, but go on (a container may run as root).
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) note(context, `${option} ${path} may be read by other users of this machine; chmod 600 it`);
  return key;
}

/** The public keys of every file in `paths` (PEM, JWK or JWK set), in order. */
export function readTrustKeys(context: Context, paths: readonly string[], option: string): PublicJwk[] {
  return paths.flatMap((path) => publicKeysFrom(readKeyFile(resolve(context.cwd, path), option).text, path));
}

function readKeyFile(file: string, option: string): OperatorFile {
  return readOperatorFile(file, { label: `the key file ${file} (${option})`, maxBytes: MAX_KEY_TEXT, tooLargeHint: 'too long for a key' });
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
