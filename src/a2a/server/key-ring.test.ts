import { describe, expect, it } from 'vitest';
import { KeyRing } from './key-ring.js';

const head = (token: string) => ({ method: 'POST', path: '/jsonrpc', headers: { authorization: `Bearer ${token}` } });

describe('KeyRing', () => {
  it('finds the principal of a token, and none for a wrong one', () => {
    const ring = new KeyRing({ bearerTokens: [{ principal: 'alice', secret: 'tok-a' }, 'tok-default'] });
    expect(ring.principalOf(head('tok-a'), 'x-api-key')).toBe('alice');
    expect(ring.principalOf(head('tok-default'), 'x-api-key')).toBe('default');
    expect(ring.principalOf(head('tok-b'), 'x-api-key')).toBeUndefined();
  });

  it('takes new tokens at once, drops old ones, and tells who lost theirs', () => {
    const ring = new KeyRing({ bearerTokens: [{ principal: 'alice', secret: 'a1' }, { principal: 'bob', secret: 'b1' }, { principal: 'carol', secret: 'c1' }] });
    const told: string[][] = [];
    ring.onRevoke((principals) => told.push([...principals]));
    const change = ring.replace({ bearerTokens: [{ principal: 'alice', secret: 'a2' }, { principal: 'carol', secret: 'c1' }, { principal: 'dave', secret: 'd1' }] });
    expect(change).toEqual({ added: ['dave'], changed: ['alice'], removed: ['bob'] });
    expect(told).toEqual([['alice', 'bob']]);
    expect(ring.principalOf(head('a1'), 'x')).toBeUndefined();
    expect(ring.principalOf(head('a2'), 'x')).toBe('alice');
    expect(ring.principalOf(head('b1'), 'x')).toBeUndefined();
    expect(ring.principalOf(head('c1'), 'x')).toBe('carol');
    expect(ring.principalOf(head('d1'), 'x')).toBe('dave');
  });

  it('tells nobody when nothing was taken away', () => {
    const ring = new KeyRing({ bearerTokens: [{ principal: 'alice', secret: 'a1' }] });
    let told = 0;
    ring.onRevoke(() => (told += 1));
    ring.replace({ bearerTokens: [{ principal: 'alice', secret: 'a1' }, { principal: 'bob', secret: 'b1' }] });
    expect(told).toBe(0);
  });

  it('refuses a replacement in which two principals share a secret, and keeps what it had', () => {
    const ring = new KeyRing({ bearerTokens: [{ principal: 'alice', secret: 'a1' }] });
    expect(() => ring.replace({ bearerTokens: [{ principal: 'alice', secret: 'same' }, { principal: 'bob', secret: 'same' }] })).toThrow(/alice and bob are the same secret/);
    expect(ring.principalOf(head('a1'), 'x')).toBe('alice');
  });

  it('never names a secret in its refusal', () => {
    try {
      new KeyRing({ bearerTokens: [{ principal: 'a', secret: 'hunter2-secret' }], apiKeys: [{ principal: 'b', secret: 'hunter2-secret' }] });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('keeps its kinds, and a listener that throws does not stop the others', () => {
    const ring = new KeyRing({ apiKeys: [{ principal: 'k', secret: 'key-1' }] });
    expect([ring.bearer, ring.apiKey]).toEqual([false, true]);
    const told: string[] = [];
    ring.onRevoke(() => {
      throw new Error('boom');
    });
    const stop = ring.onRevoke((principals) => told.push(...principals));
    ring.replace({ apiKeys: [] });
    expect(told).toEqual(['k']);
    expect(ring.principalOf({ method: 'GET', path: '/', headers: { 'x-api-key': 'key-1' } }, 'x-api-key')).toBeUndefined();
    stop();
    ring.replace({ apiKeys: [{ principal: 'k', secret: 'key-2' }] });
    ring.replace({ apiKeys: [] });
    expect(told).toEqual(['k']);
  });
});
