// Recovers a card from an `[A2A:card]` reply written by `render` or by any agent in its own
// words, so that a card learned in chat can be cached. Takes what it finds; reports the rest.

import { parse } from '../protocol/parse.js';
import { FRAMEWORKS, PROTOCOL_VERSION, type Capabilities, type Framework, type LiteCard, type Skill } from './types.js';

/** What `parseCardReply` could read, and which fields it had to leave out or guess. */
export interface CardReply {
  /** The card as far as it could be recovered; `agent.id` or `agent.name` may be empty. */
  card: LiteCard;
  /** Fields found in the text, e.g. `agent.name`, `skills`, `capabilities.fileTransfer`. */
  found: string[];
  /** Required fields that could not be found (`agent.id`, `agent.name`). */
  missing: string[];
}

const NAME_ZH = /我是\s*([^，,。.\n（(]+?)\s*(?:[（(]([^）)]+)[）)])?\s*(?:[，,]|。|$|运行|running)/m;
const NAME_EN = /\bI(?:'m| am)\s+([^,.\n(]+?)\s*(?:\(([^)]+)\))?\s*(?:,|\.|$| running| built)/im;
const FRAMEWORK = /(?:运行在|基于|running on|built on|runs on)\s*([A-Za-z]+)/i;
const SKILL_LINE = /^\s*[-*•·]\s*([^:：(（\n]+?)\s*(?:[(（]\s*([^()（）\s]+)\s*[)）])?\s*(?:[:：]\s*(.*))?$/;
const CHANNELS = /^\s*(?:可达通道|通道|channels?)\s*[:：]\s*(.+)$/im;
const NEGATION = /不支持|不能|无法|没有|\bno\b|\bnot\b|n't\b|\bcannot\b|\bwithout\b|\bunsupported\b/i;
/** Clauses end at sentence marks and at "but"; a comma or "、" only separates list items. */
const CLAUSE_END = /[，;；。\n]|\.\s|,?\s+but\s+|但是?|不过/i;
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
 * // card.agent = { id: 'mexico', name: 'Mexico', framework: 'openclaw' }, one skill 'email' → id '邮件发送'
 */
export function parseCardReply(text: string): CardReply {
  const message = parse(text);
  const body = message.body;
  const found: string[] = [];

  const nameMatch = NAME_ZH.exec(body) ?? NAME_EN.exec(body);
  const name = nameMatch?.[1]?.trim() ?? '';
  if (name !== '') found.push('agent.name');
  const id = message.params.id ?? nameMatch?.[2]?.trim() ?? slug(name);
  if (id !== '') found.push('agent.id');

  const frameworkWord = FRAMEWORK.exec(body)?.[1]?.toLowerCase();
  const framework: Framework = (FRAMEWORKS as readonly string[]).includes(frameworkWord ?? '') ? (frameworkWord as Framework) : 'other';
  if (frameworkWord !== undefined) found.push('agent.framework');

  const skills = readSkills(body);
  if (skills.length > 0) found.push('skills');
  const capabilities = readCapabilities(body);
  for (const key of Object.keys(capabilities)) found.push(`capabilities.${key}`);
  const channels = CHANNELS.exec(body)?.[1]?.split(/[,，、\s]+/).filter(Boolean);
  if (channels) found.push('channels');

  const card: LiteCard = { protocol: PROTOCOL_VERSION, agent: { id, name, framework }, skills };
  if (Object.keys(capabilities).length > 0) card.capabilities = capabilities;
  if (channels) card.channels = channels;
  const missing = [id === '' ? 'agent.id' : '', name === '' ? 'agent.name' : ''].filter(Boolean);
  return { card, found, missing };
}

function readSkills(body: string): Skill[] {
  const skills: Skill[] = [];
  const seen = new Set<string>();
  for (const line of body.split('\n')) {
    const match = SKILL_LINE.exec(line);
    if (match === null) continue;
    const name = (match[1] as string).trim();
    const id = match[2]?.trim() || slug(name);
    if (id === '' || seen.has(id)) continue;
    seen.add(id);
    skills.push({ id, name, description: match[3]?.trim() ?? '' });
  }
  return skills;
}

function readCapabilities(body: string): Capabilities {
  const capabilities: Capabilities = {};
  const lines = body.split('\n').filter((line) => !SKILL_LINE.test(line) && !CHANNELS.test(line));
  for (const clause of lines.join('\n').split(CLAUSE_END)) {
    const words = clause.trim();
    if (!/支持|support|可以|能|can\b|\bno\b|\bnot\b|n't\b/i.test(words)) continue;
    const negative = NEGATION.test(words);
    for (const [key, pattern] of CAPABILITY_KEYS) {
      if (pattern.test(words) && capabilities[key] === undefined) capabilities[key] = !negative;
    }
  }
  return capabilities;
}

/** A name as an id: lower case, runs of other characters become "-". Keeps CJK letters. */
export function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}
