import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jiajiaCard, mexicoCard } from '../fixtures/cards.js';
import { tempHome } from '../fixtures/home.js';
import { cli } from './run-cli.js';

const INIT = [
  'card', 'init', '--id', 'jiajia', '--name', '佳佳', '--framework', 'clawdbot', '--channel', 'discord:jiajia',
  '--skill', 'research:调研助手:收集和分析特定主题的资料', '--skill', 'podcast-script:播客脚本:创作播客口播稿', '--file-transfer',
];

describe('a2a-lite card', () => {
  it('init writes a valid card that show renders as the [A2A:card] reply', () => {
    const home = tempHome();
    expect(cli(INIT, { home })).toMatchObject({ code: 0, stdout: `wrote ${join(home, 'agent-card.json')} (佳佳, 2 skills)\n` });
    const card = JSON.parse(readFileSync(join(home, 'agent-card.json'), 'utf8'));
    expect(card.skills[0]).toEqual({ id: 'research', name: '调研助手', description: '收集和分析特定主题的资料' });
    expect(cli(['card', 'validate'], { home }).code).toBe(0);
    expect(cli(['card', 'show'], { home }).stdout).toBe(
      '[A2A:card id=jiajia]\n我是佳佳，运行在 Clawdbot 上。\n我的主要能力：\n- 调研助手 (research)：收集和分析特定主题的资料\n- 播客脚本 (podcast-script)：创作播客口播稿\n支持文件传输，不支持流式输出、异步任务、推送通知。\n可达通道：discord:jiajia\n',
    );
    expect(cli(['card', 'show', '--lang', 'en'], { home }).stdout).toContain('I am 佳佳, running on Clawdbot.');
  });

  it('keeps an existing card unless --force', () => {
    const home = tempHome();
    cli(INIT, { home });
    const again = cli([...INIT.slice(0, 5), '佳佳二号'], { home });
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('CARD_EXISTS');
    expect(JSON.parse(readFileSync(join(home, 'agent-card.json'), 'utf8')).agent.name).toBe('佳佳');
    expect(cli([...INIT, '--force'], { home }).code).toBe(0);
  });

  it('refuses to write a card carrying a credential', () => {
    const home = tempHome();
    const secret = ['sk-', 'proj-', 'Zx81Qw0PlmNbV7cXe2RtYu9Io3As'].join('');
    const result = cli(['card', 'init', '--id', 'x', '--name', 'X', '--description', `use key ${secret}`], { home });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('CARD_HAS_CREDENTIAL');
    expect(result.stderr).not.toContain(secret);
    expect(existsSync(join(home, 'agent-card.json'))).toBe(false);
  });

  it('validate names the path and the rule of each problem', () => {
    const home = tempHome();
    const file = join(home, 'bad.json');
    writeFileSync(file, JSON.stringify({ ...jiajiaCard(), protocol: '1.0', skills: [{ id: 'a', name: 'A', inputModes: ['smell'] }] }));
    const { code, stdout } = cli(['card', 'validate', file], { home });
    expect(code).toBe(3);
    expect(stdout).toContain('/protocol (pattern): must match');
    expect(stdout).toContain('/skills/0/description (required): is required');
    expect(stdout).toContain('/skills/0/inputModes/0 (enum): must be one of: text, file, image, audio, video');
  });

  it('explains a missing card', () => {
    const { code, stderr } = cli(['card', 'show'], { home: tempHome() });
    expect(code).toBe(4);
    expect(stderr).toMatch(/CARD_NOT_FOUND: no card at .*; create one with: a2a-lite card init/);
  });

  it('names a JSON syntax error', () => {
    const home = tempHome();
    writeFileSync(join(home, 'x.json'), '{"protocol": ');
    const { code, stderr } = cli(['card', 'validate', join(home, 'x.json')], { home });
    expect(code).toBe(3);
    expect(stderr).toContain('INVALID_JSON');
  });
});

describe('a2a-lite agents', () => {
  it('caches a JSON card and lists, shows and removes it', () => {
    const home = tempHome();
    const file = join(home, 'mexico.json');
    writeFileSync(file, JSON.stringify(mexicoCard()));
    expect(cli(['agents', 'add', file], { home }).stdout).toMatch(/^added mexico \(Mexico; email, calendar\) in .*known-agents\/mexico\.json\n$/);
    expect(cli(['agents', 'add', file], { home }).stdout).toMatch(/^updated mexico/);
    expect(cli(['agents', 'list'], { home }).stdout).toBe(
      'ID      NAME    FRAMEWORK  SKILLS          CHANNELS\nmexico  Mexico  openclaw   email,calendar  discord:mexico\n',
    );
    expect(cli(['agents', 'list', '--skill', 'calendar', '--json'], { home }).stdout).toContain('"id": "mexico"');
    expect(cli(['agents', 'list', '--skill', 'video'], { home }).stdout).toBe('no known agent offers "video"\n');
    expect(JSON.parse(cli(['agents', 'show', 'mexico'], { home }).stdout)).toEqual(mexicoCard());
    expect(cli(['agents', 'remove', 'mexico'], { home }).code).toBe(0);
    expect(cli(['agents', 'show', 'mexico'], { home })).toMatchObject({ code: 4 });
  });

  it('learns a card from an [A2A:card] reply received in chat', () => {
    const home = tempHome();
    const reply = '[A2A:card]\n我是 Mexico，运行在 OpenClaw 上。\n我的能力：\n- 邮件发送：通过 SMTP 发送邮件和附件\n- 日程管理：Google Calendar 操作\n支持文件接收。';
    const result = cli(['agents', 'add', '-', '--channel', 'discord:mexico'], { home, input: reply });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('read from the reply: agent.name, agent.id, agent.framework, skills, capabilities.fileTransfer');
    const cached = JSON.parse(readFileSync(join(home, 'known-agents', 'mexico.json'), 'utf8'));
    expect(cached).toMatchObject({ agent: { id: 'mexico', name: 'Mexico', framework: 'openclaw' }, channels: ['discord:mexico'] });
    expect(cached['x-a2a-lite'].source).toBe('chat');
  });

  it('asks for an id when a reply gives none it can use', () => {
    const home = tempHome();
    const reply = '[A2A:card]\nHello! I can help with many things.';
    const result = cli(['agents', 'add', '-'], { home, input: reply });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('CARD_REPLY_INCOMPLETE: the reply does not say agent.id or agent.name');
  });

  it('refuses to cache a card carrying a credential, and keeps the old one', () => {
    const home = tempHome();
    const file = join(home, 'mexico.json');
    writeFileSync(file, JSON.stringify(mexicoCard()));
    cli(['agents', 'add', file], { home });
    const token = ['gh', 'p_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join('');
    writeFileSync(file, JSON.stringify({ ...mexicoCard(), contact: { human: 'Rui', githubToken: token } }));
    const result = cli(['agents', 'add', file], { home });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('/contact/githubToken');
    const cached = readFileSync(join(home, 'known-agents', 'mexico.json'), 'utf8');
    expect(cached).not.toContain(token);
    expect(JSON.parse(cached).contact).toBeUndefined();
  });
});
