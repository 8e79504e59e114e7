// The two agents of the protocol's complete example, used by the demo and as test fixtures.

import { PROTOCOL_VERSION, type LiteCard } from './types.js';

/** 佳佳, a Clawdbot agent that researches topics and writes podcast scripts. */
export function jiajiaCard(overrides: Partial<LiteCard> = {}): LiteCard {
  return {
    protocol: PROTOCOL_VERSION,
    agent: { id: 'jiajia', name: '佳佳', framework: 'clawdbot', version: '0.x' },
    skills: [
      { id: 'research', name: '调研助手', description: '收集和分析特定主题的资料', inputModes: ['text'], outputModes: ['text', 'file'] },
      { id: 'podcast-script', name: '播客脚本', description: '创作播客口播稿', inputModes: ['text', 'file'], outputModes: ['text', 'file'] },
    ],
    capabilities: { streaming: false, fileTransfer: true, asyncTasks: false },
    channels: ['discord:jiajia'],
    ...overrides,
  };
}

/** Mexico, an OpenClaw agent that sends e-mail and manages a calendar. */
export function mexicoCard(overrides: Partial<LiteCard> = {}): LiteCard {
  return {
    protocol: PROTOCOL_VERSION,
    agent: { id: 'mexico', name: 'Mexico', framework: 'openclaw' },
    skills: [
      { id: 'email', name: '邮件发送', description: '通过 SMTP 发送邮件和附件', inputModes: ['text', 'file'], outputModes: ['text'] },
      { id: 'calendar', name: '日程管理', description: 'Google Calendar 操作', inputModes: ['text'], outputModes: ['text'] },
    ],
    capabilities: { fileTransfer: true },
    channels: ['discord:mexico'],
    ...overrides,
  };
}
