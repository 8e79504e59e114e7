// Which IP addresses a request may go to. Each address is judged by the ranges below; IPv6
// forms that carry or translate to an IPv4 address are judged as that address, and cloud
// metadata services are looked for wherever an IPv6 address may embed one.
//
// The WHATWG URL parser has already turned 2130706433, 0x7f.1, 0177.0.0.1 and ①②⑦.0.0.1 into
// 127.0.0.1, so those reach the checks as plain dotted quads.

import { isIP } from 'node:net';

/** `private` ranges are allowed with allowPrivateNetworks; `never` ones are not. */
type Range = readonly [cidr: string, kind: 'private' | 'never', name: string];

/**
 * Cloud metadata services outside link-local: Alibaba, Azure's wire server, Oracle (IPv4);
 * AWS (fd00:ec2::254 and its other services in fd00:ec2::/32) and Google (fd20:ce::254)
 * over IPv6. They hand out the machine's credentials, so they are refused always, like
 * link-local, where the others answer (169.254.169.254, 169.254.170.2, fe80::a9fe:a9fe).
 */
const METADATA: readonly Range[] = [
  ['100.100.100.200/32', 'never', 'cloud metadata'],
  ['168.63.129.16/32', 'never', 'cloud metadata'],
  ['192.0.0.192/32', 'never', 'cloud metadata'],
  ['fd00:ec2::/32', 'never', 'cloud metadata'],
  ['fd20:ce::254/128', 'never', 'cloud metadata'],
];

const V4_RANGES: readonly Range[] = [
  ...METADATA.filter(([cidr]) => !cidr.includes(':')),
  ['0.0.0.0/8', 'never', 'unspecified'],
  ['10.0.0.0/8', 'private', 'private'],
  ['100.64.0.0/10', 'private', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'private', 'loopback'],
  ['169.254.0.0/16', 'never', 'link-local'],
  ['172.16.0.0/12', 'private', 'private'],
  ['192.0.0.0/24', 'private', 'IETF protocol'],
  ['192.0.2.0/24', 'never', 'documentation'],
  ['192.168.0.0/16', 'private', 'private'],
  ['198.18.0.0/15', 'private', 'benchmarking'],
  ['198.51.100.0/24', 'never', 'documentation'],
  ['203.0.113.0/24', 'never', 'documentation'],
  ['224.0.0.0/4', 'never', 'multicast'],
  ['240.0.0.0/4', 'never', 'reserved'],
];

const V6_RANGES: readonly Range[] = [
  ...METADATA.filter(([cidr]) => cidr.includes(':')),
  ['::/128', 'never', 'unspecified'],
  ['::1/128', 'private', 'loopback'],
  ['100::/64', 'never', 'discard'],
  ['2001::/32', 'never', 'Teredo'],
  ['2001:db8::/32', 'never', 'documentation'],
  ['64:ff9b:1::/48', 'private', 'local NAT64'],
  ['fc00::/7', 'private', 'unique local (private)'],
  ['fe80::/10', 'never', 'link-local'],
  ['fec0::/10', 'private', 'site-local'],
  ['ff00::/8', 'never', 'multicast'],
];

/**
 * IPv6 ranges that carry an IPv4 address, and where: a connection to one of these reaches (or
 * is translated to) that IPv4 address, so it is judged as that address.
 */
const EMBEDDING: readonly [cidr: string, name: string, offset: number][] = [
  ['::ffff:0:0/96', 'IPv4-mapped', 12],
  ['::ffff:0:0:0/96', 'IPv4-translated', 12],
  ['64:ff9b::/96', 'NAT64', 12],
  ['2002::/16', '6to4', 2],
  // IPv4-compatible (deprecated). After the ranges above, so :: and ::1 are judged first.
  ['::/96', 'IPv4-compatible', 12],
];

/**
 * Where else an IPv6 address may carry an IPv4 one, so that a translator or tunnel on the way
 * could deliver it there: every place RFC 6052 allows for a NAT64 prefix of 32 to 96 bits (an
 * operator may run NAT64 on any prefix of its own), and an ISATAP interface id. The bytes of
 * the IPv4 address in each.
 */
const RFC6052_PLACES: readonly (readonly number[])[] = [
  [4, 5, 6, 7],
  [5, 6, 7, 9],
  [6, 7, 9, 10],
  [7, 9, 10, 11],
  [9, 10, 11, 12],
  [12, 13, 14, 15],
];

/** Metadata services at link-local addresses, looked for wherever an IPv6 address may embed one. */
const LINK_LOCAL_METADATA = ['169.254.169.254', '169.254.169.253', '169.254.169.123', '169.254.170.2', '169.254.170.23', '169.254.0.23'];
const METADATA_V4 = new Set([...LINK_LOCAL_METADATA, ...METADATA.flatMap(([cidr]) => (cidr.includes(':') ? [] : [cidr.slice(0, -3)]))]);

/**
 * Why `address` may not receive webhooks, e.g. "loopback" or "IPv4-mapped private"; undefined
 * when it may. `address` is an IP literal (IPv6 without brackets, a zone id ignored).
 * Link-local and cloud metadata addresses are refused even with private networks allowed,
 * in every IPv6 form that embeds or translates to them.
 *
 * @example
 * refusalOf('::ffff:127.0.0.1', false); // 'IPv4-mapped loopback'
 * refusalOf('127.0.0.1', true);         // undefined
 * refusalOf('64:ff9b::169.254.169.254', true); // 'NAT64 link-local'
 */
export function refusalOf(address: string, allowPrivateNetworks = false): string | undefined {
  const bytes = ipBytes(address);
  if (bytes === undefined) return 'not an IP address';
  if (bytes.length === 16) {
    for (const [cidr, name, offset] of EMBEDDING) {
      if (!inRange(bytes, cidr) || (name === 'IPv4-compatible' && isSpecialCompatible(bytes))) continue;
      const inner = refusalOf([...bytes.subarray(offset, offset + 4)].join('.'), allowPrivateNetworks);
      return inner === undefined ? embeddedMetadata(bytes) : `${name} ${inner}`;
    }
  }
  for (const [cidr, kind, name] of bytes.length === 4 ? V4_RANGES : V6_RANGES) {
    if (inRange(bytes, cidr) && (kind === 'never' || !allowPrivateNetworks)) return name;
  }
  return bytes.length === 16 ? embeddedMetadata(bytes) : undefined;
}

/**
 * "… cloud metadata" when the IPv6 `bytes` may carry a metadata service's IPv4 address
 * somewhere a translator or tunnel would take it from. NAT64's own 64:ff9b::/32 (the well-known
 * and the local-use prefixes, at any prefix length) and ISATAP are checked for all of
 * link-local; any other prefix for the services' exact addresses only, which no ordinary
 * address holds by chance (one in 2^32 per place).
 */
function embeddedMetadata(bytes: Uint8Array): string | undefined {
  const at = (places: readonly number[]): string => places.map((i) => bytes[i]).join('.');
  if (inRange(bytes, '64:ff9b::/32')) {
    for (const places of RFC6052_PLACES) if (isMetadata(at(places), true)) return 'NAT64 cloud metadata';
  }
  const isatap = bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe && ((bytes[8] as number) & ~0x02) === 0;
  if (isatap && isMetadata(at([12, 13, 14, 15]), true)) return 'ISATAP cloud metadata';
  for (const places of RFC6052_PLACES) if (isMetadata(at(places), false)) return 'IPv4-embedded cloud metadata';
  return undefined;
}

/** A metadata service's IPv4 address; with `linkLocal`, any link-local one too. */
function isMetadata(v4: string, linkLocal: boolean): boolean {
  return METADATA_V4.has(v4) || (linkLocal && v4.startsWith('169.254.'));
}

/** `::` and `::1` lie in the IPv4-compatible range but are not IPv4 addresses. */
function isSpecialCompatible(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 15).every((b) => b === 0) && (bytes[15] === 0 || bytes[15] === 1);
}

function inRange(bytes: Uint8Array, cidr: string): boolean {
  const [base, prefixText] = cidr.split('/') as [string, string];
  const network = ipBytes(base);
  const prefix = Number(prefixText);
  if (network === undefined || network.length !== bytes.length) return false;
  for (let bit = 0; bit < prefix; bit += 1) {
    const mask = 0x80 >> bit % 8;
    if (((bytes[bit >> 3] as number) & mask) !== ((network[bit >> 3] as number) & mask)) return false;
  }
  return true;
}

/** The 4 or 16 bytes of an IP literal; undefined for anything else. */
export function ipBytes(literal: string): Uint8Array | undefined {
  // A zone id (fe80::1%eth0) names the interface, not the address.
  const address = literal.includes(':') ? literal.replace(/%.*$/, '') : literal;
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split('.').map(Number));
  if (family !== 6) return undefined;
  // isIP has vouched for the syntax, so this only has to expand it. A dotted IPv4 tail
  // (::ffff:127.0.0.1) stands for the last two groups.
  let text = address;
  let tail: number[] = [];
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    tail = [(a << 8) | b, (c << 8) | d];
    text = (dotted[1] as string).endsWith('::') ? (dotted[1] as string) : (dotted[1] as string).slice(0, -1);
  }
  const hex = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [head = '', rest] = text.split('::') as [string, string | undefined];
  const left = hex(head);
  const right = [...hex(rest ?? ''), ...tail];
  const words = rest === undefined ? [...left, ...tail] : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  });
  return bytes;
}
