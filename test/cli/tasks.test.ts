import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mexicoCard } from '../fixtures/cards.js';
import { tempHome } from '../fixtures/home.js';
import { cli, cliAsync } from './run-cli.js';

describe('a2a-lite tasks', () => {
  it('starts a task with a readable id and prints the message to send', () => {
    const home = tempHome();
    writeFileSync(join(home, 'mexico.json'), JSON.stringify(mexicoCard()));
    cli(['agents', 'add', join(home, 'mexico.json')], { home });
    const first = cli(['tasks', 'new', '--to', 'mexico', '--skill', 'email', '--body', '发邮件', '--attach', 'report.md'], { home });
    expect(first).toMatchObject({ code: 0, stdout: '[A2A:task id=email-001 skill=email]\n发邮件\n[附件: report.md]\n', stderr: '' });
    expect(cli(['tasks', 'new', '--to', 'mexico', '--skill', 'email'], { home }).stdout).toBe('[A2A:task id=email-002 skill=email]\n');
    expect(cli(['tasks', 'new', '--to', 'mexico', '--skill', 'video'], { home }).stderr).toBe('note: mexico\'s card lists no skill "video"\n');
    expect(cli(['tasks', 'new', '--to', 'stranger'], { home }).stderr).toBe('note: "stranger" is not in known-agents; the task is recorded anyway\n');
  });

  it('follows a task through the ledger from both sides', () => {
    const requester = tempHome('requester');
    const worker = tempHome('worker');
    const task = cli(['tasks', 'new', '--to', 'mexico', '--skill', 'email', '--body', '帮我发邮件'], { home: requester }).stdout;
    expect(cli(['tasks', 'record', '--from', 'jiajia', task], { home: worker }).stdout).toBe('email-001 (from jiajia): recorded, submitted\n');
    const accepted = cli(['format', 'status', 'task=email-001', 'state=accepted', '--body', '收到'], { home: worker }).stdout;
    expect(cli(['tasks', 'record', accepted], { home: worker }).stdout).toBe('email-001 (from jiajia): submitted → accepted\n');
    expect(cli(['tasks', 'record', accepted], { home: requester }).stdout).toBe('email-001 (for mexico): submitted → accepted\n');
    const done = '[A2A:result task=email-001 state=completed]\n邮件已发送\n[附件: receipt.txt]';
    expect(cli(['tasks', 'record', done], { home: requester }).stdout).toBe('email-001 (for mexico): accepted → completed\n');
    const shown = cli(['tasks', 'show', 'email-001', '--json'], { home: requester });
    expect(JSON.parse(shown.stdout)).toMatchObject({ state: 'completed', result: { text: '邮件已发送', attachments: ['receipt.txt'] } });
    const plain = cli(['tasks', 'show', 'email-001'], { home: requester }).stdout;
    expect(plain).toContain('email-001: we asked mexico, skill email');
    expect(plain).toMatch(/sent\s+task\s+submitted\s+帮我发邮件/);
    expect(plain).toMatch(/received\s+result\s+completed\s+邮件已发送/);
  });

  it('refuses an illegal transition and changes nothing', () => {
    const home = tempHome();
    cli(['tasks', 'record', '--to', 'mexico', '[A2A:task id=t-1]'], { home });
    cli(['tasks', 'record', '[A2A:result task=t-1 state=completed]'], { home });
    const before = readdirSync(join(home, 'tasks', 'mexico', 't-1'));
    const result = cli(['tasks', 'record', '[A2A:status task=t-1 state=working]'], { home });
    expect(result.code).toBe(5);
    expect(result.stderr).toBe('a2a-lite: TASK_TERMINAL: task "t-1" cannot go from completed to working: it has ended and takes no more state changes\n');
    expect(readdirSync(join(home, 'tasks', 'mexico', 't-1'))).toEqual(before);
  });

  it.each([
    [['tasks', 'record', '[A2A:task id=t-9]'], 2, 'PEER_REQUIRED'],
    [['tasks', 'record', '[A2A:status task=nope state=working]'], 4, 'TASK_NOT_FOUND'],
    [['tasks', 'record', '[A2A:status task=x]'], 3, 'INVALID_MESSAGE'],
    [['tasks', 'record', '--from', 'a', '--to', 'b', '[A2A:task id=x]'], 2, 'give --from or --to, not both'],
    [['tasks', 'show', 'nope'], 4, 'TASK_NOT_FOUND'],
    [['tasks', 'list', '--state', 'sleeping'], 2, 'not a task state'],
    [['tasks', 'new'], 2, '--to AGENT is required'],
    [['tasks', 'new', '--to', 'x', '--id', '../../x'], 2, 'not a valid task id'],
  ])('%j exits %i with %s', (args, code, text) => {
    const result = cli(args, { home: tempHome() });
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(text);
  });

  it('skips messages that concern no task', () => {
    const { code, stdout, stderr } = cli(['tasks', 'record', '--from', 'x', '[A2A:discover]\nhi'], { home: tempHome() });
    expect(code).toBe(0);
    expect(stdout).toBe('nothing to record\n');
    expect(stderr).toBe('note: skipped a [A2A:discover] message: it concerns no task\n');
  });

  it('records every message of one chat message in order', () => {
    const home = tempHome();
    cli(['tasks', 'record', '--from', 'jiajia', '[A2A:task id=r-1]'], { home });
    const { stdout } = cli(['tasks', 'record', '[A2A:status task=r-1 state=working progress=50%]\n[A2A:result task=r-1 state=completed]'], { home });
    expect(stdout).toBe('r-1 (from jiajia): submitted → working\nr-1 (from jiajia): working → completed\n');
  });

  it('lists tasks with filters', () => {
    const home = tempHome();
    cli(['tasks', 'record', '--to', 'mexico', '[A2A:task id=a]\nfirst'], { home });
    cli(['tasks', 'record', '--from', 'jiajia', '[A2A:task id=b]\nsecond'], { home });
    cli(['tasks', 'record', '[A2A:status task=b state=working progress=30]'], { home });
    const working = cli(['tasks', 'list', '--state', 'working'], { home }).stdout.split('\n');
    expect(working[0]).toMatch(/^ID\s+PEER\s+ROLE\s+STATE\s+PROGRESS\s+UPDATED\s+ABOUT$/);
    expect(working[1]).toMatch(/^b\s+jiajia\s+worker\s+working\s+30%\s+\S+\s+second$/);
    expect(working).toHaveLength(3);
    expect(JSON.parse(cli(['tasks', 'list', '--peer', 'mexico', '--json'], { home }).stdout).map((t: { id: string }) => t.id)).toEqual(['a']);
  });
});

describe('the ledger under concurrent CLI processes', () => {
  it('gives 20 processes creating tasks at once 20 distinct ids', async () => {
    const home = tempHome();
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => cliAsync(['tasks', 'new', '--to', `peer-${i % 3}`, '--skill', 'research', '--body', `job ${i}`], { home })),
    );
    expect(runs.map((r) => r.code)).toEqual(Array(20).fill(0));
    const ids = runs.map((r) => /id=(research-\d+)/.exec(r.stdout)?.[1]);
    expect(new Set(ids).size).toBe(20);
    const listed = JSON.parse(cli(['tasks', 'list', '--json'], { home }).stdout) as { id: string }[];
    expect(listed.map((t) => t.id).sort()).toEqual([...ids].sort());
  });

  it('loses none of 20 updates recorded on one task at once', async () => {
    const home = tempHome();
    cli(['tasks', 'record', '--from', 'jiajia', '[A2A:task id=busy-1]'], { home });
    cli(['tasks', 'record', '[A2A:status task=busy-1 state=working]'], { home });
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => cliAsync(['tasks', 'record', `[A2A:status task=busy-1 state=working progress=${i + 1}]\nstep ${i + 1}`], { home })),
    );
    expect(runs.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
    const record = JSON.parse(cli(['tasks', 'show', 'busy-1', '--json'], { home }).stdout);
    const steps = record.history.map((e: { body: string }) => e.body).filter((b: string) => b.startsWith('step'));
    expect(steps.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `step ${i + 1}`).sort());
    expect(record.history).toHaveLength(22);
    expect(readdirSync(join(home, 'tasks', 'jiajia', 'busy-1')).filter((n) => n.startsWith('.tmp'))).toEqual([]);
  });

  it('lets exactly one of 20 racing terminal results win', async () => {
    const home = tempHome();
    cli(['tasks', 'record', '--to', 'mexico', '[A2A:task id=race-1]'], { home });
    const states = ['completed', 'failed', 'cancelled', 'rejected'];
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => cliAsync(['tasks', 'record', `[A2A:result task=race-1 state=${states[i % 4]}]\nrun ${i}`], { home })),
    );
    expect(runs.filter((r) => r.code === 0)).toHaveLength(1);
    expect(runs.filter((r) => r.code === 5)).toHaveLength(19);
    const record = JSON.parse(cli(['tasks', 'show', 'race-1', '--json'], { home }).stdout);
    expect(record.history).toHaveLength(2);
  });
});

describe('credentials and the CLI', () => {
  const key = ['AK', 'IA', 'IOSFODNN7EXAMPLE'].join('');

  it('format refuses to write a message carrying a credential', () => {
    const result = cli(['format', 'task', 'id=t-1', '--body', `key ${key}`]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('the body holds what looks like a credential (AWS access key)');
    expect(result.stderr).not.toContain(key);
  });

  it('tasks record stores a received message with the credential redacted', () => {
    const home = tempHome();
    const result = cli(['tasks', 'record', '--from', 'jiajia', `[A2A:task id=t-1]\nmy key: ${key}`], { home });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('stored as [redacted: …]');
    const stored = cli(['tasks', 'show', 't-1', '--json'], { home }).stdout;
    expect(stored).not.toContain(key);
    expect(JSON.parse(stored).history[0].body).toBe('my key: [redacted: AWS access key]');
  });
});

describe('tasks record with several messages', () => {
  it('reports what it recorded before a refused message, and names that message', () => {
    const home = tempHome();
    cli(['tasks', 'record', '--from', 'jiajia', '[A2A:task id=m-1]'], { home });
    const result = cli(['tasks', 'record', '[A2A:status task=m-1 state=working]\n[A2A:result task=m-1 state=completed]\n[A2A:status task=m-1 state=working]'], { home });
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('m-1 (from jiajia): submitted → working\nm-1 (from jiajia): working → completed\n');
    expect(result.stderr).toContain('TASK_TERMINAL: message 3 of 3: task "m-1" cannot go from completed to working');
  });
});
