// Reading the Agent Card of any A2A agent: the 1.0 shape (`supportedInterfaces`), the 0.3 shape
// (`url`, `preferredTransport`, `additionalInterfaces`) and our hybrid of both. What a client
// needs is pulled out and checked: the interfaces it can speak, streaming, the security schemes,
// the skills. Then the card becomes an A2A-Lite card for the known-agents cache.

import { LITE_CARD_EXTENSION } from '../a2a/wire/agent-card.js';
import { fieldReader, type Json } from '../a2a/wire/fields.js';
import { assertCard } from '../card/validate.js';
import { FRAMEWORKS, MODES, PROTOCOL_VERSION, type Framework, type LiteCard, type Mode, type Skill } from '../card/types.js';
import { LiteError } from '../errors.js';
import { grpcTarget } from '../net/grpc-channel.js';
import type { Binding, RemoteAccess, RemoteInterface, WireVersion } from '../model/remote-access.js';
import { isSecretName } from '../secrets.js';

export interface RemoteSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  inputModes?: string[];
  outputModes?: string[];
}

export interface RemoteCard extends RemoteAccess {
  name: string;
  description: string;
  version?: string;
  skills: RemoteSkill[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  pushNotifications: boolean;
  /** Interfaces listed but not spoken here (other bindings and versions), as `BINDING version at URL`. */
  unsupported: string[];
  /** The A2A-Lite facts of an a2a-lite agent (the lite-card extension), when the card has them. */
  lite?: Record<string, unknown>;
  /** It offers an extended card to authenticated clients (1.0 `capabilities.extendedAgentCard`, 0.3 `supportsAuthenticatedExtendedCard`). */
  extendedCard?: boolean;
}

const PREFERENCE: readonly [Binding, WireVersion][] = [
  ['JSONRPC', '1.0'],
  ['HTTP+JSON', '1.0'],
  ['GRPC', '1.0'],
  ['JSONRPC', '0.3'],
];

/**
 * Reads an A2A Agent Card (1.0, 0.3, or both in one object) fetched from `cardUrl`. Relative
 * interface URLs are resolved against `cardUrl`. Throws INVALID_CARD naming the first field that
 * is wrong, or naming what is missing when the agent offers no interface a2a-lite speaks.
 *
 * @example
 * readRemoteCard(await (await fetch(url)).json(), url).interfaces[0] // { url, binding: 'JSONRPC', version: '1.0' }
 */
export function readRemoteCard(value: unknown, cardUrl: string): RemoteCard {
  const card = object(value, 'card');
  const name = text(card, 'name', true) as string;
  const found: RemoteInterface[] = [];
  const unsupported: string[] = [];
  const consider = (url: string, binding: string, version: string, path: string, tenant?: string): void => {
    const wire = wireVersion(version);
    const normalized = binding.toUpperCase() === 'JSON-RPC' ? 'JSONRPC' : binding.toUpperCase() === 'REST' ? 'HTTP+JSON' : binding.toUpperCase();
    // A gRPC interface's URL is a gRPC target (host:port), as the SDKs dial it, not a path to resolve.
    const absolute = normalized === 'GRPC' ? grpcUrl(url, cardUrl) : resolve(url, cardUrl, path);
    if (absolute === undefined) {
      unsupported.push(`${binding} ${version || '?'} at ${url.slice(0, 200)} (not a gRPC target)`);
      return;
    }
    if ((normalized === 'JSONRPC' || ((normalized === 'HTTP+JSON' || normalized === 'GRPC') && wire === '1.0')) && wire !== undefined) {
      const entry: RemoteInterface = { url: absolute, binding: normalized, version: wire };
      if (tenant !== undefined && tenant !== '' && wire === '1.0') entry.tenant = tenant;
      found.push(entry);
    } else {
      unsupported.push(`${binding} ${version || '?'} at ${absolute}`);
    }
  };
  const interfaces = card.supportedInterfaces ?? card.supported_interfaces;
  if (interfaces !== undefined) {
    if (!Array.isArray(interfaces)) throw wrong('supportedInterfaces', 'must be an array');
    interfaces.forEach((entry, i) => {
      const path = `supportedInterfaces[${i}]`;
      const item = object(entry, path);
      consider(text(item, 'url', true, path) as string, text(item, 'protocolBinding', true, path) as string, text(item, 'protocolVersion', false, path) ?? '1.0', path, text(item, 'tenant', false, path));
    });
  }
  // The 0.3 fields; a hybrid card lists its 0.3 interface in supportedInterfaces as well.
  const legacyVersion = text(card, 'protocolVersion') ?? '0.3.0';
  if (interfaces === undefined && typeof card.url === 'string') {
    consider(card.url, text(card, 'preferredTransport') ?? 'JSONRPC', legacyVersion, 'url');
    const more = card.additionalInterfaces;
    if (Array.isArray(more)) {
      more.forEach((entry, i) => {
        const path = `additionalInterfaces[${i}]`;
        const item = object(entry, path);
        consider(text(item, 'url', true, path) as string, text(item, 'transport', true, path) as string, legacyVersion, path);
      });
    }
  }
  if (interfaces === undefined && card.url === undefined) throw wrong('supportedInterfaces', 'is missing (and so is the 0.3 url): the card names no way to reach the agent');
  const ordered = PREFERENCE.flatMap(([binding, version]) => found.filter((i) => i.binding === binding && i.version === version)).filter(
    (entry, i, all) => all.findIndex((other) => other.url === entry.url && other.binding === entry.binding && other.version === entry.version && other.tenant === entry.tenant) === i,
  );
  if (ordered.length === 0) {
    throw new LiteError('INVALID_CARD', `the agent offers no interface a2a-lite speaks (JSON-RPC 1.0 or 0.3, HTTP+JSON 1.0, gRPC 1.0); it lists: ${unsupported.join(', ') || 'nothing'}`, {
      cardUrl,
      unsupported,
    });
  }
  const capabilities = card.capabilities === undefined ? {} : object(card.capabilities, 'capabilities');
  const skills = card.skills === undefined ? [] : card.skills;
  if (!Array.isArray(skills)) throw wrong('skills', 'must be an array');
  const result: RemoteCard = {
    cardUrl,
    name,
    description: text(card, 'description') ?? '',
    interfaces: ordered,
    streaming: capabilities.streaming === true,
    pushNotifications: capabilities.pushNotifications === true,
    security: securityOf(card),
    skills: skills.map((entry, i) => skillOf(entry, `skills[${i}]`)),
    defaultInputModes: strings(card, 'defaultInputModes'),
    defaultOutputModes: strings(card, 'defaultOutputModes'),
    unsupported,
  };
  const version = text(card, 'version');
  if (version !== undefined) result.version = version;
  const lite = liteExtension(capabilities);
  if (lite !== undefined) result.lite = lite;
  if (capabilities.extendedAgentCard === true || card.supportsAuthenticatedExtendedCard === true) result.extendedCard = true;
  return result;
}

/** The card as A2A-Lite would have it, for `known-agents/`; its channel is `a2a:<baseUrl>`. */
export function toLiteCard(remote: RemoteCard, options: { id: string; baseUrl: string }): LiteCard {
  const framework = FRAMEWORKS.includes(remote.lite?.framework as Framework) ? (remote.lite?.framework as Framework) : frameworkOf(remote);
  const modesOf = (types: readonly string[] | undefined): Mode[] | undefined => {
    if (types === undefined || types.length === 0) return undefined;
    return [...new Set(types.map(modeOf))];
  };
  const skills: Skill[] = remote.skills.map((s) => {
    const skill: Skill = { id: s.id, name: s.name, description: s.description || s.name };
    if (s.tags.length > 0) skill.tags = s.tags;
    const inputs = modesOf(s.inputModes ?? remote.defaultInputModes);
    const outputs = modesOf(s.outputModes ?? remote.defaultOutputModes);
    if (inputs) skill.inputModes = inputs;
    if (outputs) skill.outputModes = outputs;
    return skill;
  });
  const allModes = skills.flatMap((s) => [...(s.inputModes ?? []), ...(s.outputModes ?? [])]);
  const card: LiteCard = {
    protocol: PROTOCOL_VERSION,
    agent: { id: options.id, name: remote.name, framework },
    skills,
    capabilities: { streaming: remote.streaming, pushNotifications: remote.pushNotifications, fileTransfer: allModes.some((m) => m !== 'text') },
    channels: [`a2a:${options.baseUrl}`],
  };
  if (remote.version !== undefined) card.agent.version = remote.version;
  if (remote.description !== '') card.description = remote.description;
  return assertCard(card, 'card');
}

/**
 * The framework of an agent whose card has no lite facts. OpenClaw's `a2a` channel describes its
 * gateway in its own words and tags every agent it exposes `openclaw`.
 */
function frameworkOf(remote: RemoteCard): Framework {
  const tagged = remote.skills.length > 0 && remote.skills.every((s) => s.tags.some((t) => t.toLowerCase() === 'openclaw'));
  return tagged || /^OpenClaw agent gateway\b/.test(remote.description) ? 'openclaw' : 'other';
}

/** A lower-case id made of the name's letters and digits: "SDK Peer" → "sdk-peer". */
export function idFromName(name: string): string {
  const slug = name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return slug || 'agent';
}

function modeOf(mediaType: string): Mode {
  const type = mediaType.toLowerCase();
  if (type === 'text' || type.startsWith('text/') || type === 'application/json') return 'text';
  for (const mode of MODES) if (type === mode || type.startsWith(`${mode}/`)) return mode;
  return 'file';
}

function securityOf(card: Json): RemoteAccess['security'] {
  const security: RemoteAccess['security'] = { bearer: false, other: [] };
  const schemes = card.securitySchemes;
  if (schemes === undefined || schemes === null) return security;
  for (const [name, value] of Object.entries(object(schemes, 'securitySchemes'))) {
    const scheme = object(value, `securitySchemes.${name}`);
    // 1.0 names the kind of scheme by a member; 0.3 by `type`.
    const http = scheme.httpAuthSecurityScheme as Json | undefined;
    const apiKey = scheme.apiKeySecurityScheme as Json | undefined;
    if ((http && /^bearer$/i.test(word(http.scheme))) || (scheme.type === 'http' && /^bearer$/i.test(word(scheme.scheme)))) {
      security.bearer = true;
    } else if (apiKey || scheme.type === 'apiKey') {
      const where = word(apiKey?.location ?? scheme.in ?? 'header').toLowerCase();
      const keyName = word(apiKey?.name ?? scheme.name ?? '');
      if (keyName !== '' && (where === 'header' || where === 'query' || where === 'cookie')) security.apiKey = { name: keyName, in: where };
      else security.other.push(name);
    } else {
      security.other.push(name);
    }
  }
  return security;
}

function skillOf(value: unknown, path: string): RemoteSkill {
  const skill = object(value, path);
  const id = text(skill, 'id', true, path) as string;
  const result: RemoteSkill = {
    id,
    name: text(skill, 'name', false, path) ?? id,
    description: text(skill, 'description', false, path) ?? '',
    tags: strings(skill, 'tags', path),
  };
  if (skill.inputModes !== undefined) result.inputModes = strings(skill, 'inputModes', path);
  if (skill.outputModes !== undefined) result.outputModes = strings(skill, 'outputModes', path);
  return result;
}

function liteExtension(capabilities: Json): Record<string, unknown> | undefined {
  const extensions = capabilities.extensions;
  if (!Array.isArray(extensions)) return undefined;
  for (const extension of extensions) {
    if (typeof extension === 'object' && extension !== null && (extension as Json).uri === LITE_CARD_EXTENSION) {
      const params = (extension as Json).params;
      if (typeof params === 'object' && params !== null && !Array.isArray(params)) return params as Record<string, unknown>;
    }
  }
  return undefined;
}

function wireVersion(version: string): WireVersion | undefined {
  if (/^1\.0(\.\d+)?$/.test(version)) return '1.0';
  // 0.2 used the method names and shapes 0.3 keeps.
  if (/^0\.[23](\.\d+)?$/.test(version)) return '0.3';
  return undefined;
}

/**
 * A gRPC interface's URL when it is one a2a-lite can dial: host:port, or a grpc(s)/http(s) URL
 * of a host and port. A bare host:port (what gRPC clients take as a target) says nothing of TLS:
 * on a card served over HTTPS it is dialled with TLS (grpcs://), as `serve` declares its port.
 */
function grpcUrl(url: string, cardUrl: string): string | undefined {
  try {
    grpcTarget(url);
  } catch {
    return undefined;
  }
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && cardUrl.startsWith('https:') ? `grpcs://${url}` : url;
}

function resolve(url: string, base: string, path: string): string {
  let absolute: URL;
  try {
    absolute = new URL(url, base);
  } catch {
    throw wrong(`${path}.url`, `is not a URL: ${JSON.stringify(url.slice(0, 200))}`);
  }
  if (absolute.protocol !== 'http:' && absolute.protocol !== 'https:') throw wrong(`${path}.url`, `must be http or https, not ${absolute.protocol}`);
  if (absolute.username !== '' || absolute.password !== '') {
    throw new LiteError('CARD_HAS_CREDENTIAL', `${path}.url carries a user name or password; a2a-lite does not store or send those`, { path });
  }
  for (const key of absolute.searchParams.keys()) {
    if (isSecretName(key)) throw new LiteError('CARD_HAS_CREDENTIAL', `${path}.url carries a credential in its query ("${key}"); a2a-lite does not store it`, { path });
  }
  return absolute.pathname === '/' && absolute.search === '' && absolute.hash === '' ? absolute.origin : absolute.href;
}

/**
 * A field that should hold a word, or '' when it holds anything else. Not String(value): an
 * array nested thousands deep would overflow the stack, and ["bearer"] is no scheme name.
 */
function word(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Card fields are read as every wire object is; a refusal is INVALID_CARD naming the field. */
const fields = fieldReader(wrong);
const object = fields.object;
const at = (path: string, key: string): string => (path ? `${path}.${key}` : key);

function text(object: Json, key: string, required = false, path = ''): string | undefined {
  return required ? fields.requiredString(object, at(path, key), key) : fields.string(object, at(path, key), key);
}

function strings(object: Json, key: string, path = ''): string[] {
  return fields.strings(object, at(path, key), key);
}

function wrong(path: string, problem: string): LiteError {
  return new LiteError('INVALID_CARD', `the agent card's ${path} ${problem}`, { errors: [{ path, message: problem }] });
}
