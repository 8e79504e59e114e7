// The public A2A Agent Card, built from the A2A-Lite card, the address `serve` listens on and
// the capabilities actually on: in 1.0 shape, and as one hybrid object that 0.3 clients read too.
// Lite-only facts travel in an extension so that a lite-aware peer can rebuild the lite card.

import type { LiteCard, Mode } from '../../card/types.js';

/** The extension that carries A2A-Lite facts (framework, channels, protocol) in an A2A card. */
export const LITE_CARD_EXTENSION = 'https://a2a-lite.dev/extensions/lite-card/v1';

const MEDIA_TYPES: Readonly<Record<Mode, string>> = {
  text: 'text/plain',
  file: 'application/octet-stream',
  image: 'image/*',
  audio: 'audio/*',
  video: 'video/*',
};

export interface CardOptions {
  /** Where the server is reached, without a trailing slash: `http://127.0.0.1:7331`. */
  baseUrl: string;
  streaming: boolean;
  pushNotifications: boolean;
  /** The credentials the server requires, declared so that clients know what to send. */
  security?: { bearer?: boolean; apiKeyHeader?: string };
  /** More extensions the server supports, declared after the lite card's (A2A §4.4.4). */
  extensions?: readonly CardExtension[];
  /**
   * Where the gRPC binding is served, when it is: a gRPC target (`host:port`), as the official
   * SDKs dial the interface's URL.
   */
  grpcUrl?: string;
  /** The server gives authenticated clients an extended card (extended-card.ts). */
  extendedCard?: boolean;
}

/** An extension declared in `capabilities.extensions`. */
export interface CardExtension {
  uri: string;
  description: string;
  /** A client that does not speak it cannot use the agent (default false). */
  required?: boolean;
  params?: Record<string, unknown>;
}

/**
 * The security schemes in force, in 1.0 form (one member naming the kind of scheme) and in 0.3
 * form (`type`, `scheme`, `in`). The 1.0 card holds only the first: the 1.0 schema's objects are
 * closed. The hybrid card puts both in one object per scheme, and each reader takes the fields it
 * knows and ignores the others, as both versions require of unknown fields.
 */
function securityOf(security: CardOptions['security']) {
  const v1: Record<string, Record<string, unknown>> = {};
  const v03: Record<string, Record<string, unknown>> = {};
  if (security?.bearer) {
    v1.bearer = { httpAuthSecurityScheme: { scheme: 'Bearer' } };
    v03.bearer = { type: 'http', scheme: 'bearer' };
  }
  if (security?.apiKeyHeader) {
    v1.apiKey = { apiKeySecurityScheme: { location: 'header', name: security.apiKeyHeader } };
    v03.apiKey = { type: 'apiKey', in: 'header', name: security.apiKeyHeader };
  }
  const names = Object.keys(v1);
  return {
    schemes: v1,
    requirements: names.map((name) => ({ schemes: { [name]: { list: [] } } })),
    bothSchemes: Object.fromEntries(names.map((name) => [name, { ...v1[name], ...v03[name] }])),
    v03Requirements: names.map((name) => ({ [name]: [] })),
  };
}

/** An extension as 1.0 declares it: these four fields and no other, `required` always said. */
function extensionOf(extension: CardExtension): Record<string, unknown> {
  const declared: Record<string, unknown> = { uri: extension.uri, description: extension.description, required: extension.required ?? false };
  if (extension.params !== undefined) declared.params = extension.params;
  return declared;
}

/** The JSON-RPC endpoint under the base URL; REST paths hang off the base URL itself. */
export const JSONRPC_PATH = '/jsonrpc';

/**
 * The card in A2A 1.0 shape. Interfaces in order of preference: JSON-RPC 1.0, REST 1.0 (at the
 * base URL), gRPC 1.0 when served, then JSON-RPC 0.3. REST and gRPC come after JSON-RPC so that
 * clients taking the first entry they support keep to JSON-RPC, as before they were served.
 */
export function toAgentCardV1(card: LiteCard, options: CardOptions): Record<string, unknown> {
  const modes = (list: readonly Mode[] | undefined) => [...new Set((list ?? ['text']).map((m) => MEDIA_TYPES[m]))];
  const allInputs: Mode[] = card.skills.flatMap((s) => s.inputModes ?? ['text']);
  const allOutputs: Mode[] = card.skills.flatMap((s) => s.outputModes ?? ['text']);
  const lite: Record<string, unknown> = { protocol: card.protocol, id: card.agent.id, framework: card.agent.framework };
  if (card.channels?.length) lite.channels = card.channels;
  if (card.agent.version) lite.version = card.agent.version;
  const security = securityOf(options.security);
  return {
    name: card.agent.name,
    description: card.description ?? `${card.agent.name}, an A2A-Lite agent`,
    supportedInterfaces: [
      { url: jsonRpcUrl(options), protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: options.baseUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ...(options.grpcUrl === undefined ? [] : [{ url: options.grpcUrl, protocolBinding: 'GRPC', protocolVersion: '1.0' }]),
      { url: jsonRpcUrl(options), protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    version: card.agent.version ?? '1.0.0',
    capabilities: {
      streaming: options.streaming,
      pushNotifications: options.pushNotifications,
      extensions: [
        { uri: LITE_CARD_EXTENSION, description: 'The A2A-Lite card of this agent', required: false, params: lite },
        ...(options.extensions ?? []).map(extensionOf),
      ],
      extendedAgentCard: options.extendedCard === true,
    },
    securitySchemes: security.schemes,
    securityRequirements: security.requirements,
    defaultInputModes: modes(allInputs.length > 0 ? allInputs : undefined),
    defaultOutputModes: modes(allOutputs.length > 0 ? allOutputs : undefined),
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags?.length ? skill.tags : [skill.id],
      inputModes: modes(skill.inputModes),
      outputModes: modes(skill.outputModes),
    })),
  };
}

/**
 * The card for 0.3 clients: the 1.0 card plus the 0.3 fields, which lenient 1.0 readers ignore
 * as unknown (a strict 1.0 schema refuses them, so the handler gives it only where a 0.3 client
 * is likely: card-shape.ts). A 0.3 client reads `url` and posts there without an A2A-Version
 * header, which the handler serves as 0.3. Clients that know both shapes, such as the official
 * SDK, see `supportedInterfaces` and pick 1.0.
 */
export function toHybridAgentCard(card: LiteCard, options: CardOptions): Record<string, unknown> {
  const security = securityOf(options.security);
  return {
    ...toAgentCardV1(card, options),
    protocolVersion: '0.3.0',
    url: jsonRpcUrl(options),
    preferredTransport: 'JSONRPC',
    // 0.3's name for 1.0's `capabilities.extendedAgentCard`.
    supportsAuthenticatedExtendedCard: options.extendedCard === true,
    securitySchemes: security.bothSchemes,
    security: security.v03Requirements,
  };
}

function jsonRpcUrl(options: CardOptions): string {
  return `${options.baseUrl}${JSONRPC_PATH}`;
}
