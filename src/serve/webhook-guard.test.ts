import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWebhook, ipBytes, pinnedLookup, refusalOf, type Resolver } from './webhook-guard.js';

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

describe('refusalOf', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique local (private)'],
    ['fc00::1', 'unique local (private)'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local'],
    ['::ffff:0:10.0.0.1', 'IPv4-translated private'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::c0a8:1', 'IPv4-compatible private'],
    ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
    ['64:ff9b::a00:1', 'NAT64 private'],
    ['64:ff9b:1::1', 'local NAT64'],
    ['2002:7f00:1::1', '6to4 loopback'],
    ['2002:c0a8:101::', '6to4 private'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(refusalOf(address)).toBe(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1'])(
    'allows the public address %s',
    (address) => {
      expect(refusalOf(address)).toBeUndefined();
    },
  );

  it('allows private ranges when the operator does, but never unspecified, multicast or reserved', () => {
    for (const address of ['127.0.0.1', '10.1.1.1', '::1', 'fe80::1', '::ffff:127.0.0.1', '100.64.0.1']) expect(refusalOf(address, true), address).toBeUndefined();
    for (const address of ['0.0.0.0', '::', '224.0.0.1', 'ff02::1', '255.255.255.255', '::ffff:0.0.0.0']) expect(refusalOf(address, true), address).toBeDefined();
  });

  it('reads every IPv6 spelling to the same bytes', () => {
    const hex = (address: string) => Buffer.from(ipBytes(address) as Uint8Array).toString('hex');
    expect(hex('::ffff:127.0.0.1')).toBe(hex('0:0:0:0:0:ffff:7f00:0001'));
    expect(hex('1:2:3:4:5:6:7.8.9.10')).toBe('0001000200030004000500060708090a');
    expect(hex('fe80::')).toBe('fe800000000000000000000000000000');
    expect(ipBytes('example.com')).toBeUndefined();
  });
});

describe('checkWebhook with private networks refused (the default)', () => {
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
    await expect(checkWebhook(url, { resolve: dns })).rejects.toMatchObject({ code: 'WEBHOOK_REFUSED', details: { reason } });
  });

  it('says how to allow it, and names the address a host resolved to', async () => {
    await expect(checkWebhook('https://rebind.example/', { resolve: dns })).rejects.toMatchObject({
      message: expect.stringMatching(/"rebind.example" \(127.0.0.1\).*loopback.*--allow-private-webhooks/),
    });
  });

  it('refuses localhost by name with the system resolver too', async () => {
    await expect(checkWebhook('http://localhost:1/')).rejects.toMatchObject({ code: 'WEBHOOK_REFUSED' });
  });

  it('passes a public name, pinned to its first address', async () => {
    const target = await checkWebhook('https://hooks.example/a2a?x=1', { resolve: dns });
    expect(target).toMatchObject({ address: '93.184.215.14', family: 4 });
    expect(target.url.href).toBe('https://hooks.example/a2a?x=1');
  });

  it('reports a name that does not resolve as a bad parameter', async () => {
    await expect(checkWebhook('https://nowhere.example/', { resolve: dns })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: expect.stringContaining('"nowhere.example" does not resolve (ENOTFOUND)'),
    });
  });

  it('refuses other schemes', async () => {
    await expect(checkWebhook('ftp://hooks.example/', { resolve: dns })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });
});

describe('checkWebhook with private networks allowed', () => {
  it('passes loopback, private names and localhost', async () => {
    await expect(checkWebhook('http://127.0.0.1:8080/', { allowPrivateNetworks: true })).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(checkWebhook('http://[::ffff:127.0.0.1]/', { allowPrivateNetworks: true })).resolves.toMatchObject({ address: '::ffff:7f00:1', family: 6 });
    await expect(checkWebhook('https://internal.example/', { allowPrivateNetworks: true, resolve: dns })).resolves.toMatchObject({ address: '10.20.30.40' });
    const local = await checkWebhook('http://localhost:1/', { allowPrivateNetworks: true });
    expect(['127.0.0.1', '::1']).toContain(local.address);
  });

  it('still refuses 0.0.0.0 and multicast', async () => {
    await expect(checkWebhook('http://0.0.0.0/', { allowPrivateNetworks: true })).rejects.toMatchObject({ code: 'WEBHOOK_REFUSED' });
    await expect(checkWebhook('http://[ff02::1]/', { allowPrivateNetworks: true })).rejects.toMatchObject({ code: 'WEBHOOK_REFUSED' });
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
    const target = await checkWebhook(`http://rebind.example:${port}/`, { allowPrivateNetworks: true, resolve: rebinding });
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

describe('link-local, refused apart from the other private ranges', () => {
  it.each([
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['2002:a9fe:a9fe::1', '6to4 link-local'],
  ])('%s is refused with private networks allowed and link-local not', (address, reason) => {
    expect(refusalOf(address, true, false)).toBe(reason);
    expect(refusalOf(address, true)).toBeUndefined();
  });

  it('leaves the other private ranges allowed', async () => {
    expect(refusalOf('127.0.0.1', true, false)).toBeUndefined();
    expect(refusalOf('10.1.2.3', true, false)).toBeUndefined();
    await expect(checkWebhook('http://169.254.169.254/', { allowPrivateNetworks: true, allowLinkLocal: false })).rejects.toMatchObject({ code: 'WEBHOOK_REFUSED' });
    await expect(checkWebhook('http://127.0.0.1:9/', { allowPrivateNetworks: true, allowLinkLocal: false })).resolves.toMatchObject({ address: '127.0.0.1' });
  });
});
