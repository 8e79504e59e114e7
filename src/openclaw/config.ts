// The plugin's settings (`plugins.entries.a2a-lite.config` in OpenClaw's config), read strictly:
// an unknown key or a wrong type is refused with its name, as OpenClaw refuses any config error.

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
  },
} as const;

const BOOLEANS = ['record', 'answerDiscover', 'checkOutbound', 'allowPrivateNetworks'] as const;

/** Reads the plugin's config; `undefined` is all defaults. */
export function readConfig(value: unknown): PluginConfig {
  const config: PluginConfig = { record: true, answerDiscover: true, checkOutbound: true, allowPrivateNetworks: false };
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
  return config;
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
