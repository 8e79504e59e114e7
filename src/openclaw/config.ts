// The plugin's settings (`plugins.entries.a2a-lite.config` in OpenClaw's config), read strictly:
// an unknown key or a wrong type is refused with its name, as OpenClaw refuses any config error.

import { isAbsolute } from 'node:path';
import { ENV_NAME, TokenRules, type TokenBinding } from '../client/token-rules.js';
import { LiteError } from '../errors.js';

export interface PluginConfig {
  /** The agent's home; default `<workspace>/.a2a-lite` (or $A2A_LITE_HOME). */
  home?: string;
  /** Record every [A2A:…] message received (before the model sees it) or sent (default on). */
  record: boolean;
  /** Answer [A2A:discover] with this agent's card without the model (default on). */
  answerDiscover: boolean;
  /** Refuse outgoing messages that break the protocol or carry a credential (default on). */
  checkOutbound: boolean;
  /** Allow discover and send to reach agents on loopback and private networks (default off). */
  allowPrivateNetworks: boolean;
  /** The language of the card reply: zh or en (default: the language the discover was asked in). */
  lang?: 'zh' | 'en';
  /**
   * The only environment variables the tools may send as a token, each with the one origin its
   * token is for (default none): the model may pick among them, never name another.
   */
  tokens: TokenBinding[];
  /** Certificate authorities (PEM files, absolute paths) trusted besides the system's for HTTPS and WSS. */
  tlsCa?: string[];
}

/** The same rules as JSON Schema, for the manifest. */
export const CONFIG_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    home: { type: 'string', description: "The agent's a2a-lite home (card, known agents, ledger). Default: <workspace>/.a2a-lite" },
    record: { type: 'boolean', description: 'Record every [A2A:…] message received (before the model sees it) or sent in the ledger (default true)' },
    answerDiscover: { type: 'boolean', description: "Answer [A2A:discover] with this agent's card without the model (default true)" },
    checkOutbound: { type: 'boolean', description: 'Refuse outgoing messages that break the A2A-Lite protocol or carry a credential (default true)' },
    allowPrivateNetworks: { type: 'boolean', description: 'Let discover and send reach agents on this machine or the local network (default false; link-local and cloud metadata addresses never)' },
    lang: { type: 'string', enum: ['zh', 'en'], description: 'Language of the [A2A:card] reply (default: that of the question)' },
    tlsCa: {
      type: 'array',
      maxItems: 20,
      description: "Certificate authorities to trust besides the system's for every HTTPS and WSS connection the tools make: absolute paths of PEM files, e.g. a private CA's (default none)",
      items: { type: 'string' },
    },
    tokens: {
      type: 'array',
      maxItems: 100,
      description:
        'The only environment variables the tools may send as a token, each bound to the one origin (scheme://host[:port]) its token is for; the model may choose among them, never name another (default none)',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['env', 'origin'],
        properties: {
          env: { type: 'string', pattern: ENV_NAME.source, description: 'The environment variable holding the token, e.g. MEXICO_TOKEN' },
          origin: { type: 'string', description: 'Where that token may go, e.g. https://agents.example.com (no path)' },
        },
      },
    },
  },
} as const;

const BOOLEANS = ['record', 'answerDiscover', 'checkOutbound', 'allowPrivateNetworks'] as const;

/** Reads the plugin's config; `undefined` is all defaults. */
export function readConfig(value: unknown): PluginConfig {
  const config: PluginConfig = { record: true, answerDiscover: true, checkOutbound: true, allowPrivateNetworks: false, tokens: [] };
  if (value === undefined || value === null) return config;
  if (typeof value !== 'object' || Array.isArray(value)) throw new LiteError('USAGE', 'the a2a-lite plugin config is an object');
  const given = value as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!(key in CONFIG_JSON_SCHEMA.properties)) throw new LiteError('USAGE', `the a2a-lite plugin config has no setting "${key}"; it has ${Object.keys(CONFIG_JSON_SCHEMA.properties).join(', ')}`);
  }
  if (given.home !== undefined) {
    if (typeof given.home !== 'string' || given.home === '') throw new LiteError('USAGE', 'the a2a-lite plugin config: home is a folder path');
    config.home = given.home;
  }
  for (const key of BOOLEANS) {
    if (given[key] === undefined) continue;
    if (typeof given[key] !== 'boolean') throw new LiteError('USAGE', `the a2a-lite plugin config: ${key} is true or false`);
    config[key] = given[key];
  }
  if (given.lang !== undefined) {
    if (given.lang !== 'zh' && given.lang !== 'en') throw new LiteError('USAGE', 'the a2a-lite plugin config: lang is zh or en');
    config.lang = given.lang;
  }
  if (given.tokens !== undefined) config.tokens = readTokens(given.tokens);
  if (given.tlsCa !== undefined) {
    const paths = given.tlsCa;
    if (!Array.isArray(paths) || paths.length > CONFIG_JSON_SCHEMA.properties.tlsCa.maxItems || !paths.every((path) => typeof path === 'string' && isAbsolute(path))) {
      throw new LiteError('USAGE', `the a2a-lite plugin config: tlsCa is a list of at most ${CONFIG_JSON_SCHEMA.properties.tlsCa.maxItems} absolute paths of PEM files`);
    }
    config.tlsCa = paths as string[];
  }
  return config;
}

/** The tools' token rules: only the variables the config names, each to its own origin. */
export function tokenRulesOf(config: Pick<PluginConfig, 'tokens'>): TokenRules {
  return new TokenRules(config.tokens, 'the a2a-lite plugin config (tokens)');
}

/** The `tokens` list: `[{ env: "NAME", origin: "https://host[:port]" }, …]`, each origin written as URL writes it. */
function readTokens(value: unknown): TokenBinding[] {
  const where = 'the a2a-lite plugin config: tokens';
  if (!Array.isArray(value)) throw new LiteError('USAGE', `${where} is a list of { "env": NAME, "origin": "https://host[:port]" }`);
  if (value.length > CONFIG_JSON_SCHEMA.properties.tokens.maxItems) throw new LiteError('USAGE', `${where} holds at most ${CONFIG_JSON_SCHEMA.properties.tokens.maxItems} entries`);
  return value.map((entry: unknown, i) => {
    const at = `${where}[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new LiteError('USAGE', `${at} is an object { "env": NAME, "origin": "https://host[:port]" }`);
    const fields = entry as Record<string, unknown>;
    const unknown = Object.keys(fields).find((key) => key !== 'env' && key !== 'origin');
    if (unknown !== undefined) throw new LiteError('USAGE', `${at} has no field "${unknown.slice(0, 40)}"; it has env and origin`);
    if (typeof fields.env !== 'string' || !ENV_NAME.test(fields.env)) throw new LiteError('USAGE', `${at}.env is the name of an environment variable (letters, digits and _), never the token itself`);
    return { env: fields.env, origin: readOrigin(fields.origin, `${at}.origin`) };
  });
}

function readOrigin(value: unknown, at: string): string {
  const wrong = `${at} is an origin such as https://agents.example.com or http://127.0.0.1:7331: a scheme, a host and a port, no path`;
  if (typeof value !== 'string') throw new LiteError('USAGE', wrong);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new LiteError('USAGE', wrong);
  }
  const bare = (url.pathname === '/' || url.pathname === '') && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !bare || /[?#@]/.test(value)) throw new LiteError('USAGE', wrong);
  return url.origin;
}

/** The config schema in the form a plugin entry gives it to OpenClaw. */
export const configSchema = {
  jsonSchema: CONFIG_JSON_SCHEMA,
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: { path: string[]; message: string }[] } } {
    try {
      readConfig(value);
      return { success: true, data: value };
    } catch (error) {
      return { success: false, error: { issues: [{ path: [], message: error instanceof Error ? error.message : String(error) }] } };
    }
  },
};
