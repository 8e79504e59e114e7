import { describe, expect, it } from 'vitest';
import { parse, parseAll } from './parse.js';
import type { ParsedMessage } from './types.js';

const codes = (m: ParsedMessage): string[] => m.warnings.map((w) => w.code);

describe('parse: the seed messages', () => {
  it.each([
    ['[A2A:discover]\n请告诉我你能做什么？', 'discover', {}, '请告诉我你能做什么？', []],
    [
      '[A2A:task id=research-001 skill=research]\n帮我调研一下 "AI Agent 生态的最新进展"，时间范围过去一周。\n预计需要的输出：markdown 报告文件。',
      'task',
      { id: 'research-001', skill: 'research' },
      '帮我调研一下 "AI Agent 生态的最新进展"，时间范围过去一周。\n预计需要的输出：markdown 报告文件。',
      [],
    ],
    [
      '[A2A:status task=task-123 state=working progress=50%]\n正在收集资料',
      'status',
      { task: 'task-123', state: 'working', progress: '50%' },
      '正在收集资料',
      [],
    ],
    [
      '[A2A:result task=research-001 state=completed]\n调研报告已完成，见附件。\n[附件: ai-agent-research-2026-02.md]',
      'result',
      { task: 'research-001', state: 'completed' },
      '调研报告已完成，见附件。',
      ['ai-agent-research-2026-02.md'],
    ],
    [
      '[A2A:task id=email-001 skill=email]\n帮我把这份调研报告发给鲁伊科斯塔。\n收件人：5155280@qq.com\n[附件: ai-agent-research.md]',
      'task',
      { id: 'email-001', skill: 'email' },
      '帮我把这份调研报告发给鲁伊科斯塔。\n收件人：5155280@qq.com',
      ['ai-agent-research.md'],
    ],
    ['[A2A:cancel task=t-1 reason="不再需要"]', 'cancel', { task: 't-1', reason: '不再需要' }, '', []],
    ['[A2A:ack task=t-1]', 'ack', { task: 't-1' }, '', []],
  ])('%#: %s', (text, type, params, body, attachments) => {
    const m = parse(text);
    expect(m).toEqual({ type, params, body, attachments, warnings: [] });
  });
});

describe('parse: degrading gracefully', () => {
  it('reads text without a header as plain', () => {
    expect(parse('今天天气不错')).toEqual({ type: 'plain', params: {}, body: '今天天气不错', attachments: [], warnings: [] });
  });

  it('reads empty text as an empty plain message', () => {
    expect(parse('')).toEqual({ type: 'plain', params: {}, body: '', attachments: [], warnings: [] });
  });

  it('does not take a header in the middle of a line', () => {
    expect(parse('see [A2A:task id=x] for the format').type).toBe('plain');
  });

  it('keeps unknown types and params', () => {
    const m = parse('[A2A:negotiate round=2 budget=5]\n…');
    expect(m.type).toBe('negotiate');
    expect(m.params).toEqual({ round: '2', budget: '5' });
  });
});

describe('parse: repairs, each reported', () => {
  it.each([
    ['@Mexico [A2A:ack task=t-1]', 'MENTION_STRIPPED'],
    ['<@123456789> [A2A:ack task=t-1]', 'MENTION_STRIPPED'],
    ['@Mexico\n[A2A:ack task=t-1]', 'MENTION_STRIPPED'],
    ['```\n[A2A:ack task=t-1]\n```', 'CODE_FENCE_STRIPPED'],
    ['```text\n[A2A:ack task=t-1]\n```', 'CODE_FENCE_STRIPPED'],
    ['[A2A:ack task=t-1]\r\nok', 'CRLF_NORMALIZED'],
    ['   [A2A:ack task=t-1]', 'WHITESPACE_TRIMMED'],
    ['\n\n[A2A:ack task=t-1]', 'WHITESPACE_TRIMMED'],
    ['[A2A:ack task=t-1]\nok\n\n  ', 'WHITESPACE_TRIMMED'],
    ['［A2A：ack task=t-1］', 'FULLWIDTH_NORMALIZED'],
    ['[A2A:ack　task＝t-1]', 'FULLWIDTH_NORMALIZED'],
    ['[a2a:ack task=t-1]', 'TAG_CASE_NORMALIZED'],
    ['[A2A:ACK task=t-1]', 'TYPE_CASE_NORMALIZED'],
    ['[A2A: ack task=t-1]', 'WHITESPACE_TRIMMED'],
    ['[A2A:cancel task=t-1 reason=“缺少 权限”]', 'SMART_QUOTES_NORMALIZED'],
    ['[A2A:cancel task=t-1 reason="缺少 权限]', 'UNTERMINATED_QUOTE'],
    ['[A2A:ack task=t-1', 'UNCLOSED_HEADER'],
    ['[A2A:task id=t-1 urgent]', 'PARAM_WITHOUT_VALUE'],
    ['[A2A:task id=t-1 id=t-2]', 'DUPLICATE_PARAM'],
    ['好的，我这就发：\n[A2A:ack task=t-1]', 'LEADING_TEXT'],
    ['[A2A:ack task=t-1]\n[A2A:ack task=t-2]', 'MORE_MESSAGES'],
  ])('%j → %s', (text, code) => {
    const m = parse(text);
    expect(m.type).toBe('ack' === m.type ? 'ack' : m.type);
    expect(m.type).not.toBe('plain');
    expect(codes(m)).toContain(code);
  });

  it('recovers the same message from every bent spelling', () => {
    const expected = { type: 'cancel', params: { task: 't-1', reason: '缺少 权限' } };
    for (const text of [
      '@Mexico ［A2A：cancel task=t-1 reason="缺少 权限"］',
      '```\r\n[a2a:CANCEL task=t-1 reason=“缺少 权限”]\r\n```',
      '  [A2A: cancel  task＝t-1　reason="缺少 权限"]  ',
    ]) {
      expect(parse(text)).toMatchObject(expected);
    }
  });

  it('reads escaped quotes inside quoted values', () => {
    expect(parse('[A2A:cancel task=t-1 reason="he said \\"no\\" \\\\ twice"]').params.reason).toBe('he said "no" \\ twice');
  });

  it('keeps backslashes that escape nothing (Windows paths)', () => {
    expect(parse('[A2A:cancel task=t-1 reason="C:\\new\\dir"]').params.reason).toBe('C:\\new\\dir');
  });

  it('closes an unterminated quote at the header bracket', () => {
    const m = parse('[A2A:cancel task=t-1 reason="缺少 权限]\nbody');
    expect(m.params).toEqual({ task: 't-1', reason: '缺少 权限' });
    expect(m.body).toBe('body');
  });

  it('keeps the first of duplicate params and names the other', () => {
    const m = parse('[A2A:task id=a id=b]');
    expect(m.params).toEqual({ id: 'a' });
    expect(m.warnings[0]?.message).toContain('"b"');
  });

  it('keeps a "__proto__" key as an ordinary param', () => {
    const m = parse('[A2A:task id=x __proto__=y]');
    expect(Object.keys(m.params)).toEqual(['id', '__proto__']);
    expect(Object.getPrototypeOf(m.params)).toBe(Object.prototype);
  });

  it('reads a body that starts on the header line', () => {
    expect(parse('[A2A:status task=t state=working] 正在处理').body).toBe('正在处理');
  });

  it('keeps leading text in its warning', () => {
    expect(parse('Sure, sending now:\n[A2A:ack task=t-1]').warnings[0]?.message).toContain('Sure, sending now:');
  });
});

describe('parse: attachments', () => {
  it.each([
    ['[附件: a.md]', ['a.md']],
    ['[attachment: a.md]', ['a.md']],
    ['[Attachments: a.md, b.pdf]', ['a.md', 'b.pdf']],
    ['[附件：a.md，b.pdf、c.png]', ['a.md', 'b.pdf', 'c.png']],
    ['［附件: a.md］', ['a.md']],
    ['[附件: "report, final.md"; notes.txt]', ['report, final.md', 'notes.txt']],
    ['[附件: a.md]\n[附件: b.md]', ['a.md', 'b.md']],
  ])('%j → %j', (lines, names) => {
    expect(parse(`[A2A:result task=t state=completed]\ndone\n${lines}`).attachments).toEqual(names);
  });

  it('leaves a bracketed line that is not an attachment in the body', () => {
    expect(parse('[A2A:result task=t state=completed]\n[note: read me]').body).toBe('[note: read me]');
  });
});

describe('parseAll', () => {
  it('returns every message of a chat message in order', () => {
    const all = parseAll('[A2A:status task=t state=working]\nhalf way\n[A2A:result task=t state=completed]\ndone\n[附件: r.md]');
    expect(all.map((m) => [m.type, m.body, m.attachments])).toEqual([
      ['status', 'half way', []],
      ['result', 'done', ['r.md']],
    ]);
  });

  it('keeps plain text between messages as plain messages', () => {
    const all = parseAll('hello\n```\n[A2A:ack task=u]\n```\nthanks\n[A2A:ack task=t]');
    expect(all.map((m) => [m.type, m.params.task ?? m.body])).toEqual([
      ['plain', 'hello'],
      ['ack', 'u'],
      ['plain', 'thanks'],
      ['ack', 't'],
    ]);
  });

  it('does not split at a header quoted inside a code block of a body', () => {
    const all = parseAll('[A2A:result task=t state=completed]\nExample:\n```\n[A2A:task id=x]\n```\nend');
    expect(all).toHaveLength(1);
    expect(all[0]?.body).toBe('Example:\n```\n[A2A:task id=x]\n```\nend');
  });

  it('unwraps several messages inside one code block', () => {
    const all = parseAll('```\n[A2A:ack task=a]\n[A2A:ack task=b]\n```');
    expect(all.map((m) => m.params.task)).toEqual(['a', 'b']);
    expect(all.every((m) => m.warnings.some((w) => w.code === 'CODE_FENCE_STRIPPED'))).toBe(true);
  });

  it('returns nothing for blank text', () => {
    expect(parseAll('  \n\n ')).toEqual([]);
  });
});

describe('parse: spaces around "="', () => {
  it.each([
    ['[A2A:task id = 1]', { id: '1' }],
    ['[A2A:task id =1 skill= research]', { id: '1', skill: 'research' }],
    ['[A2A:cancel task=t reason= "缺少 权限"]', { task: 't', reason: '缺少 权限' }],
    ['[A2A:task id=1 note= ]', { id: '1', note: '' }],
  ])('%s', (text, params) => {
    const m = parse(text);
    expect(m.params).toEqual(params);
  });

  it('says it ignored them', () => {
    expect(parse('[A2A:task id = 1]').warnings.map((w) => w.code)).toEqual(['WHITESPACE_TRIMMED']);
  });

  it('still reads a bare word before a param as a param without value', () => {
    expect(parse('[A2A:task urgent id=1]').params).toEqual({ urgent: '', id: '1' });
  });
});
