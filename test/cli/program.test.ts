import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../fixtures/home.js';
import { cli } from './run-cli.js';

/** Each of `texts` appears in `output`, in this order. */
function expectInOrder(output: string, texts: readonly string[]): void {
  let at = 0;
  for (const text of texts) {
    const found = output.indexOf(text, at);
    expect(found, `"${text}" after position ${at}`).toBeGreaterThanOrEqual(0);
    at = found;
  }
}

const COMMANDS: string[][] = [
  ['parse'], ['format'], ['validate'], ['serve'], ['demo'],
  ['card', 'init'], ['card', 'validate'], ['card', 'show'],
  ['agents', 'add'], ['agents', 'list'], ['agents', 'show'], ['agents', 'remove'],
  ['tasks', 'new'], ['tasks', 'record'], ['tasks', 'list'], ['tasks', 'show'],
  ['run'], ['runs', 'list'], ['runs', 'show'],
];

describe('the a2a-lite program', () => {
  it('lists its commands and exit codes', () => {
    const { code, stdout } = cli(['--help']);
    expect(code).toBe(0);
    for (const name of ['parse', 'format', 'validate', 'card', 'agents', 'tasks', 'serve', 'demo']) expect(stdout).toMatch(new RegExp(`^  ${name}\\s`, 'm'));
    expect(stdout).toContain('exit codes:');
    expect(stdout).toMatch(/^ {2}5 {2}.*ILLEGAL_TRANSITION/m);
  });

  it.each(COMMANDS)('%s %s --help shows usage and an example', (...command) => {
    const { code, stdout } = cli([...command.filter(Boolean), '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^usage: a2a-lite ${command.filter(Boolean).join(' ')}`));
    expect(stdout).toMatch(/examples?:\n {2}a2a-lite /);
  });

  it('prints its version', () => {
    expect(cli(['--version']).stdout).toBe(`${(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version}\n`);
  });

  it('names an unknown command', () => {
    const { code, stderr } = cli(['fly']);
    expect(code).toBe(2);
    expect(stderr).toBe('a2a-lite: USAGE: unknown command "fly"; the commands are parse, format, validate, card, agents, tasks, discover, send, run, runs, serve, hub, demo (see a2a-lite --help)\n');
  });

  // Names every object inherits are no commands: each is refused as any unknown name is.
  const COMMAND_LIST = 'parse, format, validate, card, agents, tasks, discover, send, run, runs, serve, hub, demo';
  it.each([
    [['constructor'], `unknown command "constructor"; the commands are ${COMMAND_LIST} (see a2a-lite --help)`],
    [['__proto__'], `unknown command "__proto__"; the commands are ${COMMAND_LIST} (see a2a-lite --help)`],
    [['toString'], `unknown command "toString"; the commands are ${COMMAND_LIST} (see a2a-lite --help)`],
    [['help', 'constructor'], `unknown command "constructor"; the commands are ${COMMAND_LIST} (see a2a-lite --help)`],
    [['tasks', 'hasOwnProperty'], 'tasks: expected new, record, list, show, get or cancel, got "hasOwnProperty"'],
    [['tasks', 'constructor'], 'tasks: expected new, record, list, show, get or cancel, got "constructor"'],
    [['card', '__proto__'], 'card: expected init, validate, show or sign, got "__proto__"'],
    [['agents', 'valueOf'], 'agents: expected add, list, show or remove, got "valueOf"'],
    [['runs', 'constructor'], 'runs: say list or show, not "constructor"; see: a2a-lite runs --help'],
    [['hub', 'toString'], 'hub: unexpected argument "toString"; see: a2a-lite hub --help'],
  ])('a2a-lite %j is an unknown command (USAGE), not an internal error', (args, message) => {
    const { code, stderr } = cli(args, { home: tempHome() });
    expect({ code, stderr }).toEqual({ code: 2, stderr: `a2a-lite: USAGE: ${message}\n` });
  });
});

describe('the home directory rule', () => {
  const where = (options: Parameters<typeof cli>[1], args: string[] = []) =>
    JSON.parse(cli(['card', 'init', '--id', 'a', '--name', 'A', '--json', ...args], options).stdout).path as string;

  it('takes --home first', () => {
    const flag = tempHome('flag');
    expect(where({ env: { A2A_LITE_HOME: tempHome('env') } }, ['--home', flag])).toBe(join(flag, 'agent-card.json'));
  });

  it('then $A2A_LITE_HOME', () => {
    const env = tempHome('env');
    expect(where({ env: { A2A_LITE_HOME: env } })).toBe(join(env, 'agent-card.json'));
  });

  it('then .a2a-lite in an OpenClaw workspace (never the skill folder, which a reinstall replaces)', () => {
    const workspace = realpathSync(tempHome('workspace'));
    mkdirSync(join(workspace, 'skills', 'a2a-lite'), { recursive: true });
    expect(where({ cwd: workspace, env: { A2A_LITE_HOME: undefined } })).toBe(join(workspace, '.a2a-lite', 'agent-card.json'));
    expect(readdirSync(join(workspace, 'skills', 'a2a-lite'))).toEqual([]);
  });

  it('keeps the card and the ledger across a reinstall of the skill, moving them out of the skill folder once', () => {
    const workspace = realpathSync(tempHome('workspace'));
    const skill = join(workspace, 'skills', 'a2a-lite');
    const env = { A2A_LITE_HOME: undefined };
    // What an earlier version left in the skill folder, used as its home.
    expect(cli(['card', 'init', '--id', 'mine', '--name', 'Mine', '--skill', 'research:Research:finds things'], { home: skill }).code).toBe(0);
    expect(cli(['tasks', 'record', '--from', 'mexico', '[A2A:task id=research-1 skill=research]\nfind it'], { home: skill }).code).toBe(0);
    const first = cli(['tasks', 'list'], { cwd: workspace, env });
    expect(first.stderr).toContain(`note: moved agent-card.json, tasks from ${skill} to ${join(workspace, '.a2a-lite')}`);
    expect(first.stdout).toContain('research-1');
    // `openclaw skills install … --force` replaces the folder with the package's own.
    rmSync(skill, { recursive: true });
    cpSync(fileURLToPath(new URL('../../skill/a2a-lite', import.meta.url)), skill, { recursive: true });
    const after = cli(['tasks', 'list'], { cwd: workspace, env });
    expect(after.stderr).toBe('');
    expect(after.stdout).toContain('research-1');
    expect(JSON.parse(cli(['card', 'show', '--json'], { cwd: workspace, env }).stdout)).toMatchObject({ agent: { id: 'mine' } });
  });

  it('then ~/.a2a-lite', () => {
    const user = tempHome('user');
    expect(where({ cwd: tempHome('elsewhere'), env: { A2A_LITE_HOME: undefined, HOME: user } })).toBe(join(user, '.a2a-lite', 'agent-card.json'));
  });
});

describe('a2a-lite demo --chat', () => {
  it('plays the protocol example through both ledgers', () => {
    const { code, stdout, stderr } = cli(['demo', '--chat']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const order = [
      '── 佳佳 → Mexico',
      '[A2A:discover]',
      '[A2A:card id=mexico]',
      "佳佳 cached Mexico's card: skills email, calendar",
      '[A2A:task id=email-001 skill=email]',
      '[附件: ai-agent-research.md]',
      "Mexico's ledger: email-001 recorded as submitted",
      '[A2A:status task=email-001 state=accepted]',
      "佳佳's ledger: email-001 submitted → accepted",
      '[A2A:result task=email-001 state=completed]',
      "佳佳's ledger: email-001 accepted → completed",
      'Ledgers at the end:',
    ];
    expectInOrder(stdout, order);
  });
});

describe('a2a-lite demo --chat --json', () => {
  it('prints the exchange and both final records', () => {
    const { code, stdout } = cli(['demo', '--chat', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.transcript.map((m: { from: string; text: string }) => `${m.from}:${m.text.split(/[\s\]]/)[0]}`)).toEqual([
      'jiajia:[A2A:discover',
      'mexico:[A2A:card',
      'jiajia:[A2A:task',
      'mexico:[A2A:status',
      'mexico:[A2A:result',
    ]);
    expect(report.ledgers.jiajia).toMatchObject({ id: 'email-001', peer: 'mexico', role: 'requester', state: 'completed' });
    expect(report.ledgers.mexico).toMatchObject({ id: 'email-001', peer: 'jiajia', role: 'worker', state: 'completed' });
  });
});

describe('global options', () => {
  it('may come before the command', () => {
    const home = tempHome();
    expect(cli(['--home', home, 'card', 'init', '--id', 'a', '--name', 'A'])).toMatchObject({ code: 0 });
    expect(JSON.parse(cli(['--json', `--home=${home}`, 'card', 'show']).stdout).agent.id).toBe('a');
  });
});

describe('a2a-lite demo (over HTTP)', () => {
  it('serves both agents, and the research and e-mail tasks complete with the report as a file', () => {
    const { code, stdout, stderr } = cli(['demo', '--keep']);
    expect(code, stderr).toBe(0);
    const order = [
      '[A2A:card id=jiajia]',
      '可达通道：a2a:http://127.0.0.1:',
      '[A2A:task id=… skill=research]',
      'state=accepted]',
      'state=working progress=20%]',
      '找到了 mexico',
      'Mexico 回复：邮件已发给鲁伊科斯塔',
      'state=completed]\n调研报告已完成（见附件），并已请 Mexico 发给鲁伊科斯塔。\n[附件: report.md]',
      '佳佳 → Mexico:\n[A2A:task id=',
      'skill=email',
      '[附件: report.md]',
      'Mexico → 佳佳:\n[A2A:result task=',
      '附件：report.md（',
      'you run a plan',
      'send.0: sending at mexico',
      'send.1: sending at mexico',
      'send.2: sending at mexico',
      'confirm: completed at mexico task=',
      '已确认：3 封邮件都已发出。',
      'completed; its output:',
      'your ledger:',
      'completed',
      'your plan:',
      'downloaded:',
    ];
    expectInOrder(stdout, order);
    const homes = /The homes are kept in (\S+)/.exec(stdout)?.[1] as string;
    const saved = /downloaded: +(\S+report\.md)/.exec(stdout)?.[1] as string;
    expect(saved.startsWith(join(homes, 'you', 'downloads'))).toBe(true);
    expect(readFileSync(saved, 'utf8')).toContain('# 调研报告：AI 代理如何协作');
    // Each agent served from a SQLite home of its own, and Mexico received the attachment.
    expect(existsSync(join(homes, 'jiajia', 'a2a-lite.db'))).toBe(true);
    expect(existsSync(join(homes, 'mexico', 'a2a-lite.db'))).toBe(true);
    // One e-mail task from 佳佳, three from the plan's fan-out (one per recipient) and its
    // confirmation: each of the four with the report got it whole.
    const mexicoWork = join(homes, 'mexico', 'work');
    const folders = readdirSync(mexicoWork);
    expect(folders).toHaveLength(5);
    const reports = folders.filter((f) => existsSync(join(mexicoWork, f, 'report.md')));
    expect(reports).toHaveLength(4);
    for (const folder of reports) expect(readFileSync(join(mexicoWork, folder, 'report.md'), 'utf8')).toBe(readFileSync(saved, 'utf8'));
    rmSync(homes, { recursive: true, force: true });
  });

  it('prints one JSON report with --json: both task records and the file', () => {
    const { code, stdout } = cli(['demo', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.research).toMatchObject({ peer: 'jiajia', role: 'requester', state: 'completed', result: { attachments: ['report.md'] } });
    expect(report.email).toMatchObject({ peer: 'mexico', role: 'requester', state: 'completed', skill: 'email' });
    expect(report.files).toHaveLength(1);
    expect(Object.keys(report.agents).sort()).toEqual(['jiajia', 'mexico']);
    expect(report.plan).toMatchObject({ state: 'completed', output: '已确认：3 封邮件都已发出。\n（演示：邮件没有真正发出。）' });
  });
});
