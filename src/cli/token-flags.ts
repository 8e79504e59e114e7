// Tokens named on the command line by environment variable (`--auth-bearer-env NAME`,
// `--token-env NAME`): each variable holds one token and stands for one principal, named by the
// variable's name, which is stable across restarts and not secret. Values are never printed.

import type { Credential } from '../a2a/server/auth.js';
import { LiteError } from '../errors.js';
import type { Context } from './context.js';

/**
 * The credentials of the variables `names`, checked: set, one token each, no two alike.
 * `holders` carries the tokens seen by an earlier call, so two lists cannot share one either.
 */
export function credentialsFrom(command: string, names: readonly string[] | undefined, context: Context, holders = new Map<string, string>()): Credential[] | undefined {
  if (names === undefined || names.length === 0) return undefined;
  return [...new Set(names)].map((name) => {
    const secret = (context.env[name] ?? '').trim();
    if (secret === '') throw new LiteError('USAGE', `${command}: the environment variable ${name} is empty or not set`);
    if (secret.includes(',')) {
      throw new LiteError('USAGE', `${command}: the environment variable ${name} holds a comma; each variable holds one token, so give each client a variable of its own and repeat the option`);
    }
    // Two clients with one token could not be told apart: whose tasks would they be?
    const holder = holders.get(secret);
    if (holder !== undefined && holder !== name) throw new LiteError('USAGE', `${command}: the environment variables ${holder} and ${name} hold the same token; give each client its own`);
    holders.set(secret, name);
    return { principal: name, secret };
  });
}

/** The token in the variable `name`, for a request header; USAGE when unset or unsendable. */
export function tokenFrom(command: string, option: string, name: string, context: Context): string {
  const token = (context.env[name] ?? '').trim();
  if (token === '') throw new LiteError('USAGE', `${command}: the environment variable ${name} (${option}) is empty or not set`);
  if (!/^[\x21-\x7e]+$/.test(token)) throw new LiteError('USAGE', `${command}: the token in ${name} holds characters a request header cannot carry`);
  return token;
}
