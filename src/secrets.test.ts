import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jiajiaCard, mexicoCard } from '../test/fixtures/cards.js';
import { findSecrets } from './secrets.js';

// Test values are assembled at run time so no scanner mistakes this file for a leak.
const join = (...parts: string[]) => parts.join('');

describe('findSecrets', () => {
  it.each([
    ['OpenAI key', join('sk-', 'proj-', 'Zx81Qw0PlmNbV7cXe2RtYu9Io3As')],
    ['Anthropic key', join('sk-', 'ant-', 'api03-Hs72Kd91Lq0PwXe5Rt8YuI2oPa')],
    ['GitHub token', join('gh', 'p_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8')],
    ['fine-grained GitHub token', join('github', '_pat_', '11ABCDEFG0123456789_abcdefghij')],
    ['Slack token', join('xo', 'xb-', '123456789012-abcdefABCDEF')],
    ['AWS key', join('AK', 'IA', 'IOSFODNN7EXAMPLE')],
    ['Google key', join('AI', 'za', 'SyD-1234567890abcdefghijklmnopqrstu')],
    ['JWT', join('ey', 'JhbGciOiJIUzI1NiJ9.', 'ey', 'JzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U')],
    ['bearer header', join('Bearer ', 'abcDEF123456ghiJKL789')],
    ['URL with a password', join('https://bot:', 'hunter2', '@example.com/hook')],
    ['private key', join('-----BEGIN ', 'RSA PRIVATE KEY-----\nMIIE…')],
    ['Telegram bot token', join('123456789', ':AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw')],
    ['random base64', join('q8Zr', 'T1vXk4Lm', 'P0sWd7Yh', 'B3nC6')],
    ['random hex', join('9f86d081884c7d65', '9a2feaa0c55ad015', 'a3bf4f1b2b0b822c')],
  ])('finds a %s in any string field', (_kind, secret) => {
    const findings = findSecrets(jiajiaCard({ description: `reach me with ${secret} please` }));
    expect(findings.map((f) => f.path)).toEqual(['/description']);
  });

  it.each([['password'], ['apiKey'], ['api_key'], ['clientSecret'], ['accessToken'], ['credentials']])(
    'finds a value in a field named %s',
    (name) => {
      const card = { ...jiajiaCard(), contact: { human: 'ruicosta', [name]: 'letmein-2026' } };
      expect(findSecrets(card)).toEqual([{ path: `/contact/${name}`, kind: `value of a field named "${name}"` }]);
    },
  );

  it('never repeats the secret value in a finding', () => {
    const secret = join('sk-', 'live-', 'Q1w2E3r4T5y6U7i8O9p0A1s2');
    expect(JSON.stringify(findSecrets({ a: secret }))).not.toContain(secret);
  });

  it.each([
    ['the example cards', jiajiaCard()],
    ['the example cards', mexicoCard()],
    ['references to environment variables', { ...jiajiaCard(), contact: { token: '$A2A_TOKEN', apiKey: '${OPENAI_KEY}', password: 'env:PASS' } }],
    ['URLs, e-mail, dates, uuids', {
      ...jiajiaCard(),
      channels: ['a2a:http://127.0.0.1:8080/.well-known/agent-card.json', 'discord:123456789012345678', 'telegram:@jiajia_bot'],
      description: '5155280@qq.com · 2026-11-21T10:00:00Z · 3fa85f64-5717-4562-b3fc-2c963f66afa6 · https://example.com/api/v1/agents/research-assistant',
    }],
    ['long kebab-case ids', { ...jiajiaCard(), skills: [{ id: 'podcast-script-generator-v2', name: 'long-form-podcast-script-writer-2026', description: '' }] }],
    ['numbers in token-named fields', { ...jiajiaCard(), limits: { maxTokens: '4000000' } }],
    ['Chinese prose', { ...jiajiaCard(), description: '收集和分析特定主题的资料，生成结构化的 Markdown 调研报告，并附上参考来源链接。' }],
  ])('stays quiet on %s', (_what, card) => {
    expect(findSecrets(card)).toEqual([]);
  });
});

describe('findSecrets on hostile input', () => {
  it('finds a secret nested 100,000 levels deep without overflowing the stack', () => {
    const secret = join('sk-', 'live-', 'Q1w2E3r4T5y6U7i8O9p0A1s2');
    let value: unknown = { note: secret };
    for (let i = 0; i < 100_000; i += 1) value = [value];
    const findings = findSecrets(value);
    expect(findings).toHaveLength(1);
    expect(findings[0]?.path.endsWith('/0/note')).toBe(true);
  });

  it('never throws on any JSON value', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => Array.isArray(findSecrets(value))), { numRuns: 2000 });
  });
});

describe('secret-named fields', () => {
  it.each([
    [{ password: 'correct horse battery staple' }, '/password'],
    [{ passwords: ['hunter2hunter2'] }, '/passwords'],
    [{ Authorization: 'Basic dXNlcjpwYXNz' }, '/Authorization'],
    [{ pwd: 'letmein!' }, '/pwd'],
    [{ passphrase: 'open sesame please' }, '/passphrase'],
    [{ client_secret: 'abcd1234' }, '/client_secret'],
  ])('finds %j', (value, path) => {
    expect(findSecrets(value).map((f) => f.path)).toEqual([path]);
  });

  it.each([[{ maxTokens: '8k-per-call' }], [{ tokenLimit: '4000 per day' }], [{ authType: 'bearer' }], [{ auth: 'required' }], [{ secretName: 'OPENAI_KEY' }]])(
    'leaves %j alone',
    (value) => {
      expect(findSecrets(value)).toEqual([]);
    },
  );

  it('leaves file paths alone', () => {
    expect(findSecrets({ home: '/home/agent/workspace/skills/a2a-lite/known-agents/mexico.json' })).toEqual([]);
  });
});
