import { describe, expect, it } from 'vitest';
import { ipBytes, refusalOf } from './address-ranges.js';

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
    ['fd00:ec2::254', 'cloud metadata'],
    ['fd00::1', 'unique local (private)'],
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

  it('allows private ranges when the operator does, but never unspecified, multicast, reserved, link-local or metadata', () => {
    for (const address of ['127.0.0.1', '10.1.1.1', '::1', 'fd00::1', '::ffff:127.0.0.1', '100.64.0.1', '64:ff9b:1::a00:1']) expect(refusalOf(address, true), address).toBeUndefined();
    for (const address of ['0.0.0.0', '::', '224.0.0.1', 'ff02::1', '255.255.255.255', '::ffff:0.0.0.0', 'fe80::1', '169.254.1.1']) expect(refusalOf(address, true), address).toBeDefined();
  });

  it('reads every IPv6 spelling to the same bytes', () => {
    const hex = (address: string) => Buffer.from(ipBytes(address) as Uint8Array).toString('hex');
    expect(hex('::ffff:127.0.0.1')).toBe(hex('0:0:0:0:0:ffff:7f00:0001'));
    expect(hex('1:2:3:4:5:6:7.8.9.10')).toBe('0001000200030004000500060708090a');
    expect(hex('fe80::')).toBe('fe800000000000000000000000000000');
    expect(ipBytes('example.com')).toBeUndefined();
  });
});
