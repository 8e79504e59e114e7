// Who may call `serve` and where their answers go back: the credentials of --auth-bearer-env and
// --auth-api-key-env (one principal per variable), of --auth-bearer-file and --auth-api-key-file
// (one per file, read again on SIGHUP), and the peers of --reply-to.

import type { AuthOptions, Credential } from '../../a2a/server/auth.js';
import { CredentialSources } from '../credential-sources.js';
import { parseTokenFiles } from '../token-files.js';
import { LiteError } from '../../errors.js';
import type { ReplyPeer } from '../../serve/reply-sender.js';
import type { Context } from '../context.js';
import { credentialsFrom } from '../token-flags.js';

type AuthValues = { 'auth-bearer-env'?: string[]; 'auth-api-key-env'?: string[]; 'auth-bearer-file'?: string[]; 'auth-api-key-file'?: string[]; 'api-key-header'?: string };

/**
 * Credentials named by environment variable (the principal is the variable's name) or by file
 * (`NAME=PATH`: the principal is NAME), one token each; names are stable across restarts and
 * not secret. The tokens themselves are never printed. `sources` reads the files again on SIGHUP.
 */
export function authFrom(values: AuthValues, context: Context): { auth: AuthOptions; sources: CredentialSources } {
  const holders = new Map<string, string>();
  const credentials = (names: string[] | undefined): Credential[] | undefined => credentialsFrom('serve', names, context, holders);
  const warn = (line: string): void => void context.stderr.write(`${line}\n`);
  const sources = new CredentialSources(
    'serve',
    { env: credentials(values['auth-bearer-env']) ?? [], files: parseTokenFiles('serve', '--auth-bearer-file', values['auth-bearer-file'], context.cwd) },
    { env: credentials(values['auth-api-key-env']) ?? [], files: parseTokenFiles('serve', '--auth-api-key-file', values['auth-api-key-file'], context.cwd) },
    warn,
  );
  const auth: AuthOptions = sources.ring === undefined ? {} : { keys: sources.ring };
  if (values['api-key-header']) {
    if (!values['auth-api-key-env'] && !values['auth-api-key-file']) throw new LiteError('USAGE', 'serve: --api-key-header needs --auth-api-key-env or --auth-api-key-file');
    if (!/^[A-Za-z0-9-]{1,64}$/.test(values['api-key-header'])) throw new LiteError('USAGE', 'serve: --api-key-header is a header name');
    auth.apiKeyHeader = values['api-key-header'];
  }
  return { auth, sources };
}

/** The principals `values` name: variables' names and files' NAMEs. */
function clientsOf(values: AuthValues): Set<string> {
  const named = (pairs: string[] | undefined): string[] => (pairs ?? []).map((pair) => pair.slice(0, Math.max(0, pair.indexOf('='))));
  return new Set([...(values['auth-bearer-env'] ?? []), ...(values['auth-api-key-env'] ?? []), ...named(values['auth-bearer-file']), ...named(values['auth-api-key-file'])]);
}

/**
 * The peers to send answers back to, by principal: `--reply-to NAME=URL`, with the token from
 * `--reply-token-env NAME=VAR`. NAME must be a client the server knows.
 */
export function replyPeersFrom(values: AuthValues & { 'reply-to'?: string[]; 'reply-token-env'?: string[] }, context: Context): Map<string, ReplyPeer> {
  const clients = clientsOf(values);
  const pairs = (option: string, list: string[] | undefined): Map<string, string> => {
    const out = new Map<string, string>();
    for (const pair of list ?? []) {
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      if (at <= 0 || at === pair.length - 1) throw new LiteError('USAGE', `serve: ${option} takes NAME=VALUE, not ${JSON.stringify(pair.slice(0, 40))}`);
      if (!clients.has(name)) throw new LiteError('USAGE', `serve: ${option} names ${name}, which is no client: give it --auth-bearer-env ${name} (or --auth-api-key-env, or a token file) first`);
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
