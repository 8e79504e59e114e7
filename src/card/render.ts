// Writes a card as the human-readable `[A2A:card]` reply, in Chinese or English. The
// agent id travels in the header so a peer can cache the card under the right name.

import { format } from '../protocol/format.js';
import type { Capabilities, Framework, LiteCard } from './types.js';

export type Lang = 'zh' | 'en';

const FRAMEWORK_NAMES: Readonly<Record<Framework, string>> = { clawdbot: 'Clawdbot', openclaw: 'OpenClaw', other: '' };

const CAPABILITY_WORDS: Readonly<Record<Lang, Readonly<Record<keyof Capabilities, string>>>> = {
  zh: { fileTransfer: '文件传输', streaming: '流式输出', asyncTasks: '异步任务', pushNotifications: '推送通知' },
  en: { fileTransfer: 'file transfer', streaming: 'streaming', asyncTasks: 'async tasks', pushNotifications: 'push notifications' },
};
const CAPABILITY_ORDER: readonly (keyof Capabilities)[] = ['fileTransfer', 'streaming', 'asyncTasks', 'pushNotifications'];

/**
 * Renders `card` as an `[A2A:card]` message, the answer to `[A2A:discover]`.
 *
 * @example
 * render(card, 'zh')
 * // [A2A:card id=jiajia]
 * // 我是佳佳，运行在 Clawdbot 上。
 * // 我的主要能力：
 * // - 调研助手 (research)：收集和分析特定主题的资料
 * // 支持文件传输，不支持流式输出。
 */
export function render(card: LiteCard, lang: Lang = 'zh'): string {
  const zh = lang === 'zh';
  const lines: string[] = [];
  const framework = FRAMEWORK_NAMES[card.agent.framework];
  // Chinese text puts a space before a Latin name: 我是 Mexico, but 我是佳佳.
  const name = /^[A-Za-z0-9]/.test(card.agent.name) ? ` ${oneLine(card.agent.name)}` : oneLine(card.agent.name);
  if (zh) lines.push(framework === '' ? `我是${name}。` : `我是${name}，运行在 ${framework} 上。`);
  else lines.push(framework === '' ? `I am ${card.agent.name}.` : `I am ${card.agent.name}, running on ${framework}.`);
  if (card.description) lines.push(oneLine(card.description));
  lines.push(zh ? '我的主要能力：' : 'My skills:');
  for (const skill of card.skills) {
    lines.push(`- ${oneLine(skill.name)} (${skill.id})${zh ? '：' : ': '}${oneLine(skill.description)}`);
  }
  const capabilities = capabilitySentence(card.capabilities ?? {}, lang);
  if (capabilities !== '') lines.push(capabilities);
  const limits = limitSentence(card, lang);
  if (limits !== '') lines.push(limits);
  if (card.channels && card.channels.length > 0) lines.push(`${zh ? '可达通道：' : 'Channels: '}${card.channels.join(', ')}`);
  if (card.contact?.human) {
    const zone = card.contact.timezone ? ` (${card.contact.timezone})` : '';
    lines.push(`${zh ? '联系人：' : 'Contact: '}${card.contact.human}${zone}`);
  }
  return format({ type: 'card', params: { id: card.agent.id }, body: lines.join('\n'), attachments: [] });
}

/** Each fact of the reply stays on its own line, so a name or description never spans two. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function capabilitySentence(capabilities: Capabilities, lang: Lang): string {
  const words = CAPABILITY_WORDS[lang];
  const yes = CAPABILITY_ORDER.filter((c) => capabilities[c] === true).map((c) => words[c]);
  const no = CAPABILITY_ORDER.filter((c) => capabilities[c] === false).map((c) => words[c]);
  if (lang === 'zh') {
    const parts = [yes.length > 0 ? `支持${yes.join('、')}` : '', no.length > 0 ? `不支持${no.join('、')}` : ''];
    const text = parts.filter(Boolean).join('，');
    return text === '' ? '' : `${text}。`;
  }
  const parts = [yes.length > 0 ? `Supports ${yes.join(', ')}` : '', no.length > 0 ? `${yes.length > 0 ? 'does' : 'Does'} not support ${no.join(', ')}` : ''];
  const text = parts.filter(Boolean).join('; ');
  return text === '' ? '' : `${text}.`;
}

function limitSentence(card: LiteCard, lang: Lang): string {
  const { maxFileSize, maxConcurrentTasks } = card.limits ?? {};
  const parts: string[] = [];
  if (lang === 'zh') {
    if (maxFileSize) parts.push(`单个文件最大 ${maxFileSize}`);
    if (maxConcurrentTasks !== undefined) parts.push(`最多同时处理 ${maxConcurrentTasks} 个任务`);
    return parts.length === 0 ? '' : `${parts.join('，')}。`;
  }
  if (maxFileSize) parts.push(`files up to ${maxFileSize}`);
  if (maxConcurrentTasks !== undefined) parts.push(`at most ${maxConcurrentTasks} task${maxConcurrentTasks === 1 ? '' : 's'} at once`);
  if (parts.length === 0) return '';
  const text = parts.join('; ');
  return `${text[0]?.toUpperCase()}${text.slice(1)}.`;
}
