// The SDK peer's Agent Card in each protocol version's shape: 1.0 lists its interfaces in
// `supportedInterfaces` (ProtoJSON), 0.3 names one `url` and its `preferredTransport`.
import type { AgentCard as AgentCard03 } from 'a2a-js-sdk-v03';

export const CARD_PATH = '/.well-known/agent-card.json';
export const JSONRPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';

const NAME = 'SDK Peer';
const DESCRIPTION = 'A scripted A2A agent served by the official SDK, for interop tests.';
const VERSION = '1.0.0';
const SKILLS = [
  { id: 'echo', name: 'Echo', description: 'Says back what it was sent.', tags: ['echo', 'test'] },
  { id: 'email', name: 'Email', description: 'Pretends to send an email.', tags: ['email', 'send'] },
];
const MODES = ['text'];

/** The 1.0 card as ProtoJSON, the form it takes on the wire; JSON-RPC is listed first, so it is preferred. */
export function cardV1(base: string, bearer: boolean, grpc?: string): Record<string, unknown> {
  const security = bearer
    ? {
        securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'bearer', description: 'The token the test gave the peer.' } } },
        securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      }
    : {};
  return {
    name: NAME,
    description: DESCRIPTION,
    version: VERSION,
    supportedInterfaces: [
      { url: `${base}${JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base}${REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ...(grpc === undefined ? [] : [{ url: grpc, protocolBinding: 'GRPC', protocolVersion: '1.0' }]),
    ],
    capabilities: { streaming: true, pushNotifications: false },
    ...security,
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: SKILLS,
  };
}

/** The 0.3 card, JSON-RPC only. */
export function cardV03(base: string, bearer: boolean): AgentCard03 {
  const security: Pick<AgentCard03, 'securitySchemes' | 'security'> = bearer
    ? {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'The token the test gave the peer.' } },
        security: [{ bearer: [] }],
      }
    : {};
  return {
    name: NAME,
    description: DESCRIPTION,
    version: VERSION,
    protocolVersion: '0.3.0',
    url: `${base}${JSONRPC_PATH}`,
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true, pushNotifications: false },
    ...security,
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: SKILLS,
  };
}
