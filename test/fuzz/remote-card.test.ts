// Fuzzing the remote card reader: any JSON value, mostly a 1.0, 0.3 or hybrid Agent Card bent
// out of shape (hostile URLs, bindings, versions, schemes, deep nesting anywhere), is read into
// what a client needs or refused with INVALID_CARD or CARD_HAS_CREDENTIAL; what it reads becomes
// a valid lite card or is refused the same way. Never another exception.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHybridAgentCard } from '../../src/a2a/wire/agent-card.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { checkCard } from '../../src/card/validate.js';
import { idFromName, readRemoteCard, toLiteCard, type RemoteCard } from '../../src/client/remote-card.js';
import { isLiteError } from '../../src/errors.js';
import { grpcTarget } from '../../src/net/grpc-channel.js';
import { check } from './expect-fast.js';
import { applyEdits, edits, hostileValue, nest } from './json-mutations.js';
import { fuzzOptions, fuzzTarget, fuzzTimeout } from './runs.js';

const CARD_URL = 'http://127.0.0.1:9000/.well-known/agent-card.json';

const v1Card = {
  name: 'Mail Agent',
  description: 'Sends mail',
  version: '2.1.0',
  supportedInterfaces: [
    { url: 'http://127.0.0.1:9000/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: '/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://127.0.0.1:9000/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: true, pushNotifications: false },
  securitySchemes: { token: { httpAuthSecurityScheme: { scheme: 'Bearer' } }, key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } } },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/pdf'],
  skills: [{ id: 'email', name: 'Email', description: 'Writes and sends email', tags: ['email'], inputModes: ['image/png'] }],
};

const v03Card = {
  protocolVersion: '0.3.0',
  name: 'Old Agent',
  url: 'http://127.0.0.1:9001/rpc',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [{ url: 'http://127.0.0.1:9001/grpc', transport: 'GRPC' }, { url: '/rest', transport: 'HTTP+JSON' }],
  capabilities: { streaming: false },
  securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'X-Key' }, basic: { type: 'http', scheme: 'basic' } },
  skills: [{ id: 'calendar', name: 'Calendar', description: 'Books meetings', tags: ['calendar'] }],
};

const hybrid = toHybridAgentCard(jiajiaCard(), { baseUrl: 'http://127.0.0.1:7331', streaming: true, pushNotifications: false, security: { bearer: true, apiKeyHeader: 'X-API-Key' } });

/** Values a card's fields meet in the wild: URLs of every kind, binding and version names. */
const cardValue = fc.oneof(
  { arbitrary: hostileValue, weight: 3 },
  {
    arbitrary: fc.constantFrom(
      'javascript:alert(1)', 'file:///etc/passwd', 'http://u:p@h.example/', 'http://h.example/?api_key=1', 'http://h.example/?q=1#x', '//h.example/x', '/relative',
      '', '::', 'http://[::1]:99999/', 'http://%zz/', 'HTTP://H.EXAMPLE', 'http://h.example/', 'https://h.example:8443/a2a',
      'JSONRPC', 'json-rpc', 'REST', 'http+json', 'GRPC', 'grpc', '1.0', '1.0.1', '0.3', '0.2.5', '0.3.0', '2.0', '1', 'v1',
      'Bearer', 'bearer', 'basic', 'apiKey', 'http', 'header', 'query', 'cookie', 'body',
    ),
    weight: 2,
  },
);

const card = fc.oneof(
  { arbitrary: fc.tuple(fc.constantFrom<unknown>(v1Card, v03Card, hybrid), edits(8000, 64, cardValue)).map(([base, list]) => applyEdits(base, list)), weight: 9 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 8000 }).map((levels) => ({ ...v1Card, securitySchemes: { deep: { httpAuthSecurityScheme: { scheme: nest('bearer', levels) } } } })), weight: 1 },
);

function expectReadable(remote: RemoteCard): void {
  check(typeof remote.name === 'string' && remote.name !== '' && remote.interfaces.length > 0, 'a card read has a name and an interface', remote);
  for (const { url, binding, version } of remote.interfaces) {
    if (binding === 'GRPC') {
      // A gRPC target a2a-lite can dial: host:port, or a grpc(s)/http(s) URL of a host and a port.
      check(version === '1.0' && grpcTarget(url).port > 0, 'gRPC interfaces are targets a2a-lite can dial', url);
      continue;
    }
    const parsed = new URL(url);
    check((parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.username === '' && parsed.password === '', 'interfaces are plain http(s) URLs', url);
    check((binding === 'JSONRPC' || (binding === 'HTTP+JSON' && version === '1.0')) && (version === '1.0' || version === '0.3'), 'only interfaces a2a-lite speaks', { binding, version });
  }
  for (const skill of remote.skills) check(typeof skill.id === 'string' && skill.id !== '' && skill.tags.every((t) => typeof t === 'string'), 'skills have ids and string tags', skill);
}

describe('fuzz: the remote card reader', () => {
  it(
    'reads any card into what a client needs, or refuses it with INVALID_CARD or CARD_HAS_CREDENTIAL',
    () =>
      fuzzTarget('remote card reader', () => {
        fc.assert(
          fc.property(card, (value) => {
            let remote: RemoteCard;
            try {
              remote = readRemoteCard(value, CARD_URL);
            } catch (error) {
              if (!isLiteError(error, 'INVALID_CARD', 'CARD_HAS_CREDENTIAL')) expect.fail(`not a LiteError: ${String(error)}`);
              return;
            }
            expectReadable(remote);
            try {
              const lite = toLiteCard(remote, { id: idFromName(remote.name), baseUrl: 'http://127.0.0.1:9000' });
              check(checkCard(lite).valid, 'the lite card made of it is valid', lite);
            } catch (error) {
              if (!isLiteError(error, 'INVALID_CARD', 'CARD_HAS_CREDENTIAL')) expect.fail(`not a LiteError: ${String(error)}`);
            }
          }),
          fuzzOptions(),
        );
      }),
    fuzzTimeout(500),
  );
});
