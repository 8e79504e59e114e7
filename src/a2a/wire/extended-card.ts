// The extended Agent Card (A2A 1.0 §3.1.11, §13.3): what an operator adds to the public card for
// authenticated clients, read and checked, and laid onto the public card in either shape. The
// fields it may hold have the same form in 1.0 and 0.3, so one overlay serves both.

import { LiteError } from '../../errors.js';
import { jsonDepth } from '../../json-depth.js';
import { findSecrets } from '../../secrets.js';
import { fieldReader, type Json } from './fields.js';

/** A skill of the extended card: a new one, or more about a public one with the same id. */
export interface ExtendedSkill {
  id: string;
  name?: string;
  description?: string;
  tags?: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
}

/**
 * What the extended card adds to the public one, in A2A 1.0 field names: a partial AgentCard.
 * The interfaces, capabilities and security schemes stay the server's: it knows what it serves.
 */
export interface ExtendedCard {
  name?: string;
  description?: string;
  version?: string;
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  /** Added after the public skills; one with a public skill's id is laid over that skill. */
  skills?: ExtendedSkill[];
}

const TEXT_FIELDS = ['name', 'description', 'version', 'documentationUrl', 'iconUrl'] as const;
const LIST_FIELDS = ['defaultInputModes', 'defaultOutputModes'] as const;
const TOP_FIELDS = new Set<string>([...TEXT_FIELDS, ...LIST_FIELDS, 'provider', 'skills']);
const SKILL_TEXT = ['name', 'description'] as const;
const SKILL_LISTS = ['tags', 'examples', 'inputModes', 'outputModes'] as const;
const SKILL_FIELDS = new Set<string>(['id', ...SKILL_TEXT, ...SKILL_LISTS]);
/** Fields the server sets itself: the file is told so by name rather than left to wonder. */
const SERVER_FIELDS = new Set(['supportedInterfaces', 'capabilities', 'securitySchemes', 'securityRequirements', 'signatures', 'url', 'preferredTransport', 'additionalInterfaces', 'protocolVersion', 'security', 'supportsAuthenticatedExtendedCard']);
const MAX_DEPTH = 8;
const MAX_SKILLS = 1000;
const MAX_TEXT = 64 * 1024;

/**
 * Reads the extended card in `value` (from `source`: a file name, for the errors). Throws
 * CARD_HAS_CREDENTIAL when it holds something like a secret (checked first: a card is shown to
 * every authenticated client), else INVALID_CARD naming the first field that is wrong.
 *
 * @example
 * readExtendedCard({ skills: [{ id: 'audit', name: 'Audit', description: 'Audits a ledger', tags: ['finance'] }] }, 'extended.json');
 */
export function readExtendedCard(value: unknown, source = 'the extended card'): ExtendedCard {
  const refuse = (path: string, problem: string): LiteError => new LiteError('INVALID_CARD', `${source}: ${path} ${problem}`);
  const read = fieldReader(refuse);
  if (jsonDepth(value, MAX_DEPTH) > MAX_DEPTH) throw refuse('the card', `nests deeper than ${MAX_DEPTH} levels`);
  const card = read.object(value, 'the card');
  const secrets = findSecrets(card);
  if (secrets.length > 0) {
    throw new LiteError('CARD_HAS_CREDENTIAL', `${source} refused: ${secrets.map((s) => `${s.path || '/'} looks like a credential (${s.kind})`).join('; ')}; keep secrets out of cards`);
  }
  for (const key of Object.keys(card)) {
    if (SERVER_FIELDS.has(key)) throw refuse(key, 'is set by the server from what it serves; leave it out of the extended card');
    if (!TOP_FIELDS.has(key)) throw refuse(key, `is not a field of the extended card (it may hold ${[...TOP_FIELDS].join(', ')})`);
  }
  const out: ExtendedCard = {};
  for (const key of TEXT_FIELDS) {
    const text = read.string(card, key, key);
    if (text !== undefined) out[key] = bounded(text, key, refuse);
  }
  for (const key of LIST_FIELDS) if (card[key] !== undefined) out[key] = textList(card, key, key, read, refuse);
  if (card.provider !== undefined) {
    const provider = read.object(card.provider, 'provider');
    for (const key of Object.keys(provider)) if (key !== 'organization' && key !== 'url') throw refuse(`provider.${key}`, 'is not a field of a provider (organization, url)');
    out.provider = { organization: read.requiredString(provider, 'provider.organization', 'organization'), url: read.requiredString(provider, 'provider.url', 'url') };
  }
  if (card.skills !== undefined) out.skills = skillsOf(card.skills, read, refuse);
  return out;
}

function skillsOf(value: unknown, read: ReturnType<typeof fieldReader>, refuse: (path: string, problem: string) => LiteError): ExtendedSkill[] {
  if (!Array.isArray(value)) throw refuse('skills', 'must be an array');
  if (value.length > MAX_SKILLS) throw refuse('skills', `holds more than ${MAX_SKILLS} skills`);
  const seen = new Set<string>();
  return value.map((entry, i) => {
    const path = `skills[${i}]`;
    const skill = read.object(entry, path);
    for (const key of Object.keys(skill)) if (!SKILL_FIELDS.has(key)) throw refuse(`${path}.${key}`, `is not a field of a skill (${[...SKILL_FIELDS].join(', ')})`);
    const id = bounded(read.requiredString(skill, `${path}.id`, 'id'), `${path}.id`, refuse);
    if (seen.has(id)) throw refuse(`${path}.id`, `repeats the skill id "${id}"`);
    seen.add(id);
    const out: ExtendedSkill = { id };
    for (const key of SKILL_TEXT) {
      const text = read.string(skill, `${path}.${key}`, key);
      if (text !== undefined) out[key] = bounded(text, `${path}.${key}`, refuse);
    }
    for (const key of SKILL_LISTS) if (skill[key] !== undefined) out[key] = textList(skill, key, `${path}.${key}`, read, refuse);
    return out;
  });
}

function textList(object: Json, key: string, path: string, read: ReturnType<typeof fieldReader>, refuse: (path: string, problem: string) => LiteError): string[] {
  const list = read.strings(object, path, key);
  if (list.length > MAX_SKILLS) throw refuse(path, `holds more than ${MAX_SKILLS} entries`);
  return list.map((text, i) => bounded(text, `${path}[${i}]`, refuse));
}

function bounded(text: string, path: string, refuse: (path: string, problem: string) => LiteError): string {
  if (text.length > MAX_TEXT) throw refuse(path, `is longer than ${MAX_TEXT} characters`);
  return text;
}

/**
 * `card` (the public card, 1.0 or hybrid) with `extended` laid over it: its fields replace the
 * card's, its skills are added, a skill of a public id laid over that skill. A new skill needs a
 * name and a description; its tags default to its id, as the public card's do. Throws
 * INVALID_CARD naming a new skill that lacks one.
 */
export function withExtendedCard(card: Json, extended: ExtendedCard): Json {
  const out: Json = { ...card };
  for (const key of [...TEXT_FIELDS, ...LIST_FIELDS]) if (extended[key] !== undefined) out[key] = extended[key];
  if (extended.provider !== undefined) out.provider = { ...extended.provider };
  if (extended.skills !== undefined) {
    const skills = Array.isArray(card.skills) ? (card.skills as Json[]).map((skill) => ({ ...skill })) : [];
    for (const skill of extended.skills) {
      const known = skills.find((s) => s.id === skill.id);
      if (known !== undefined) {
        Object.assign(known, skill);
        continue;
      }
      for (const key of SKILL_TEXT) {
        if (skill[key] === undefined) throw new LiteError('INVALID_CARD', `the extended card's skill "${skill.id}" is not on the public card, so it needs a ${key}`);
      }
      skills.push({ ...skill, tags: skill.tags?.length ? skill.tags : [skill.id] });
    }
    out.skills = skills;
  }
  return out;
}
