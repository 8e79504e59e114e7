import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jiajiaCard, mexicoCard } from '../../test/fixtures/cards.js';
import { parse } from '../protocol/parse.js';
import { validate } from '../protocol/validate.js';
import { parseCardReply } from './parse-reply.js';
import { render } from './render.js';
import type { LiteCard } from './types.js';
import { checkCard } from './validate.js';

describe('render', () => {
  it('writes the Chinese reply of the protocol example', () => {
    expect(render(jiajiaCard(), 'zh')).toBe(
      [
        '[A2A:card id=jiajia]',
        '我是佳佳，运行在 Clawdbot 上。',
        '我的主要能力：',
        '- 调研助手 (research)：收集和分析特定主题的资料',
        '- 播客脚本 (podcast-script)：创作播客口播稿',
        '支持文件传输，不支持流式输出、异步任务。',
        '可达通道：discord:jiajia',
      ].join('\n'),
    );
  });

  it('writes the English reply', () => {
    const card = mexicoCard({ limits: { maxFileSize: '10MB', maxConcurrentTasks: 3 }, contact: { human: 'Rui', timezone: 'Asia/Shanghai' } });
    expect(render(card, 'en')).toBe(
      [
        '[A2A:card id=mexico]',
        'I am Mexico, running on OpenClaw.',
        'My skills:',
        '- 邮件发送 (email): 通过 SMTP 发送邮件和附件',
        '- 日程管理 (calendar): Google Calendar 操作',
        'Supports file transfer.',
        'Files up to 10MB; at most 3 tasks at once.',
        'Channels: discord:mexico',
        'Contact: Rui (Asia/Shanghai)',
      ].join('\n'),
    );
  });

  it('writes a valid protocol message', () => {
    expect(validate(parse(render(jiajiaCard(), 'en')))).toEqual([]);
  });
});

describe('parseCardReply', () => {
  it('reads the reply Mexico sends in the protocol example', () => {
    const reply = parseCardReply(
      '[A2A:card]\n我是 Mexico，运行在 OpenClaw 上。\n我的能力：\n- 邮件发送：通过 SMTP 发送邮件和附件\n- 日程管理：Google Calendar 操作\n支持文件接收。',
    );
    expect(reply.missing).toEqual([]);
    expect(reply.card).toEqual({
      protocol: 'a2a-lite/1.0',
      agent: { id: 'mexico', name: 'Mexico', framework: 'openclaw' },
      skills: [
        { id: '邮件发送', name: '邮件发送', description: '通过 SMTP 发送邮件和附件' },
        { id: '日程管理', name: '日程管理', description: 'Google Calendar 操作' },
      ],
      capabilities: { fileTransfer: true },
    });
    expect(checkCard(reply.card).valid).toBe(true);
  });

  it('reads 佳佳’s reply, with streaming refused', () => {
    const reply = parseCardReply('[A2A:card]\n我是佳佳，运行在 Clawdbot 上。\n我的主要能力：\n- 调研助手：收集和分析特定主题的资料\n支持文件传输，不支持流式输出。');
    expect(reply.card.agent).toEqual({ id: '佳佳', name: '佳佳', framework: 'clawdbot' });
    expect(reply.card.capabilities).toEqual({ fileTransfer: true, streaming: false });
  });

  it.each(['zh', 'en'] as const)('recovers what render wrote (%s)', (lang) => {
    const card = jiajiaCard();
    const { card: back, missing } = parseCardReply(render(card, lang));
    expect(missing).toEqual([]);
    expect(back.agent).toEqual({ id: 'jiajia', name: '佳佳', framework: 'clawdbot' });
    expect(back.skills.map((s) => [s.id, s.name, s.description])).toEqual(card.skills.map((s) => [s.id, s.name, s.description]));
    expect(back.capabilities).toEqual(card.capabilities);
    expect(back.channels).toEqual(card.channels);
  });

  it('says what it could not find', () => {
    expect(parseCardReply('[A2A:card]\nhello').missing).toEqual(['agent.id', 'agent.name']);
  });

  const word = fc.stringMatching(/^[A-Za-z\u4e00-\u9fa5][A-Za-z0-9\u4e00-\u9fa5 ]{0,15}$/).map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
  const anyCard: fc.Arbitrary<LiteCard> = fc.record({
    protocol: fc.constant('a2a-lite/1.0'),
    agent: fc.record({
      id: fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
      name: word,
      framework: fc.constantFrom('clawdbot' as const, 'openclaw' as const, 'other' as const),
    }),
    skills: fc.uniqueArray(fc.record({ id: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), name: word, description: word }), {
      selector: (s) => s.id,
      maxLength: 4,
    }),
    capabilities: fc.record({ fileTransfer: fc.boolean(), streaming: fc.boolean() }),
  });

  it.each(['zh', 'en'] as const)('recovers id, name, framework, skills and capabilities of any card (%s)', (lang) => {
    fc.assert(
      fc.property(anyCard, (card) => {
        const { card: back } = parseCardReply(render(card, lang));
        expect(back.agent).toEqual({ id: card.agent.id, name: card.agent.name, framework: card.agent.framework });
        expect(back.skills).toEqual(card.skills);
        expect(back.capabilities).toEqual(card.capabilities);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        expect(typeof parseCardReply(text).card.protocol).toBe('string');
      }),
      { numRuns: 3000 },
    );
  });
});

describe('parseCardReply on free wording', () => {
  it.each([
    ['I am Ada, running on OpenClaw. I support file transfer, but not streaming.', { fileTransfer: true, streaming: false }],
    ['I am Ada. I can send files. I do not support streaming or push notifications.', { fileTransfer: true, streaming: false, pushNotifications: false }],
    ['我是小明，基于 OpenClaw。可以传文件，但不支持流式。', { fileTransfer: true, streaming: false }],
  ])('%s', (text, capabilities) => {
    expect(parseCardReply(`[A2A:card]\n${text}`).card.capabilities).toEqual(capabilities);
  });
});

describe('parseCardReply reads back awkward names', () => {
  it.each(['zh', 'en'] as const)('names with dots, commas, parentheses and colons (%s)', (lang) => {
    const card = jiajiaCard({
      agent: { id: 'who', name: 'Dr. Who', framework: 'openclaw' },
      skills: [
        { id: 'email', name: 'Email (SMTP)', description: 'send: mail, with files' },
        { id: 'ab', name: 'a:b', description: 'x' },
      ],
    });
    const back = parseCardReply(render(card, lang)).card;
    expect(back.agent).toEqual({ id: 'who', name: 'Dr. Who', framework: 'openclaw' });
    expect(back.skills).toEqual([
      { id: 'email', name: 'Email (SMTP)', description: 'send: mail, with files' },
      { id: 'ab', name: 'a:b', description: 'x' },
    ]);
  });

  it('reads a name with a comma when the framework is given', () => {
    const card = jiajiaCard({ agent: { id: 'ab', name: 'A, B', framework: 'clawdbot' } });
    expect(parseCardReply(render(card, 'en')).card.agent.name).toBe('A, B');
    expect(parseCardReply(render(card, 'zh')).card.agent.name).toBe('A, B');
  });

  it('tells which message type it read', () => {
    expect(parseCardReply('[A2A:task id=research-001]\nhi').type).toBe('task');
  });
});
