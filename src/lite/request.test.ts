import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liftTaskHeader, requestOf } from './request.js';
import { parse } from '../protocol/parse.js';

describe('the lite header of a request sent over A2A', () => {
  it.each([
    ['[A2A:task id=research-002 skill=research]\nAI agents', { id: 'research-002', skill: 'research', body: 'AI agents' }],
    ['[A2A:task id=r-1 priority=high]\nfast, please', { id: 'r-1', priority: 'high', body: 'fast, please' }],
    ['@mexico [A2A:task id=r-2]\nhello', { id: 'r-2', body: 'hello' }],
    ['[A2A:task id=r-3 skill=email]', { id: 'r-3', skill: 'email', body: '' }],
  ])('lifts %j', (text, lifted) => {
    expect(liftTaskHeader(text)).toEqual(lifted);
  });

  it.each([
    'no header at all',
    'Hello!\n[A2A:task id=r-1]\nthe header comes second',
    '[A2A:status task=r-1 state=working]\nnot a task',
    '[A2A:task id=../../etc]\nan id that breaks the rules',
    '[A2A:task skill=research]\nno id',
    '',
  ])('leaves %j as text', (text) => {
    expect(liftTaskHeader(text)).toBeUndefined();
  });

  it('never throws, and a lifted body is what the lite grammar reads as the body', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const lifted = liftTaskHeader(text);
        if (lifted !== undefined) expect(lifted.body).toBe(parse(text).body);
      }),
      { numRuns: 3_000 },
    );
  });

  it('round-trips with the request the chat driver makes of a lite task', () => {
    const request = requestOf(parse('[A2A:task id=r-9 priority=low]\nbody text'), 'r-9', 'mexico');
    expect(request.parts).toEqual([{ kind: 'text', text: 'body text' }]);
    expect(request.metadata).toEqual({ a2aLite: { taskId: 'r-9', from: 'mexico', priority: 'low' } });
  });
});
