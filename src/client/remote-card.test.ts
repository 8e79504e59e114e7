import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHybridAgentCard } from '../a2a/wire/agent-card.js';
import { jiajiaCard } from '../card/examples.js';
import { checkCard } from '../card/validate.js';
import { LiteError, isLiteError } from '../errors.js';
import { idFromName, readRemoteCard, toLiteCard } from './remote-card.js';

const CARD_URL = 'http://127.0.0.1:9000/.well-known/agent-card.json';

const v1Card = {
  name: 'Mail Agent',
  description: 'Sends mail',
  version: '2.1.0',
  supportedInterfaces: [
    { url: 'http://127.0.0.1:9000/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: 'http://127.0.0.1:9000/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    { url: '/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: true, pushNotifications: false },
  securitySchemes: { token: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
  securityRequirements: [{ schemes: { token: { list: [] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/pdf'],
  skills: [{ id: 'email', name: 'Email', description: 'Writes and sends email', tags: ['email', 'send'] }],
};

const v03Card = {
  protocolVersion: '0.3.0',
  name: 'Old Agent',
  description: 'Speaks 0.3',
  url: 'http://127.0.0.1:9001/rpc',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [{ url: 'http://127.0.0.1:9001/grpc', transport: 'GRPC' }],
  version: '0.9',
  capabilities: { streaming: false },
  securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } },
  security: [{ key: [] }],
  defaultInputModes: ['text'],
  defaultOutputModes: ['text'],
  skills: [{ id: 'calendar', name: 'Calendar', description: 'Books meetings', tags: ['calendar'], inputModes: ['text/plain', 'image/png'] }],
};

const problem = (value: unknown): LiteError => {
  try {
    readRemoteCard(value, CARD_URL);
  } catch (error) {
    if (error instanceof LiteError) return error;
    throw error;
  }
  throw new Error('the card was accepted');
};

describe('readRemoteCard', () => {
  it('reads a 1.0 card: interfaces in our order of preference, relative URLs resolved, a gRPC URL with a path noted as not dialable', () => {
    const card = readRemoteCard(v1Card, CARD_URL);
    expect(card.interfaces).toEqual([
      { url: 'http://127.0.0.1:9000/a2a/jsonrpc', binding: 'JSONRPC', version: '1.0' },
      { url: 'http://127.0.0.1:9000/a2a/rest', binding: 'HTTP+JSON', version: '1.0' },
    ]);
    expect(card.unsupported).toEqual(['GRPC 1.0 at http://127.0.0.1:9000/a2a/grpc (not a gRPC target)']);
    expect(card.security).toEqual({ bearer: true, other: [] });
    expect(card.streaming).toBe(true);
    expect(card.skills[0]).toMatchObject({ id: 'email', tags: ['email', 'send'] });
  });

  it('reads a gRPC interface as the gRPC target the SDKs dial, after HTTP+JSON and before 0.3', () => {
    const card = readRemoteCard(
      {
        name: 'g',
        supportedInterfaces: [
          { url: '127.0.0.1:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          { url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
          { url: 'grpcs://agent.example:8443', protocolBinding: 'grpc', protocolVersion: '1.0' },
          { url: 'ftp://agent.example:21', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          { url: '/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        ],
      },
      CARD_URL,
    );
    expect(card.interfaces.map((i) => `${i.binding} ${i.version} ${i.url}`)).toEqual([
      'HTTP+JSON 1.0 http://127.0.0.1:9000/rest',
      'GRPC 1.0 127.0.0.1:50051',
      'GRPC 1.0 grpcs://agent.example:8443',
      'JSONRPC 0.3 http://127.0.0.1:9000/rpc',
    ]);
    expect(card.unsupported).toEqual(['GRPC 1.0 at ftp://agent.example:21 (not a gRPC target)']);
  });

  it('reads a 0.3 card: url and preferredTransport, an API key scheme', () => {
    const card = readRemoteCard(v03Card, CARD_URL);
    expect(card.interfaces).toEqual([{ url: 'http://127.0.0.1:9001/rpc', binding: 'JSONRPC', version: '0.3' }]);
    expect(card.security.apiKey).toEqual({ name: 'X-Key', in: 'header' });
    expect(card.streaming).toBe(false);
  });

  it('reads our own hybrid card, with the lite facts of its extension', () => {
    const hybrid = toHybridAgentCard(jiajiaCard(), { baseUrl: 'http://127.0.0.1:7331', streaming: true, pushNotifications: true, security: { bearer: true } });
    const card = readRemoteCard(hybrid, 'http://127.0.0.1:7331/.well-known/agent-card.json');
    expect(card.interfaces.map((i) => `${i.binding} ${i.version} ${i.url}`)).toEqual([
      'JSONRPC 1.0 http://127.0.0.1:7331/jsonrpc',
      'HTTP+JSON 1.0 http://127.0.0.1:7331',
      'JSONRPC 0.3 http://127.0.0.1:7331/jsonrpc',
    ]);
    expect(card.lite).toMatchObject({ id: 'jiajia', framework: 'clawdbot' });
    expect(card.security.bearer).toBe(true);
  });

  it.each([
    ['not an object', [], 'card must be an object'],
    ['no name', { supportedInterfaces: [] }, 'name is required'],
    ['no interface at all', { name: 'x' }, 'names no way to reach the agent'],
    ['interfaces not a list', { name: 'x', supportedInterfaces: {} }, 'supportedInterfaces must be an array'],
    ['an interface without url', { name: 'x', supportedInterfaces: [{ protocolBinding: 'JSONRPC' }] }, 'supportedInterfaces[0].url is required'],
    ['a file: URL', { name: 'x', supportedInterfaces: [{ url: 'file:///etc/passwd', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }, 'must be http or https'],
    ['only gRPC at a path', { name: 'x', supportedInterfaces: [{ url: 'http://h/g', protocolBinding: 'GRPC', protocolVersion: '1.0' }] }, 'no interface a2a-lite speaks'],
    ['only version 2.0', { name: 'x', supportedInterfaces: [{ url: 'http://h/j', protocolBinding: 'JSONRPC', protocolVersion: '2.0' }] }, 'no interface a2a-lite speaks'],
    ['skills not a list', { ...v1Card, skills: 'email' }, 'skills must be an array'],
    ['a skill without id', { ...v1Card, skills: [{ name: 'x' }] }, 'skills[0].id is required'],
  ])('refuses a card with %s, naming the field', (_what, card, message) => {
    const error = problem(card);
    expect(error.code).toBe('INVALID_CARD');
    expect(error.message).toContain(message);
  });

  it('refuses interface URLs that carry credentials, without repeating them', () => {
    for (const url of ['http://user:secret-pw@h/rpc', 'http://h/rpc?api_key=abc123secret']) {
      const error = problem({ name: 'x', supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
      expect(error.code).toBe('CARD_HAS_CREDENTIAL');
      expect(error.message).not.toMatch(/secret-pw|abc123secret/);
    }
  });

  it('reads a scheme field that is not a string as no value, however deep it nests', () => {
    let deep: unknown = 'bearer';
    for (let i = 0; i < 20_000; i += 1) deep = [deep];
    const interfaces = [{ url: 'http://h/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];
    for (const scheme of [deep, ['bearer']]) {
      const card = readRemoteCard({ name: 'x', supportedInterfaces: interfaces, securitySchemes: { s: { httpAuthSecurityScheme: { scheme } }, k: { type: 'apiKey', name: deep } } }, CARD_URL);
      expect(card.security).toEqual({ bearer: false, other: ['s', 'k'] });
    }
  });

  it('never throws anything but a LiteError on hostile JSON', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ name: fc.string(), supportedInterfaces: fc.array(fc.jsonValue()), skills: fc.jsonValue(), securitySchemes: fc.jsonValue() }, { requiredKeys: [] })), (value) => {
        try {
          readRemoteCard(value, CARD_URL);
        } catch (error) {
          expect(isLiteError(error)).toBe(true);
        }
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('toLiteCard', () => {
  it('makes a valid lite card whose channel is a2a:<url>, with skills, tags and modes', () => {
    const lite = toLiteCard(readRemoteCard(v03Card, CARD_URL), { id: 'old-agent', baseUrl: 'http://127.0.0.1:9001' });
    expect(checkCard(lite).valid).toBe(true);
    expect(lite).toMatchObject({
      protocol: 'a2a-lite/1.0',
      agent: { id: 'old-agent', name: 'Old Agent', framework: 'other', version: '0.9' },
      channels: ['a2a:http://127.0.0.1:9001'],
      capabilities: { streaming: false, fileTransfer: true },
    });
    expect(lite.skills[0]).toMatchObject({ id: 'calendar', tags: ['calendar'], inputModes: ['text', 'image'], outputModes: ['text'] });
  });

  it("recognises the card of OpenClaw's a2a channel as an openclaw agent", () => {
    // The shape OpenClaw 2026.9.6's channel serves: its own description, one skill per agent tagged openclaw.
    const openclaw = {
      name: 'Main',
      description: 'OpenClaw agent gateway using the Agent2Agent protocol.',
      supportedInterfaces: [{ url: 'http://127.0.0.1:18789/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      version: '2026.9.6',
      capabilities: { streaming: false, pushNotifications: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'main', name: 'main', description: 'OpenClaw agent main.', tags: ['openclaw'] }],
    };
    expect(toLiteCard(readRemoteCard(openclaw, 'http://127.0.0.1:18789/.well-known/agent-card.json'), { id: 'main', baseUrl: 'http://127.0.0.1:18789' }).agent.framework).toBe('openclaw');
    const { description: _d, ...undescribed } = openclaw;
    expect(toLiteCard(readRemoteCard(undescribed, CARD_URL), { id: 'main', baseUrl: 'http://127.0.0.1:18789' }).agent.framework).toBe('openclaw');
    const other = { ...undescribed, skills: [{ id: 'x', name: 'x', description: 'x', tags: ['research'] }] };
    expect(toLiteCard(readRemoteCard(other, CARD_URL), { id: 'x', baseUrl: 'http://127.0.0.1:1' }).agent.framework).toBe('other');
  });

  it('makes ids from names', () => {
    expect(idFromName('SDK Peer')).toBe('sdk-peer');
    expect(idFromName('  佳佳 (Research) ')).toBe('佳佳-research');
    expect(idFromName('***')).toBe('agent');
  });
});
