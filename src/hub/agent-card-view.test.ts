import { describe, expect, it } from 'vitest';
import { cardBase, cardProblem, pointedAt, viewOf } from './agent-card-view.js';

const card = {
  name: 'Worker',
  version: '2.1.0',
  url: 'http://10.0.0.5:7331/jsonrpc',
  supportedInterfaces: [
    { url: 'http://10.0.0.5:7331/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://10.0.0.5:7331', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  additionalInterfaces: [{ url: 'https://elsewhere.example/a2a', transport: 'GRPC' }],
  skills: [{ id: 'echo', name: 'Echo', description: 'Says it back', tags: ['talk', 3] }, 'junk'],
};

describe('the card as the hub reads and publishes it', () => {
  it('reads name, version and skills, skipping what is not a skill', () => {
    expect(viewOf(card)).toEqual({ name: 'Worker', description: '', version: '2.1.0', skills: [{ id: 'echo', name: 'Echo', description: 'Says it back', tags: ['talk'] }] });
  });

  it('finds the base of the interfaces and moves them under the hub, leaving other hosts alone', () => {
    expect(cardBase(card)).toBe('http://10.0.0.5:7331');
    const moved = pointedAt(card, cardBase(card), 'http://hub:7400/agents/worker');
    expect(moved.url).toBe('http://hub:7400/agents/worker/jsonrpc');
    expect((moved.supportedInterfaces as { url: string }[]).map((i) => i.url)).toEqual(['http://hub:7400/agents/worker/jsonrpc', 'http://hub:7400/agents/worker']);
    expect((moved.additionalInterfaces as { url: string }[])[0]?.url).toBe('https://elsewhere.example/a2a');
    // The agent's own card is not changed.
    expect(card.url).toBe('http://10.0.0.5:7331/jsonrpc');
  });

  it('does not move a URL that merely starts like the base', () => {
    expect(pointedAt({ url: 'http://a:1/x-other' }, 'http://a:1/x', 'http://hub').url).toBe('http://a:1/x-other');
  });

  it.each([
    [[], 'the agent card is not a JSON object'],
    [{ skills: [] }, 'the agent card has no "name"'],
    [{ name: 'x' }, 'the agent card has no "skills" list'],
    [{ name: 'x', skills: [] }, undefined],
  ])('%j: %s', (value, problem) => {
    expect(cardProblem(value)).toBe(problem);
  });
});
