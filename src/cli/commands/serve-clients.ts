// Who may call `serve` and where their answers go back: the credentials of --auth-bearer-env and
// --auth-api-key-env (one principal per variable), and the peers of --reply-to.

import type { AuthOptions, Credential } from '../../a2a/server/auth.js';
import { LiteError } from '../../errors.js';
import type { ReplyPeer } from '../../serve/reply-sender.js';
import type { Context } from '../context.js';
import { credentialsFrom } from '../token-flags.js';

/**
 * Credentials named by environment variable, one token each; the principal of a credential is
 * the variable's name, which is stable across restarts and not secret. The values themselves
 * are never printed.
 */
export function authFrom(values: { 'auth-bearer-env'?: string[]; 'auth-api-key-env'?: string[]; 'api-key-header'?: string }, context: Context): AuthOptions {
  const holders = new Map<string, string>();
  const credentials = (names: string[] | undefined): Credential[] | undefined => credentialsFrom('serve', names, context, holders);
  const auth: AuthOptions = {};
  const bearer = credentials(values['auth-bearer-env']);
  const keys = credentials(values['auth-api-key-env']);
  if (bearer) auth.bearerTokens = bearer;
  if (keys) auth.apiKeys = keys;
  if (values['api-key-header']) {
    if (!values['auth-api-key-env']) throw new LiteError('USAGE', 'serve: --api-key-header needs --auth-api-key-env');
    if (!/^[A-Za-z0-9-]{1,64}$/.test(values['api-key-header'])) throw new LiteError('USAGE', 'serve: --api-key-header is a header name');
    auth.apiKeyHeader = values['api-key-header'];
  }
  return auth;
}

/**
 * The peers to send answers back to, by principal: `--reply-to NAME=URL`, with the token from
 * `--reply-token-env NAME=VAR`. NAME must be a client the server knows.
 */
export function replyPeersFrom(values: { 'reply-to'?: string[]; 'reply-token-env'?: string[]; 'auth-bearer-env'?: string[]; 'auth-api-key-env'?: string[] }, context: Context): Map<string, ReplyPeer> {
  const clients = new Set([...(values['auth-bearer-env'] ?? []), ...(values['auth-api-key-env'] ?? [])]);
  const pairs = (option: string, list: string[] | undefined): Map<string, string> => {
    const out = new Map<string, string>();
    for (const pair of list ?? []) {
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      if (at <= 0 || at === pair.length - 1) throw new LiteError('USAGE', `serve: ${option} takes NAME=VALUE, not ${JSON.stringify(pair.slice(0, 40))}`);
      if (!clients.has(name)) throw new LiteError('USAGE', `serve: ${option} names ${name}, which is no client: give it --auth-bearer-env ${name} (or --auth-api-key-env) first`);
      out.set(name, pair.slice(at + 1));
    }
    return out;
  };
  const urls = pairs('--reply-to', values['reply-to']);
  const tokens = pairs('--reply-token-env', values['reply-token-env']);
  const peers = new Map<string, ReplyPeer>();
  for (const [name, url] of urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new LiteError('USAGE', `serve: --reply-to ${name}=… is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new LiteError('USAGE', `serve: --reply-to ${name}=… is not an http or https URL`);
    const peer: ReplyPeer = { url: parsed.href };
    const variable = tokens.get(name);
    if (variable !== undefined) {
      const token = (context.env[variable] ?? '').trim();
      if (token === '') throw new LiteError('USAGE', `serve: the environment variable ${variable} (--reply-token-env ${name}) is empty or not set`);
      if (!/^[\x21-\x7e]+$/.test(token)) throw new LiteError('USAGE', `serve: the token in ${variable} holds characters a request header cannot carry`);
      peer.token = token;
    }
    peers.set(name, peer);
  }
  for (const name of tokens.keys()) if (!urls.has(name)) throw new LiteError('USAGE', `serve: --reply-token-env ${name}=… without --reply-to ${name}=URL`);
  return peers;
}
