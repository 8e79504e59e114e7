import { describe, expect, it } from 'vitest';
import { HUB_EXTENSION } from '../a2a/wire/hub-trail.js';
import { guardLoop, isSend } from './loop-guard.js';

const rpc = (metadata?: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...(metadata === undefined ? {} : { metadata }) } } });
const trailIn = (body: string, path = '/jsonrpc'): unknown => {
  const value = JSON.parse(body) as { params?: { message: { metadata: Record<string, unknown> } }; message?: { metadata: Record<string, unknown> } };
  return (path === '/jsonrpc' ? value.params?.message : value.message)?.metadata[HUB_EXTENSION];
};

describe('the loop guard', () => {
  it.each([
    ['POST', '/jsonrpc', rpc(), true],
    ['POST', '/', JSON.stringify({ method: 'message/stream' }), true],
    ['POST', '/jsonrpc', JSON.stringify({ method: 'GetTask' }), false],
    ['POST', '/message:send', '{}', true],
    ['POST', '/message:stream', '{}', true],
    ['GET', '/tasks/1', '', false],
  ])('%s %s %s is a send: %s', (method, path, body, expected) => {
    expect(isSend(method, path, body)).toBe(expected);
  });

  it('starts a trail, adds each agent, and keeps what else the metadata holds', () => {
    const first = guardLoop('/jsonrpc', rpc({ skill: 'x' }), 'a');
    expect(trailIn(first)).toEqual({ hops: 1, trail: ['a'] });
    expect((JSON.parse(first) as { params: { message: { metadata: { skill: string } } } }).params.message.metadata.skill).toBe('x');
    const rest = guardLoop('/message:send', JSON.stringify({ message: { metadata: { [HUB_EXTENSION]: { hops: 1, trail: ['a'] } } } }), 'b');
    expect(trailIn(rest, '/message:send')).toEqual({ hops: 2, trail: ['a', 'b'] });
  });

  it('refuses a message that passed through its target, naming the way round', () => {
    expect(() => guardLoop('/jsonrpc', rpc({ [HUB_EXTENSION]: { hops: 2, trail: ['a', 'b', 'c'] } }), 'a')).toThrow('loop refused: this conversation already passed through a (a → b → c → a)');
  });

  it('refuses a message past the most hops', () => {
    expect(() => guardLoop('/jsonrpc', rpc({ [HUB_EXTENSION]: { hops: 3, trail: ['x', 'y', 'z'] } }), 'a', 3)).toThrow('loop refused: this conversation has made 3 hops, the most the hub allows');
  });

  it('leaves alone a body it cannot read, for the agent to answer', () => {
    for (const body of ['not json', '[]', '{"params": 5}', JSON.stringify({ method: 'SendMessage', params: { message: 'text' } })]) expect(guardLoop('/jsonrpc', body, 'a')).toBe(body);
  });

  it('starts afresh from a malformed trail rather than trusting it', () => {
    expect(trailIn(guardLoop('/jsonrpc', rpc({ [HUB_EXTENSION]: { hops: -1, trail: 'a' } }), 'a'))).toEqual({ hops: 1, trail: ['a'] });
  });
});
