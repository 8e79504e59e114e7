// This agent's own Agent Card (agent-card.json in the home): read it validated, write it
// validated and scanned for credentials. The CLI's `card` commands and the plugin share these.

import { assertCard } from '../card/validate.js';
import { FRAMEWORKS, PROTOCOL_VERSION, type Capabilities, type Framework, type LiteCard, type Skill } from '../card/types.js';
import { LiteError } from '../errors.js';
import { createFileAtomic, readJsonFile, writeFileAtomic } from './atomic-file.js';
import type { Stores } from './stores.js';

/** What a new card says; everything but id and name may be left out. */
export interface CardFields {
  id: string;
  name: string;
  framework?: string | undefined;
  description?: string | undefined;
  version?: string | undefined;
  skills?: readonly Skill[] | undefined;
  channels?: readonly string[] | undefined;
  capabilities?: Partial<Capabilities> | undefined;
  maxFileSize?: string | undefined;
  maxConcurrentTasks?: number | undefined;
  contact?: string | undefined;
  timezone?: string | undefined;
}

/** The card `fields` describe, validated (and scanned for credentials). */
export function newCard(fields: CardFields): LiteCard {
  const framework = fields.framework ?? 'openclaw';
  if (!(FRAMEWORKS as readonly string[]).includes(framework)) throw new LiteError('USAGE', `card init: the framework is one of ${FRAMEWORKS.join(', ')}, not ${JSON.stringify(framework)}`);
  const card: LiteCard = {
    protocol: PROTOCOL_VERSION,
    agent: { id: fields.id, name: fields.name, framework: framework as Framework },
    skills: [...(fields.skills ?? [])],
    capabilities: {
      streaming: fields.capabilities?.streaming ?? false,
      fileTransfer: fields.capabilities?.fileTransfer ?? false,
      asyncTasks: fields.capabilities?.asyncTasks ?? false,
      pushNotifications: fields.capabilities?.pushNotifications ?? false,
    },
    channels: [...(fields.channels ?? [])],
  };
  if (fields.version) card.agent.version = fields.version;
  if (fields.description) card.description = fields.description;
  if (fields.maxFileSize || fields.maxConcurrentTasks !== undefined) {
    card.limits = {};
    if (fields.maxFileSize) card.limits.maxFileSize = fields.maxFileSize;
    if (fields.maxConcurrentTasks !== undefined) card.limits.maxConcurrentTasks = fields.maxConcurrentTasks;
  }
  if (fields.contact || fields.timezone) {
    card.contact = {};
    if (fields.contact) card.contact.human = fields.contact;
    if (fields.timezone) card.contact.timezone = fields.timezone;
  }
  return assertCard(card, 'the new card');
}

/** Writes the card; without `force`, create-only: of two racing writers exactly one wins. */
export function writeOwnCard(stores: Pick<Stores, 'paths'>, card: LiteCard, force = false): string {
  const path = stores.paths.card;
  const text = `${JSON.stringify(assertCard(card, 'the new card'), null, 2)}\n`;
  if (force) writeFileAtomic(path, text);
  else if (!createFileAtomic(path, text)) throw new LiteError('CARD_EXISTS', `${path} already exists; pass --force to replace it`);
  return path;
}

/** This agent's card, validated; a clear error when there is none yet. */
export function readOwnCard(stores: Pick<Stores, 'paths'>): LiteCard {
  const card = readJsonFile(stores.paths.card);
  if (card === undefined) throw new LiteError('CARD_NOT_FOUND', `no card at ${stores.paths.card}; create one with: a2a-lite card init`);
  return assertCard(card, stores.paths.card);
}
