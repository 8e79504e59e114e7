import { describe, expect, it } from 'vitest';
import { HUB_EXTENSION } from '../a2a/wire/hub-trail.js';
import { nextTrail, viaFor } from './loop-guard.js';

describe('the loop guard', () => {
  it('starts a trail, and adds each agent to one there is', () => {
    expect(nextTrail(undefined, 'a')).toEqual({ hops: 1, trail: ['a'] });
    expect(nextTrail({ [HUB_EXTENSION]: { hops: 1, trail: ['a'] } }, 'b')).toEqual({ hops: 2, trail: ['a', 'b'] });
  });

  it('refuses a message that passed through its target, naming the way round', () => {
    expect(() => nextTrail({ [HUB_EXTENSION]: { hops: 2, trail: ['a', 'b', 'c'] } }, 'a')).toThrow('loop refused: this conversation already passed through a (a → b → c → a)');
  });

  it('refuses a message past the most hops', () => {
    expect(() => nextTrail({ [HUB_EXTENSION]: { hops: 3, trail: ['x', 'y', 'z'] } }, 'a', 3)).toThrow('loop refused: this conversation has made 3 hops, the most the hub allows');
  });

  it('starts afresh from a malformed trail rather than trusting it', () => {
    expect(nextTrail({ [HUB_EXTENSION]: { hops: -1, trail: 'a' } }, 'a')).toEqual({ hops: 1, trail: ['a'] });
  });
});

describe('the hubs a request went through', () => {
  it('names each hub once, in order', () => {
    expect(viaFor('h1', undefined)).toBe('h1');
    expect(viaFor('h2', 'h1')).toBe('h1, h2');
  });

  it('refuses a request that came back to its hub, however the list is spelled', () => {
    for (const incoming of ['h1', 'x, h1', ' h1 ,x', 'x,h1']) expect(() => viaFor('h1', incoming)).toThrow(/came back to the hub that sent it/);
  });

  it('refuses a request past four hubs', () => {
    expect(() => viaFor('h5', 'h1, h2, h3, h4')).toThrow(/passed through 4 hubs/);
  });
});
