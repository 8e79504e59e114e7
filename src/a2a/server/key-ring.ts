// The credentials a server accepts, as one object that can be replaced while it runs: a token
// rotated or withdrawn (`serve` and `hub` reread their token files on SIGHUP) takes effect with
// the next request, and whoever holds what the old token opened (streams, relay links) is told
// which principals lost theirs. Secrets are kept only as digests, compared in constant time.

import { createHash, timingSafeEqual } from 'node:crypto';
import { LiteError } from '../../errors.js';
import type { RequestHead } from '../../net/http-types.js';

/** A secret and the principal it belongs to. */
export interface Credential {
  /**
   * Who presents it: the tasks its requests make are theirs alone. Not a secret: it is stored
   * with the tasks (`serve` uses the name of the environment variable holding the secret).
   */
  principal: string;
  secret: string;
}

/** The principal of a credential given as a bare string. */
export const DEFAULT_PRINCIPAL = 'default';

/** Bearer tokens and API keys; a bare string is a credential of the principal `default`. */
export interface CredentialLists {
  bearerTokens?: readonly (string | Credential)[];
  apiKeys?: readonly (string | Credential)[];
}

/** What a replacement changed, by principal. */
export interface KeyChange {
  added: string[];
  changed: string[];
  removed: string[];
}

interface Accepted {
  digest: Buffer;
  principal: string;
}

/**
 * The accepted credentials, replaceable at run time. Which kinds a server takes (bearer tokens,
 * API keys) is fixed when the ring is made, as the card declares them; `replace` swaps the
 * secrets.
 *
 * @example
 * const keys = new KeyRing({ bearerTokens: [{ principal: 'alice', secret: process.env.ALICE! }] });
 * createA2AHandler({ agent, baseUrl, auth: { keys } });
 * keys.replace({ bearerTokens: [{ principal: 'alice', secret: rotated }] }); // alice's old streams close
 */
export class KeyRing {
  readonly bearer: boolean;
  readonly apiKey: boolean;
  private bearerTokens: readonly Accepted[];
  private apiKeys: readonly Accepted[];
  private readonly listeners = new Set<(principals: readonly string[]) => void>();

  constructor(lists: CredentialLists) {
    this.bearer = lists.bearerTokens !== undefined && lists.bearerTokens.length > 0;
    this.apiKey = lists.apiKeys !== undefined && lists.apiKeys.length > 0;
    [this.bearerTokens, this.apiKeys] = accept(lists);
  }

  /**
   * Takes `lists` in place of the credentials held; throws USAGE (and changes nothing) when two
   * principals would share a secret. A principal whose secret changed or went away is told to
   * the `onRevoke` listeners; a new secret works at once.
   */
  replace(lists: CredentialLists): KeyChange {
    const [bearer, keys] = accept(lists);
    const before = secretsByPrincipal([...this.bearerTokens, ...this.apiKeys]);
    const after = secretsByPrincipal([...bearer, ...keys]);
    this.bearerTokens = bearer;
    this.apiKeys = keys;
    const change: KeyChange = { added: [], changed: [], removed: [] };
    for (const [principal, secrets] of after) {
      const old = before.get(principal);
      if (old === undefined) change.added.push(principal);
      else if ([...old].some((secret) => !secrets.has(secret))) change.changed.push(principal);
    }
    for (const principal of before.keys()) if (!after.has(principal)) change.removed.push(principal);
    const revoked = [...change.changed, ...change.removed];
    if (revoked.length > 0) {
      for (const listener of [...this.listeners]) {
        try {
          listener(revoked);
        } catch {
          // One holder's failure to let go does not keep the others from doing so.
        }
      }
    }
    return change;
  }

  /** Tells `listener` of principals whose credential was changed or withdrawn; returns what stops it. */
  onRevoke(listener: (principals: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The principal whose credential `head` carries, or undefined when it carries none valid. */
  principalOf(head: RequestHead, apiKeyHeader: string): string | undefined {
    const authorization = head.headers.authorization ?? '';
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    const byToken = token !== undefined && this.bearerTokens.length > 0 ? find(digest(token), this.bearerTokens) : undefined;
    if (byToken !== undefined) return byToken;
    const key = head.headers[apiKeyHeader];
    return key !== undefined && this.apiKeys.length > 0 ? find(digest(key.trim()), this.apiKeys) : undefined;
  }
}

function accept(lists: CredentialLists): [Accepted[], Accepted[]] {
  const bearer = (lists.bearerTokens ?? []).map(accepted);
  const keys = (lists.apiKeys ?? []).map(accepted);
  checkDistinct([...bearer, ...keys]);
  return [bearer, keys];
}

function secretsByPrincipal(all: readonly Accepted[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { digest: value, principal } of all) {
    const set = out.get(principal) ?? new Set<string>();
    set.add(value.toString('hex'));
    out.set(principal, set);
  }
  return out;
}

/**
 * Compares against every accepted value, each in constant time: the time taken tells
 * nothing about how much of a guess was right, nor which value it was close to.
 */
function find(candidate: Buffer, accepted: readonly Accepted[]): string | undefined {
  let found: string | undefined;
  for (const value of accepted) if (timingSafeEqual(candidate, value.digest)) found ??= value.principal;
  return found;
}

function accepted(credential: string | Credential): Accepted {
  return typeof credential === 'string'
    ? { digest: digest(credential), principal: DEFAULT_PRINCIPAL }
    : { digest: digest(credential.secret), principal: credential.principal };
}

/** Refuses one secret held by two principals, naming the principals, never the secret. */
function checkDistinct(all: readonly Accepted[]): void {
  const owners = new Map<string, string>();
  for (const { digest: value, principal } of all) {
    const other = owners.get(value.toString('hex'));
    if (other !== undefined && other !== principal) {
      throw new LiteError('USAGE', `the credentials of ${other} and ${principal} are the same secret; each principal needs its own`);
    }
    owners.set(value.toString('hex'), principal);
  }
}

/** Equal-length digests, so that timingSafeEqual can compare secrets of any length. */
function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}
