import { describe, expect, it } from 'vitest';
import { tempHome } from '../fixtures/home.js';
import { cli, shell } from './run-cli.js';

describe('a2a-lite parse', () => {
  it('prints the reading of a message as JSON', () => {
    const { code, stdout } = cli(['parse', '[A2A:status task=research-001 state=working progress=50%]\n正在收集资料']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      type: 'status',
      params: { task: 'research-001', state: 'working', progress: '50%' },
      body: '正在收集资料',
      attachments: [],
      warnings: [],
      problems: [],
      valid: true,
    });
  });

  it('reads stdin when no TEXT is given, and reports repairs and problems', () => {
    const { code, stdout } = cli(['parse'], { input: '@Mexico ［A2A：result task=t state=working］\n还没好\n' });
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout);
    expect(parsed.warnings.map((w: { code: string }) => w.code)).toEqual(['MENTION_STRIPPED', 'FULLWIDTH_NORMALIZED']);
    expect(parsed.problems.map((p: { code: string }) => p.code)).toEqual(['RESULT_NOT_TERMINAL']);
    expect(parsed.valid).toBe(false);
  });

  it('prints every message with --all', () => {
    const { stdout } = cli(['parse', '--all', '[A2A:ack task=a]\n[A2A:ack task=b]']);
    expect(JSON.parse(stdout).map((m: { params: { task: string } }) => m.params.task)).toEqual(['a', 'b']);
  });

  it('reads plain text as plain', () => {
    expect(JSON.parse(cli(['parse', 'hello there']).stdout).type).toBe('plain');
  });

  it('refuses input over the limit with a clear error', () => {
    const { code, stderr } = cli(['parse'], { input: 'x'.repeat(4 * 1024 * 1024 + 1) });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^a2a-lite: INPUT_TOO_LARGE: the message on stdin is over 4194304 bytes/);
  });
});

describe('a2a-lite format', () => {
  it('writes a message, quoting what needs quotes', () => {
    const { code, stdout } = cli(['format', 'cancel', 'task=t-1', 'reason=缺少 权限']);
    expect(code).toBe(0);
    expect(stdout).toBe('[A2A:cancel task=t-1 reason="缺少 权限"]\n');
  });

  it('writes the body and attachment lines', () => {
    const { stdout } = cli(['format', 'result', 'task=research-001', 'state=completed', '--body', '调研报告已完成，见附件。', '--attach', 'report.md']);
    expect(stdout).toBe('[A2A:result task=research-001 state=completed]\n调研报告已完成，见附件。\n[附件: report.md]\n');
  });

  it('takes the body from a shell pipe or from --body -', () => {
    expect(shell('printf "line one\\nline two\\n" | $A2A format task id=t-1').stdout).toBe('[A2A:task id=t-1]\nline one\nline two\n');
    expect(cli(['format', 'ack', 'task=t', '--body', '-'], { input: '收到\n' }).stdout).toBe('[A2A:ack task=t]\n收到\n');
  });

  it.each([
    [['format', 'task'], 3, 'INVALID_MESSAGE: refused: "task" needs the parameter "id"'],
    [['format', 'status', 'task=t', 'state=done'], 3, 'state "done" is none of accepted, working'],
    [['format', 'result', 'task=t', 'state=working'], 3, 'a result must end the task'],
    [['format', 'status', 'task=t', 'state=working', 'progress=120%'], 3, 'progress "120%" must be a number from 0 to 100'],
    [['format', 'task', 'id'], 2, 'USAGE: format: expected key=value, got "id"'],
    [['format'], 2, 'USAGE: format: TYPE is required'],
    [['format', 'task', 'id=x', '--bogus'], 2, "unknown option '--bogus'"],
  ])('refuses %j (exit %i)', (args, code, message) => {
    const result = cli(args);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });

  it('prints JSON errors on stderr with --json', () => {
    const { code, stderr } = cli(['format', 'task', '--json']);
    expect(code).toBe(3);
    expect(JSON.parse(stderr).error.code).toBe('INVALID_MESSAGE');
  });

  it('writes text that parse reads back unchanged', () => {
    const text = cli(['format', 'task', 'id=x', 'note=a "quoted" \\ value', '--body', '[A2A:task id=fake]\nbody']).stdout;
    const parsed = JSON.parse(cli(['parse'], { input: text }).stdout);
    expect(parsed.params.note).toBe('a "quoted" \\ value');
    expect(parsed.body).toBe('[A2A:task id=fake]\nbody');
    expect(parsed.warnings).toEqual([]);
  });
});

describe('a2a-lite validate', () => {
  it('exits 0 for a valid message', () => {
    const { code, stdout } = cli(['validate', '[A2A:task id=research-001 skill=research]']);
    expect(code).toBe(0);
    expect(stdout).toBe('valid task message\n');
  });

  it('exits 3 and lists every problem', () => {
    const { code, stdout } = cli(['validate', '[A2A:status progress=x]']);
    expect(code).toBe(3);
    expect(stdout).toContain('error MISSING_PARAM (task)');
    expect(stdout).toContain('error MISSING_PARAM (state)');
    expect(stdout).toContain('error INVALID_PROGRESS (progress)');
  });

  it('accepts unknown params as notices', () => {
    const { code, stdout } = cli(['validate', '--json', '[A2A:task id=x mood=happy]']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).problems).toEqual([
      { code: 'UNKNOWN_PARAM', level: 'notice', message: 'parameter "mood" is not defined for "task"; kept as is', param: 'mood' },
    ]);
  });

  it('uses no home at all', () => {
    expect(cli(['validate', '[A2A:discover]'], { home: tempHome() }).code).toBe(0);
  });
});
