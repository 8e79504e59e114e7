// Recovers a card from an `[A2A:card]` reply written by `render` or by any agent in its own
// words, so that a card learned in chat can be cached. Reads line by line with bounded work per
// line; takes what it finds and reports what it could not.

import { parse } from '../protocol/parse.js';
import { FRAMEWORKS, PROTOCOL_VERSION, type Capabilities, type Framework, type LiteCard, type Skill } from './types.js';

/** What `parseCardReply` could read, and which fields it had to leave out. */
export interface CardReply {
  /** The message type the text holds: `card`, or `plain` for text without a header. */
  type: string;
  /** The card as far as it could be recovered; `agent.id` or `agent.name` may be empty. */
  card: LiteCard;
  /** Fields found in the text, e.g. `agent.name`, `skills`, `capabilities.fileTransfer`. */
  found: string[];
  /** Required fields that could not be found (`agent.id`, `agent.name`). */
  missing: string[];
}

/** A card reply is short; past these bounds the text is not read further. */
const MAX_LINES = 500;
const MAX_LINE_LENGTH = 2000;

const BULLET = /^\s{0,8}[-*•·]\s{0,8}/;
/** `(id)` right before the colon that starts a skill's description, as `render` writes it. */
const ID_BEFORE_COLON = /\s?[(（]([^()（）\s]{1,64})[)）]\s{0,3}[:：]/;
const TRAILING_ID = /\s?[(（]([^()（）\s]{1,64})[)）]$/;
const CHANNELS = /^\s{0,8}(?:可达通道|通道|channels?)\s{0,8}[:：]/i;
const FRAMEWORK = /(?:运行在|运行于|基于|running on|built on|runs on)\s{0,8}([A-Za-z]{1,32})/i;
const NEGATION = /不支持|不能|无法|没有|\bno\b|\bnot\b|n't\b|\bcannot\b|\bwithout\b|\bunsupported\b/i;
const AFFIRMS = /支持|support|可以|能|can\b|\bno\b|\bnot\b|n't\b/i;
/** Clauses end at sentence marks and at "but"; a comma or "、" only separates list items. */
const CLAUSE_END = /[，;；。]|\.\s|,? but |但是?|不过/i;
const CAPABILITY_KEYS: readonly (readonly [keyof Capabilities, RegExp])[] = [
  ['fileTransfer', /文件|file/i],
  ['streaming', /流式|stream/i],
  ['asyncTasks', /异步|async/i],
  ['pushNotifications', /推送|push|webhook/i],
];

/**
 * Reads an `[A2A:card]` reply (or plain text describing an agent) into a card.
 *
 * @example
 * parseCardReply('[A2A:card]\n我是 Mexico，运行在 OpenClaw 上。\n我的能力：\n- 邮件发送：通过 SMTP 发送邮件和附件')
 * // card.agent = { id: 'mexico', name: 'Mexico', framework: 'openclaw' }, one skill with id '邮件发送'
 */
export function parseCardReply(text: string): CardReply {
  const message = parse(text);
  const lines = message.body
    .split('\n')
    .slice(0, MAX_LINES)
    .map((line) => (line.length > MAX_LINE_LENGTH ? line.slice(0, MAX_LINE_LENGTH) : line));
  const found: string[] = [];

  let identity: { name: string; id?: string } | undefined;
  for (const line of lines) {
    identity = readIdentity(line);
    if (identity !== undefined) break;
  }
  const name = identity?.name ?? '';
  if (name !== '') found.push('agent.name');
  const id = message.params.id ?? identity?.id ?? slug(name);
  if (id !== '') found.push('agent.id');

  let frameworkWord: string | undefined;
  for (const line of lines) {
    frameworkWord = FRAMEWORK.exec(line)?.[1]?.toLowerCase();
    if (frameworkWord !== undefined) break;
  }
  const framework: Framework = (FRAMEWORKS as readonly string[]).includes(frameworkWord ?? '') ? (frameworkWord as Framework) : 'other';
  if (frameworkWord !== undefined) found.push('agent.framework');

  const skills: Skill[] = [];
  const prose: string[] = [];
  let channels: string[] | undefined;
  for (const line of lines) {
    const channel = CHANNELS.exec(line);
    if (channel !== null) {
      channels = line.slice(channel[0].length).split(/[,，、\s]+/).filter(Boolean);
      continue;
    }
    const skill = readSkill(line);
    if (skill === undefined) prose.push(line);
    else if (!skills.some((s) => s.id === skill.id)) skills.push(skill);
  }
  if (skills.length > 0) found.push('skills');
  const capabilities = readCapabilities(prose);
  for (const key of Object.keys(capabilities)) found.push(`capabilities.${key}`);
  if (channels) found.push('channels');

  const card: LiteCard = { protocol: PROTOCOL_VERSION, agent: { id, name, framework }, skills };
  if (Object.keys(capabilities).length > 0) card.capabilities = capabilities;
  if (channels) card.channels = channels;
  const missing = [id === '' ? 'agent.id' : '', name === '' ? 'agent.name' : ''].filter(Boolean);
  return { type: message.type, card, found, missing };
}

/** "我是 X，运行在 …" / "I am X, running on …": the name, and an id written as "X (id)". */
function readIdentity(line: string): { name: string; id?: string } | undefined {
  let raw: string | undefined;
  const zh = line.indexOf('我是');
  if (zh !== -1) {
    const rest = line.slice(zh + 2);
    const stop = firstIndex(rest, ['，', '。', '运行', ' running']);
    raw = rest.slice(0, stop);
  } else {
    const en = /\bI(?:'m| am)\s/i.exec(line);
    if (en === null) return undefined;
    const rest = line.slice(en.index + en[0].length);
    const marker = lastIndex(rest, [', running on', ', built on', ', runs on']);
    if (marker !== -1) raw = rest.slice(0, marker);
    else if (rest.trimEnd().endsWith('.') && !rest.includes(',')) raw = rest.trimEnd().slice(0, -1);
    else raw = rest.slice(0, firstIndex(rest, [',', '. ']));
  }
  const text = raw.trim().replace(/[.,，。]$/, '').trim();
  if (text === '') return undefined;
  const id = TRAILING_ID.exec(text);
  return id === null ? { name: text } : { name: text.slice(0, id.index).trim(), id: id[1] as string };
}

/** "- 调研助手 (research)：收集…", or without an id "- 邮件发送：通过 SMTP …". */
function readSkill(line: string): Skill | undefined {
  const bullet = BULLET.exec(line);
  if (bullet === null || bullet[0].trim() === '') return undefined;
  const rest = line.slice(bullet[0].length);
  const withId = ID_BEFORE_COLON.exec(rest);
  let name: string;
  let id: string;
  let description: string;
  if (withId !== null) {
    name = rest.slice(0, withId.index).trim();
    id = withId[1] as string;
    description = rest.slice(withId.index + withId[0].length).trim();
  } else {
    const colon = firstIndex(rest, [':', '：']);
    name = rest.slice(0, colon).trim();
    description = colon === rest.length ? '' : rest.slice(colon + 1).trim();
    const trailing = TRAILING_ID.exec(name);
    id = trailing === null ? slug(name) : (trailing[1] as string);
    if (trailing !== null) name = name.slice(0, trailing.index).trim();
  }
  return name === '' || id === '' ? undefined : { id, name, description };
}

function readCapabilities(lines: readonly string[]): Capabilities {
  const capabilities: Capabilities = {};
  for (const line of lines) {
    for (const clause of line.replace(/[ \t]+/g, ' ').split(CLAUSE_END)) {
      if (!AFFIRMS.test(clause)) continue;
      const negative = NEGATION.test(clause);
      for (const [key, pattern] of CAPABILITY_KEYS) {
        if (pattern.test(clause) && capabilities[key] === undefined) capabilities[key] = !negative;
      }
    }
  }
  return capabilities;
}

function firstIndex(text: string, needles: readonly string[]): number {
  let best = text.length;
  for (const needle of needles) {
    const at = text.indexOf(needle);
    if (at !== -1 && at < best) best = at;
  }
  return best;
}

function lastIndex(text: string, needles: readonly string[]): number {
  let best = -1;
  for (const needle of needles) best = Math.max(best, text.lastIndexOf(needle));
  return best;
}

/** A name as an id: lower case, runs of other characters become "-". Keeps CJK letters. */
export function slug(name: string): string {
  return name
    .slice(0, 200)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}
