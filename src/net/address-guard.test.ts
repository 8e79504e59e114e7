import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { checkAddress, pinnedLookup, type Resolver } from './address-guard.js';
import { ipBytes, refusalOf } from './address-ranges.js';
import { LiteError } from '../errors.js';

/** A resolver that answers from a table, and counts what it was asked. */
function fakeDns(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(resolve, { asked });
}

const dns = fakeDns({
  'hooks.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'rebind.example': ['127.0.0.1'],
  'internal.example': ['10.20.30.40'],
  'mixed.example': ['93.184.215.14', '192.168.1.10'],
  'mapped.example': ['::ffff:169.254.169.254'],
});

describe('checkAddress with private networks refused (the default)', () => {
  it.each([
    ['loopback', 'http://127.0.0.1:8080/hook', 'loopback'],
    ['private 10/8', 'http://10.0.0.5/hook', 'private'],
    ['private 192.168/16', 'https://192.168.1.1/', 'private'],
    ['link-local (cloud metadata)', 'http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['CGNAT', 'http://100.64.12.1/', 'carrier-grade NAT'],
    ['IPv6 loopback', 'http://[::1]:9000/', 'loopback'],
    ['IPv6 unique local', 'http://[fd00::1]/', 'unique local (private)'],
    ['IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
    ['IPv4-mapped IPv6 in hex', 'http://[::ffff:7f00:1]/', 'IPv4-mapped loopback'],
    ['IPv4-compatible IPv6', 'http://[::10.0.0.1]/', 'IPv4-compatible private'],
    ['NAT64', 'http://[64:ff9b::169.254.169.254]/', 'NAT64 link-local'],
    ['decimal integer IPv4', 'http://2130706433/', 'loopback'],
    ['hex integer IPv4', 'http://0x7f000001/', 'loopback'],
    ['octal IPv4', 'http://0177.0.0.1/', 'loopback'],
    ['short IPv4', 'http://127.1/', 'loopback'],
    ['zero', 'http://0/', 'unspecified'],
    ['0.0.0.0', 'http://0.0.0.0:7331/', 'unspecified'],
    ['percent-encoded host', 'http://%31%32%37.0.0.1/', 'loopback'],
    ['localhost', 'http://localhost:7331/', 'loopback'],
    ['LOCALHOST with a dot', 'http://LOCALHOST./', 'loopback'],
    ['a .localhost name', 'http://api.localhost/', 'loopback'],
    ['a name that resolves to loopback', 'https://rebind.example/hook', 'loopback'],
    ['a name that resolves to a private address', 'https://internal.example/', 'private'],
    ['a name with one private address among public ones', 'https://mixed.example/', 'private'],
    ['a name that resolves to IPv4-mapped metadata', 'https://mapped.example/', 'IPv4-mapped link-local'],
  ])('refuses %s: %s', async (_what, url, reason) => {
    await expect(checkAddress(url, { resolve: dns })).rejects.toMatchObject({ code: 'FORBIDDEN', details: { reason } });
  });

  it('says how to allow it, and names the address a host resolved to', async () => {
    await expect(checkAddress('https://rebind.example/', { resolve: dns })).rejects.toMatchObject({
      message: 'no request may go to "rebind.example" (127.0.0.1): it is a loopback address; private networks are not allowed here',
    });
  });

  it('words the refusal as the caller asks, with everything it needs to', async () => {
    const refuse = ({ url, address, reason, allowable }: { url: URL; address: string; reason: string; allowable: boolean }) =>
      new LiteError('WEBHOOK_REFUSED', `${url.host} → ${address}: ${reason}${allowable ? ' (allowable)' : ''}`);
    await expect(checkAddress('https://rebind.example:8/', { resolve: dns, refuse })).rejects.toMatchObject({ code: 'WEBHOOK_REFUSED', message: 'rebind.example:8 → 127.0.0.1: loopback (allowable)' });
    await expect(checkAddress('http://169.254.169.254/', { refuse })).rejects.toMatchObject({ message: '169.254.169.254 → 169.254.169.254: link-local' });
  });

  it('allows the private addresses of the host names it is told to, and no others', async () => {
    const options = { resolve: dns, allowPrivateHosts: ['Rebind.Example.'] };
    await expect(checkAddress('https://rebind.example/', options)).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(checkAddress('https://internal.example/', options)).rejects.toMatchObject({ code: 'FORBIDDEN', details: { reason: 'private' } });
    await expect(checkAddress('http://127.0.0.1/', options)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const metadata = fakeDns({ 'trusted.example': ['169.254.169.254'] });
    await expect(checkAddress('http://trusted.example/', { resolve: metadata, allowPrivateHosts: ['trusted.example'] })).rejects.toMatchObject({ details: { reason: 'link-local' } });
  });

  it('refuses localhost by name with the system resolver too', async () => {
    await expect(checkAddress('http://localhost:1/')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('passes a public name, pinned to its first address', async () => {
    const target = await checkAddress('https://hooks.example/a2a?x=1', { resolve: dns });
    expect(target).toMatchObject({ address: '93.184.215.14', family: 4 });
    expect(target.url.href).toBe('https://hooks.example/a2a?x=1');
  });

  it('reports a name that does not resolve as a bad parameter', async () => {
    await expect(checkAddress('https://nowhere.example/', { resolve: dns })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: expect.stringContaining('"nowhere.example" does not resolve (ENOTFOUND)'),
    });
  });

  it('refuses other schemes', async () => {
    await expect(checkAddress('ftp://hooks.example/', { resolve: dns })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });
});

describe('checkAddress with private networks allowed', () => {
  it('passes loopback, private names and localhost', async () => {
    await expect(checkAddress('http://127.0.0.1:8080/', { allowPrivateNetworks: true })).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(checkAddress('http://[::ffff:127.0.0.1]/', { allowPrivateNetworks: true })).resolves.toMatchObject({ address: '::ffff:7f00:1', family: 6 });
    await expect(checkAddress('https://internal.example/', { allowPrivateNetworks: true, resolve: dns })).resolves.toMatchObject({ address: '10.20.30.40' });
    const local = await checkAddress('http://localhost:1/', { allowPrivateNetworks: true });
    expect(['127.0.0.1', '::1']).toContain(local.address);
  });

  it('still refuses 0.0.0.0 and multicast', async () => {
    await expect(checkAddress('http://0.0.0.0/', { allowPrivateNetworks: true })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(checkAddress('http://[ff02::1]/', { allowPrivateNetworks: true })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('pinnedLookup', () => {
  const servers: http.Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  it('connects to the checked address, without asking DNS again (no rebinding)', async () => {
    const server = http.createServer((req, res) => res.end(req.headers.host));
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    // The first answer is the one checked; a rebinding DNS would answer differently next time.
    const rebinding = fakeDns({ 'rebind.example': ['127.0.0.1'] });
    const target = await checkAddress(`http://rebind.example:${port}/`, { allowPrivateNetworks: true, resolve: rebinding });
    const host = await new Promise<string>((resolve, reject) => {
      http
        .get(target.url, { lookup: pinnedLookup(target), agent: false }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
    // rebind.example exists nowhere else: the request reached the server only through the pin.
    expect(host).toBe(`rebind.example:${port}`);
    expect(rebinding.asked).toEqual(['rebind.example']);
  });
});


describe('link-local and cloud metadata addresses, refused even with private networks allowed', () => {
  it.each([
    ['169.254.169.254', 'link-local'],
    ['169.254.170.2', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::a9fe:a9fe', 'link-local'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['FD00:0EC2:0000:0000:0000:0000:0000:0254', 'cloud metadata'],
    ['fd00:ec2::23', 'cloud metadata'],
    ['fd20:ce::254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['168.63.129.16', 'cloud metadata'],
    ['192.0.0.192', 'cloud metadata'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['::ffff:100.100.100.200', 'IPv4-mapped cloud metadata'],
    ['::ffff:0:168.63.129.16', 'IPv4-translated cloud metadata'],
    ['::192.0.0.192', 'IPv4-compatible cloud metadata'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 link-local'],
    ['64:ff9b::100.100.100.200', 'NAT64 cloud metadata'],
    ['64:ff9b:1:a9fe:a9:fe00::', 'NAT64 cloud metadata'],
    ['64:ff9b:1::a9fe:a9fe', 'NAT64 cloud metadata'],
    ['64:ff9b:a9fe:107::', 'NAT64 cloud metadata'],
    ['2002:a9fe:a9fe::1', '6to4 link-local'],
    ['2002:6464:64c8::', '6to4 cloud metadata'],
    ['2001:0:4136:e378:8000:63bf:5601:5601', 'Teredo'],
    ['2a01:4f8:1:2:200:5efe:169.254.169.254', 'ISATAP cloud metadata'],
    ['2a01:4f8::a9fe:a9fe', 'IPv4-embedded cloud metadata'],
    ['2a01:4f8:a9fe:a9fe::', 'IPv4-embedded cloud metadata'],
    ['fe80::1%eth0', 'link-local'],
  ])('%s (%s)', (address, reason) => {
    expect(refusalOf(address, true)).toBe(reason);
    expect(refusalOf(address)).toBeDefined();
  });

  it('leaves the other private ranges allowed, and says that no setting allows metadata', async () => {
    await expect(checkAddress('http://127.0.0.1:9/', { allowPrivateNetworks: true })).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(checkAddress('http://[fd00:ec2::254]/latest/meta-data/', { allowPrivateNetworks: true })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: 'no request may go to "fd00:ec2::254": it is a cloud metadata address; no setting allows it',
    });
  });

  it('checks metadata names on the addresses they resolve to', async () => {
    const cloud = fakeDns({
      'metadata.google.internal': ['169.254.169.254'],
      metadata: ['100.100.100.200'],
      'instance-data': ['fd00:ec2::254'],
      'instance-data.ec2.internal': ['10.0.0.2', '64:ff9b::a9fe:a9fe'],
      'wireserver.example': ['168.63.129.16'],
      'lan.example': ['10.0.0.2'],
    });
    for (const [name, reason] of [
      ['metadata.google.internal', 'link-local'],
      ['metadata', 'cloud metadata'],
      ['instance-data', 'cloud metadata'],
      ['instance-data.ec2.internal', 'NAT64 link-local'],
      ['wireserver.example', 'cloud metadata'],
    ] as const) {
      await expect(checkAddress(`http://${name}/`, { allowPrivateNetworks: true, resolve: cloud }), name).rejects.toMatchObject({ code: 'FORBIDDEN', details: { reason } });
    }
    await expect(checkAddress('http://lan.example/', { allowPrivateNetworks: true, resolve: cloud })).resolves.toMatchObject({ address: '10.0.0.2' });
    expect(cloud.asked).toContain('metadata.google.internal');
  });

  it('refuses every spelling and IPv6 embedding of every metadata address (property)', async () => {
    const property = fc.asyncProperty(metadataSpelling(), async ({ url, literal }) => {
      if (literal !== undefined) expect(refusalOf(literal, true), literal).toBeDefined();
      await expect(checkAddress(url, { allowPrivateNetworks: true }), url).rejects.toMatchObject({ code: 'FORBIDDEN' });
      if (literal !== undefined) {
        const resolve = fakeDns({ 'cloud.example': [literal] });
        await expect(checkAddress('http://cloud.example/', { allowPrivateNetworks: true, resolve }), literal).rejects.toMatchObject({ code: 'FORBIDDEN' });
      }
    });
    await fc.assert(property, { numRuns: 3_000 });
  });
});

/** The IPv4 addresses of metadata services (and a link-local one no service uses), and the IPv6 ones. */
const METADATA_V4 = ['169.254.169.254', '169.254.170.2', '169.254.0.23', '169.254.7.9', '100.100.100.200', '168.63.129.16', '192.0.0.192'];
const METADATA_V6 = ['fd00:ec2::254', 'fd00:ec2::23', 'fd20:ce::254'];

/** Bytes spelled as an IPv6 literal: any case, padded or not, a zero run compressed or not, a dotted tail or not. */
function spellV6(bytes: Uint8Array, style: { upper: boolean; pad: boolean; compress: boolean; dotted: boolean }): string {
  const words = Array.from({ length: 8 }, (_, i) => (((bytes[i * 2] as number) << 8) | (bytes[i * 2 + 1] as number)).toString(16));
  const groups = (style.dotted ? words.slice(0, 6) : words).map((word) => (style.pad ? word.padStart(4, '0') : word));
  let text = groups.join(':');
  if (style.compress) {
    const zero = style.pad ? '0000' : '0';
    let best: [number, number] = [-1, 0];
    for (let at = 0; at < groups.length; at += 1) {
      let end = at;
      while (groups[end] === zero) end += 1;
      if (end - at > best[1]) best = [at, end - at];
    }
    if (best[0] >= 0) text = `${groups.slice(0, best[0]).join(':')}::${groups.slice(best[0] + best[1]).join(':')}`;
  }
  if (style.dotted) text += `${text.endsWith('::') ? '' : ':'}${[...bytes.subarray(12)].join('.')}`;
  return style.upper ? text.toUpperCase() : text;
}

/** An IPv4 address spelled as the URL parser reads it: 1 to 4 parts, each decimal, octal or hex, perhaps a final dot. */
function spellV4(v4: string, parts: 1 | 2 | 3 | 4, bases: number[], dot: boolean): string {
  const bytes = v4.split('.').map(Number);
  const value = (from: number): number => bytes.slice(from).reduce((n, b) => n * 256 + b, 0);
  const numbers = parts === 4 ? bytes : [...bytes.slice(0, parts - 1), value(parts - 1)];
  const spelled = numbers.map((n, i) => {
    const base = bases[i % bases.length] as number;
    if (base === 8) return n === 0 ? '0' : `0${n.toString(8)}`;
    if (base === 16) return `0x${n.toString(16)}`;
    return String(n);
  });
  return `${spelled.join('.')}${dot ? '.' : ''}`;
}

/** The IPv6 bytes of `v4` embedded in `form`, the other bytes taken from `noise`. */
function embed(v4: string, form: string, noise: Uint8Array): Uint8Array {
  const four = v4.split('.').map(Number);
  const bytes = Uint8Array.from(noise);
  const put = (places: number[], prefix: number[] = []): Uint8Array => {
    prefix.forEach((b, i) => (bytes[i] = b));
    places.forEach((at, i) => (bytes[at] = four[i] as number));
    return bytes;
  };
  const zero = (from: number, to: number): void => void bytes.fill(0, from, to);
  switch (form) {
    case 'mapped':
      zero(0, 10);
      return put([12, 13, 14, 15], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]);
    case 'translated':
      zero(0, 12);
      return put([12, 13, 14, 15], [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0]);
    case 'compatible':
      zero(0, 12);
      return put([12, 13, 14, 15]);
    case 'nat64':
      zero(0, 12);
      return put([12, 13, 14, 15], [0, 0x64, 0xff, 0x9b]);
    case '6to4':
      return put([2, 3, 4, 5], [0x20, 0x02]);
    case 'teredo':
      return put([12, 13, 14, 15], [0x20, 0x01, 0, 0]).map((b, i) => (i >= 12 ? b ^ 0xff : b));
    case 'isatap':
      return put([12, 13, 14, 15], [...noise.subarray(0, 8), (noise[8] as number) & 0x02, 0, 0x5e, 0xfe]);
    default: {
      // 'local-48' … 'local-96': the local-use NAT64 prefix; 'wkp-32' … 'wkp-64': the well-known
      // one at a length it should not have; 'nsp-32' … 'nsp-96': any prefix of that length.
      const [kind, length] = form.split('-') as [string, string];
      const places = { 32: [4, 5, 6, 7], 40: [5, 6, 7, 9], 48: [6, 7, 9, 10], 56: [7, 9, 10, 11], 64: [9, 10, 11, 12], 96: [12, 13, 14, 15] }[Number(length) as 32] as number[];
      bytes[8] = 0;
      return put(places, kind === 'local' ? [0, 0x64, 0xff, 0x9b, 0, 1] : kind === 'wkp' ? [0, 0x64, 0xff, 0x9b] : []);
    }
  }
}

const V6_FORMS = ['mapped', 'translated', 'compatible', 'nat64', '6to4', 'teredo', 'isatap', 'local-48', 'local-56', 'local-64', 'local-96', 'wkp-32', 'wkp-40', 'wkp-48', 'wkp-56', 'wkp-64', 'nsp-32', 'nsp-40', 'nsp-48', 'nsp-56', 'nsp-64', 'nsp-96'];

/** A URL (and, for IPv6, the literal) that reaches a metadata address by some spelling or embedding. */
function metadataSpelling(): fc.Arbitrary<{ url: string; literal?: string }> {
  const style = fc.record({ upper: fc.boolean(), pad: fc.boolean(), compress: fc.boolean(), dotted: fc.boolean() });
  const v4Url = fc
    .tuple(fc.constantFrom(...METADATA_V4), fc.constantFrom(1, 2, 3, 4), fc.array(fc.constantFrom(8, 10, 16), { minLength: 1, maxLength: 4 }), fc.boolean())
    .map(([v4, parts, bases, dot]) => ({ url: `http://${spellV4(v4, parts as 1 | 2 | 3 | 4, bases, dot)}/latest/meta-data/` }));
  const embedded = fc.tuple(fc.constantFrom(...METADATA_V4.filter((v4) => !v4.endsWith('.7.9'))), fc.constantFrom(...V6_FORMS), fc.uint8Array({ minLength: 16, maxLength: 16 }), style).map(([v4, form, noise, how]) => spellV6(embed(v4, form, noise), how));
  const linkLocal = fc.tuple(fc.constantFrom('mapped', 'translated', 'compatible', 'nat64', '6to4', 'teredo', 'isatap', 'local-48', 'local-56', 'local-64', 'local-96', 'wkp-32', 'wkp-40', 'wkp-48', 'wkp-56', 'wkp-64'), fc.uint8Array({ minLength: 16, maxLength: 16 }), style).map(([form, noise, how]) => spellV6(embed('169.254.7.9', form, noise), how));
  const v6 = fc.tuple(fc.constantFrom(...METADATA_V6), style).map(([address, how]) => spellV6(ipBytes(address) as Uint8Array, how));
  const literal = fc.oneof(embedded, linkLocal, v6).map((address) => ({ url: `http://[${address}]:80/`, literal: address }));
  return fc.oneof(v4Url, literal);
}
