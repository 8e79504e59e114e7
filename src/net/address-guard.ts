// Where a request to an address someone else chose may go (SSRF): a URL's host is resolved
// once, every address it resolves to is judged (address-ranges.ts), and the request then
// connects to the address that was checked, so that a second DNS answer (rebinding) cannot
// send it elsewhere. Outbound requests (outbound.ts) run this on every hop, redirects included.
//
//   URL ─► hostname ─► localhost? ─► IP literal, or dns.lookup(all) ─► every address allowed? ─► pin one

import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { LiteError } from '../errors.js';
import { refusalOf } from './address-ranges.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all of its addresses. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** An address the guard refused, for the caller to word: what was asked, where it led and why not. */
export interface Refused {
  url: URL;
  host: string;
  address: string;
  reason: string;
  /** Whether a setting that allows private networks would allow it (never for link-local or metadata). */
  allowable: boolean;
}

export interface AddressGuardOptions {
  /**
   * Allow loopback, private and CGNAT targets; never link-local or cloud metadata addresses,
   * unspecified, multicast or reserved ones.
   */
  allowPrivateNetworks?: boolean;
  /**
   * Host names allowed on private addresses when private networks are not (an operator's one
   * agent on the local network): matched exactly, in any case; never link-local or metadata.
   */
  allowPrivateHosts?: readonly string[];
  /** `dns.lookup` with `all: true` unless given; tests give their own. */
  resolve?: Resolver;
  /** The error a refusal is (default: FORBIDDEN, saying where and why). */
  refuse?: (refused: Refused) => Error;
}

/** A URL whose address passed the checks; connect to `address`, not to the name again. */
export interface CheckedAddress {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * Resolves the URL's host and checks every address it has; the guard's refusal (FORBIDDEN
 * unless the options word it) when any is refused, INVALID_PARAMS when the URL is not http(s)
 * or the name does not resolve.
 *
 * @example
 * await checkAddress('http://127.0.0.1:7331/');                    // FORBIDDEN: loopback
 * await checkAddress('http://127.0.0.1:7331/', { allowPrivateNetworks: true }); // { address: '127.0.0.1', … }
 */
export async function checkAddress(url: string | URL, options: AddressGuardOptions = {}): Promise<CheckedAddress> {
  const parsed = typeof url === 'string' ? parseUrl(url) : url;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new LiteError('INVALID_PARAMS', `a URL to call is http or https, not ${parsed.protocol}`);
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const name = host.toLowerCase().replace(/\.$/, '');
  const allow = options.allowPrivateNetworks === true || (options.allowPrivateHosts ?? []).some((allowed) => allowed.toLowerCase().replace(/\.$/, '') === name);
  const refuse = (address: string, reason: string): Error => {
    // Whether any setting allows it: link-local, metadata and reserved addresses never are.
    const allowable = address === 'localhost' || refusalOf(address, true) === undefined;
    return (options.refuse ?? refusedRequest)({ url: parsed, host, address, reason, allowable });
  };
  if (!allow && (name === 'localhost' || name.endsWith('.localhost'))) throw refuse('localhost', 'loopback');
  const family = isIP(host);
  const addresses: ResolvedAddress[] = family === 0 ? await resolveAll(host, options.resolve ?? systemResolver) : [{ address: host, family: family as 4 | 6 }];
  for (const { address } of addresses) {
    const reason = refusalOf(address, allow);
    if (reason !== undefined) throw refuse(address, reason);
  }
  const [first] = addresses as [ResolvedAddress];
  return { url: parsed, address: first.address, family: first.family };
}

/** `"host"`, or `"host" (address)` when the name led to it: how a refusal names the place. */
export function placeOf(refused: Pick<Refused, 'host' | 'address'>): string {
  return refused.host === refused.address ? `"${refused.host}"` : `"${refused.host}" (${refused.address})`;
}

/** The default refusal: FORBIDDEN, naming the place and the kind of address. */
function refusedRequest(refused: Refused): LiteError {
  const hint = refused.allowable ? 'private networks are not allowed here' : 'no setting allows it';
  return new LiteError('FORBIDDEN', `no request may go to ${placeOf(refused)}: it is a ${refused.reason} address; ${hint}`, { host: refused.host, address: refused.address, reason: refused.reason, allowable: refused.allowable });
}

/**
 * A `lookup` for `http.request` that answers with the checked address whatever name it is
 * asked, so the connection goes where the check looked. Node asks with `all: true` when it
 * races address families (Node 20's default), and without it otherwise.
 */
export function pinnedLookup(target: CheckedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    const reply = callback as (error: NodeJS.ErrnoException | null, address: string | ResolvedAddress[], family?: number) => void;
    if (typeof options === 'object' && options.all) reply(null, [{ address: target.address, family: target.family }]);
    else reply(null, target.address, target.family);
  };
}

const systemResolver: Resolver = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })) as ResolvedAddress[];

async function resolveAll(host: string, resolve: Resolver): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    throw new LiteError('INVALID_PARAMS', `the host "${host}" does not resolve${typeof code === 'string' ? ` (${code})` : ''}`, { host }, { cause: err });
  }
  if (addresses.length === 0) throw new LiteError('INVALID_PARAMS', `the host "${host}" has no address`, { host });
  return addresses;
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new LiteError('INVALID_PARAMS', 'a URL to call must be an absolute URL');
  }
}
