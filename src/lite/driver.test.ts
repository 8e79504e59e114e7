import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jiajiaCard, mexicoCard } from '../card/examples.js';
import { render } from '../card/render.js';
import { parse } from '../protocol/parse.js';
import { validate } from '../protocol/validate.js';
import { FileTaskLedger } from '../home/task-ledger.js';
import { MemoryTaskStore } from '../store/task-store.js';
import { tempHome } from '../../test/fixtures/home.js';
import { createAgent, type AgentOptions, type IncomingTask } from '../runtime/agent.js';
import { receiveLite } from './driver.js';
import { textOf } from '../model/task.js';

const EMAIL_TASK = [
  '[A2A:task id=email-001 skill=email]',
  '帮我把这份调研报告发给鲁伊科斯塔。',
  '收件人：ruicosta@example.com',
  '主题：AI Agent 调研报告',
  '正文：请查收附件中的调研报告。',
  '[附件: ai-agent-research.md]',
].join('\n');

const mexico = (onTask: AgentOptions['onTask']) => createAgent({ card: mexicoCard(), onTask });
const ledgerIn = (label: string) => new FileTaskLedger(join(tempHome(label), 'tasks'));

/** Every reply reads back as one valid message, with nothing repaired. */
function expectClean(replies: readonly string[]): void {
  for (const reply of replies) {
    const parsed = parse(reply);
    expect(parsed.warnings, reply).toEqual([]);
    expect(validate(parsed).filter((p) => p.level === 'error'), reply).toEqual([]);
  }
}

/** Each reply as `type state` (or `type` alone), for comparing whole exchanges. */
const shapes = (replies: readonly string[]) =>
  replies.map((reply) => {
    const { type, params } = parse(reply);
    return params.state === undefined ? type : `${type} ${params.state}`;
  });

/** A handler that waits until it is cancelled. */
const waitForCancel: AgentOptions['onTask'] = async (_task, ctx) => {
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
};

/** Resolves with the first reply, while `receive` itself goes on. */
function firstReply(start: (onReply: (reply: string) => void) => Promise<string[]>): { first: Promise<string>; all: Promise<string[]> } {
  let resolveFirst: (reply: string) => void = () => {};
  const first = new Promise<string>((resolve) => (resolveFirst = resolve));
  return { first, all: start((reply) => resolveFirst(reply)) };
}

describe('the protocol example, from Mexico’s side', () => {
  it('answers 佳佳’s discover with the card, and the e-mail task with accepted, then the completed result', async () => {
    const seen: IncomingTask[] = [];
    const agent = mexico(async (task, ctx) => {
      seen.push(task);
      await ctx.complete({ text: '邮件已成功发送到 ruicosta@example.com。' });
    });
    const ledger = ledgerIn('mexico');
    const heard: string[] = [];
    const options = { from: 'jiajia', ledger, onReply: (reply: string) => heard.push(reply) };

    const card = await receiveLite(agent, '[A2A:discover]\n你好！我想了解一下你的能力，看看我们能不能协作完成一个任务。', options);
    expect(card).toEqual([render(mexicoCard(), 'zh')]);
    expect(card[0]).toContain('我是 Mexico，运行在 OpenClaw 上。');

    const replies = await receiveLite(agent, EMAIL_TASK, options);
    expect(replies).toEqual([
      '[A2A:status task=email-001 state=accepted]\n收到，开始处理。',
      '[A2A:result task=email-001 state=completed]\n邮件已成功发送到 ruicosta@example.com。',
    ]);
    expect(heard).toEqual([...card, ...replies]);
    expectClean(heard);

    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ skill: 'email', from: 'jiajia', files: [{ kind: 'file', name: 'ai-agent-research.md' }] });
    expect(seen[0]?.text).toMatch(/^帮我把这份调研报告发给鲁伊科斯塔。\n收件人/);
    expect(seen[0]?.message.metadata).toEqual({ a2aLite: { taskId: 'email-001', from: 'jiajia' } });

    const record = ledger.get('email-001', 'jiajia');
    expect(record).toMatchObject({ role: 'worker', skill: 'email', state: 'completed' });
    expect(record.history.map((e) => `${e.direction} ${e.type} ${e.state}`)).toEqual([
      'in task submitted',
      'out status accepted',
      'out result completed',
    ]);
  });

  it('sends progress and the agent’s words as statuses, and result files as attachment lines', async () => {
    const agent = mexico(async (_task, ctx) => {
      await ctx.status('working', { message: '正在发送邮件', progress: 50, eta: '2 分钟' });
      await ctx.complete({ text: '已发送，回执见附件。', files: [{ name: 'receipt.txt', bytes: new TextEncoder().encode('ok') }] });
    });
    const replies = await receiveLite(agent, EMAIL_TASK, { from: 'jiajia' });
    expect(replies.slice(1)).toEqual([
      '[A2A:status task=email-001 state=working progress=50% eta="2 分钟"]\n正在发送邮件',
      '[A2A:result task=email-001 state=completed]\n已发送，回执见附件。\n[附件: receipt.txt]',
    ]);
    expectClean(replies);
  });
});

describe('input-required', () => {
  it('asks, resolves, and resumes the same runtime task on the peer’s next task message', async () => {
    const ids: string[] = [];
    const agent = createAgent({
      card: jiajiaCard(),
      async onTask(task, ctx) {
        ids.push(task.id);
        const answer = await ctx.ask('时间范围？');
        await ctx.complete({ text: `关于「${task.text}」的报告，范围：${textOf(answer)}`, files: [{ name: 'report.md', url: 'https://example.com/r.md' }] });
      },
    });
    const ledger = ledgerIn('jiajia');
    const asked = await receiveLite(agent, '[A2A:task id=research-001 skill=research]\nAI Agent 生态', { from: 'mexico', ledger });
    expect(asked).toEqual(['[A2A:status task=research-001 state=accepted]\n收到，开始处理。', '[A2A:status task=research-001 state=input-required]\n时间范围？']);

    const done = await receiveLite(agent, '[A2A:task id=research-001]\n过去一周', { from: 'mexico', ledger });
    expect(done).toEqual([
      '[A2A:status task=research-001 state=working]\n收到回复，继续处理。',
      '[A2A:result task=research-001 state=completed]\n关于「AI Agent 生态」的报告，范围：过去一周\n[附件: report.md]',
    ]);
    expectClean([...asked, ...done]);
    expect(ids).toHaveLength(1);
    expect((await agent.listTasks()).tasks).toHaveLength(1);
    expect(ledger.get('research-001', 'mexico').history.map((e) => `${e.direction} ${e.type} ${e.state}`)).toEqual([
      'in task submitted',
      'out status accepted',
      'out status input-required',
      'in task input-required',
      'out status working',
      'out result completed',
    ]);

    // The task has ended: the same id again is answered, not started.
    const again = await receiveLite(agent, '[A2A:task id=research-001]\n再来一次', { from: 'mexico', ledger });
    expect(shapes(again)).toEqual(['plain']);
    expect(again[0]).toContain('已经结束（completed）');
  });

  it('keeps lite ids apart per peer: two peers may both use research-001', async () => {
    const agent = createAgent({ card: jiajiaCard(), onTask: (task) => `for ${task.from}` });
    const a = await receiveLite(agent, '[A2A:task id=research-001]\nx', { from: 'mexico' });
    const b = await receiveLite(agent, '[A2A:task id=research-001]\nx', { from: 'other', lang: 'en' });
    expect(a[1]).toBe('[A2A:result task=research-001 state=completed]\nfor mexico');
    expect(b).toEqual(['[A2A:status task=research-001 state=accepted]\nReceived; working on it.', '[A2A:result task=research-001 state=completed]\nfor other']);
  });

  it('fails a task the ledger left waiting before a restart, instead of starting it again', async () => {
    const ledger = ledgerIn('restart');
    const before = createAgent({ card: jiajiaCard(), onTask: (_task, ctx) => ctx.ask('时间范围？') });
    await receiveLite(before, '[A2A:task id=research-001]\nAI', { from: 'mexico', ledger });
    const after = createAgent({ card: jiajiaCard(), onTask: () => 'should not run' });
    const replies = await receiveLite(after, '[A2A:task id=research-001]\n过去一周', { from: 'mexico', ledger });
    expect(shapes(replies)).toEqual(['status failed']);
    expect(replies[0]).toContain('重启');
    expect(ledger.get('research-001', 'mexico').state).toBe('failed');
    expect((await after.listTasks()).tasks).toEqual([]);
  });
});

describe('endings', () => {
  it.each([
    ['a failure', async () => Promise.reject(new Error('SMTP 服务器拒绝连接')), 'status failed', 'SMTP 服务器拒绝连接'],
    ['a refusal', (_task: IncomingTask, ctx: Parameters<AgentOptions['onTask']>[1]) => ctx.reject('不发这种邮件'), 'status rejected', '不发这种邮件'],
  ] as const)('reports %s as a status with the reason as its body', async (_name, onTask, shape, words) => {
    const replies = await receiveLite(mexico(onTask), EMAIL_TASK, { from: 'jiajia' });
    expect(shapes(replies)).toEqual(['status accepted', shape]);
    expect(parse(replies[1] as string).body).toBe(words);
    expectClean(replies);
  });

  it('fails a task the agent cannot start, and keeps its id ended', async () => {
    const store = new MemoryTaskStore();
    store.save = () => Promise.reject(new Error('disk full'));
    const agent = createAgent({ card: mexicoCard(), store, onError: () => {}, onTask: () => 'should not run' });
    const replies = await receiveLite(agent, EMAIL_TASK, { from: 'jiajia', lang: 'en' });
    expect(replies).toEqual(['[A2A:status task=email-001 state=failed]\nCould not start the task: the new task could not be saved (disk full)']);
    expect(await receiveLite(agent, EMAIL_TASK, { from: 'jiajia', lang: 'en' })).toEqual([
      'Task email-001 has already ended (failed). Send a new request with a new task id.',
    ]);
  });

  it('reports a task refused by the concurrency limit as rejected, without accepting it', async () => {
    const agent = createAgent({ card: mexicoCard({ limits: { maxConcurrentTasks: 1 } }), onTask: waitForCancel });
    const { first } = firstReply((onReply) => receiveLite(agent, '[A2A:task id=a]\nx', { from: 'jiajia', onReply }));
    await first;
    const replies = await receiveLite(agent, '[A2A:task id=b]\ny', { from: 'jiajia', lang: 'en' });
    expect(shapes(replies)).toEqual(['status rejected']);
    expect(replies[0]).toContain('Busy');
    await agent.shutdown();
  });
});

describe('cancel', () => {
  it('cancels the runtime task and answers cancelled once; a second cancel gets plain text', async () => {
    const agent = mexico(waitForCancel);
    const ledger = ledgerIn('cancel');
    const { first, all } = firstReply((onReply) => receiveLite(agent, EMAIL_TASK, { from: 'jiajia', ledger, onReply }));
    expect(await first).toBe('[A2A:status task=email-001 state=accepted]\n收到，开始处理。');

    const cancelled = await receiveLite(agent, '[A2A:cancel task=email-001 reason=不用了]', { from: 'jiajia', ledger });
    expect(cancelled).toEqual(['[A2A:status task=email-001 state=cancelled]\n已按你的要求取消。']);
    // The task's own receive ends with the cancel, without saying it a second time.
    expect(await all).toEqual([await first]);
    expect((await agent.listTasks()).tasks[0]?.status.state).toBe('cancelled');
    expect(ledger.get('email-001', 'jiajia')).toMatchObject({ state: 'cancelled', cancelRequested: true, reason: '不用了' });

    const again = await receiveLite(agent, '[A2A:cancel task=email-001]', { from: 'jiajia', ledger, lang: 'en' });
    expect(again).toEqual(['Task email-001 has already ended (cancelled); nothing to cancel.']);
    const unknown = await receiveLite(agent, '[A2A:cancel task=email-999]', { from: 'jiajia' });
    expect(shapes(unknown)).toEqual(['plain']);
    expect(unknown[0]).toContain('email-999');
    expectClean([...cancelled, ...again, ...unknown]);
  });

  it('cancels a task waiting for input', async () => {
    const agent = mexico((_task, ctx) => ctx.ask('发给谁？'));
    await receiveLite(agent, EMAIL_TASK, { from: 'jiajia' });
    expect(shapes(await receiveLite(agent, '[A2A:cancel task=email-001]', { from: 'jiajia' }))).toEqual(['status cancelled']);
  });

  it('answers a reply sent while the task is still working with plain text', async () => {
    const agent = mexico(waitForCancel);
    const { first } = firstReply((onReply) => receiveLite(agent, EMAIL_TASK, { from: 'jiajia', onReply }));
    await first;
    const replies = await receiveLite(agent, '[A2A:task id=email-001]\n还有一件事', { from: 'jiajia' });
    expect(shapes(replies)).toEqual(['plain']);
    expect(replies[0]).toContain('正在进行');
    await agent.shutdown();
  });
});

describe('messages from a peer about our own requests', () => {
  it('records status, result and ack in a FileTaskLedger, and replies nothing', async () => {
    const agent = createAgent({ card: jiajiaCard(), onTask: () => 'unused' });
    const ledger = ledgerIn('jiajia');
    ledger.record(parse(EMAIL_TASK), { direction: 'out', peer: 'mexico' });

    expect(await receiveLite(agent, '[A2A:status task=email-001 state=working progress=50%]\n正在发送邮件', { from: 'mexico', ledger })).toEqual([]);
    expect(ledger.get('email-001', 'mexico')).toMatchObject({ state: 'working', progress: 50 });

    const end = '[A2A:result task=email-001 state=completed]\n邮件已成功发送。\n[附件: receipt.txt]\n[A2A:ack task=email-001]';
    expect(await receiveLite(agent, end, { from: 'mexico', ledger })).toEqual([]);
    const record = ledger.get('email-001', 'mexico');
    expect(record).toMatchObject({ role: 'requester', state: 'completed', result: { text: '邮件已成功发送。', attachments: ['receipt.txt'] } });
    expect(record.history.map((e) => `${e.direction} ${e.type}`)).toEqual(['out task', 'in status', 'in result', 'in ack']);
    expect((await agent.listTasks()).tasks).toEqual([]);
  });

  it('reports what the ledger refuses to onError, without a reply and without throwing', async () => {
    const agent = createAgent({ card: jiajiaCard(), onTask: () => 'unused' });
    const errors: unknown[] = [];
    const replies = await receiveLite(agent, '[A2A:status task=nobody-001 state=working]', { from: 'mexico', ledger: ledgerIn('refuse'), onError: (e) => errors.push(e) });
    expect(replies).toEqual([]);
    expect(errors).toMatchObject([{ code: 'TASK_NOT_FOUND' }]);
  });

  it('ignores plain text, cards and types from later versions', async () => {
    const agent = createAgent({ card: jiajiaCard(), onTask: () => 'unused' });
    const text = `你好！\n${render(mexicoCard())}\n[A2A:negotiate topic=price]\n再聊`;
    expect(await receiveLite(agent, text, { from: 'mexico' })).toEqual([]);
  });
});

describe('several messages in one text', () => {
  it('handles each in order', async () => {
    const agent = mexico(() => '已发送。');
    const text = `@Mexico [A2A:discover]\n你好\n\n${EMAIL_TASK}`;
    const replies = await receiveLite(agent, text, { from: 'jiajia', lang: 'en' });
    expect(replies).toEqual([render(mexicoCard(), 'en'), '[A2A:status task=email-001 state=accepted]\nReceived; working on it.', '[A2A:result task=email-001 state=completed]\n已发送。']);
  });

  it('lets a cancel later in the same text reach the task it started', async () => {
    const agent = mexico(waitForCancel);
    const replies = await receiveLite(agent, `${EMAIL_TASK}\n[A2A:cancel task=email-001]`, { from: 'jiajia' });
    expect(shapes(replies)).toEqual(['status accepted', 'status cancelled']);
  });
});

describe('invalid messages', () => {
  it.each([
    ['[A2A:task skill=email]\n没有 id', 'plain', '"task" needs the parameter "id"'],
    ['[A2A:task id=email-002 priority=]\n空的优先级', 'status failed', 'parameter "priority" is empty'],
    ['[A2A:status task=email-001 state=sleeping]', 'plain', 'state "sleeping" is none of'],
    ['[A2A:result task=email-001 state=working]', 'plain', 'a result must end the task'],
    ['[A2A:cancel task="../x"]', 'plain', 'must be 1–128 letters or digits'],
    ['[A2A:task id=email-003]\nkey: sk-abcdefghijklmnopqrstuvwxyz0123', 'status failed', 'looks like a credential'],
  ])('%j → %s naming the problem', async (text, shape, problem) => {
    const agent = mexico(() => 'should not run');
    const replies = await receiveLite(agent, text, { from: 'jiajia' });
    expect(shapes(replies)).toEqual([shape]);
    expect(replies[0]).toContain(problem);
    expect(replies[0]).not.toContain('sk-abcdefghijklmnopqrstuvwxyz0123');
    expectClean(replies);
    expect((await agent.listTasks()).tasks).toEqual([]);
  });

  it('answers an invalid reply to a waiting task with plain text, leaving the task waiting', async () => {
    const agent = mexico((_task, ctx) => ctx.ask('发给谁？'));
    await receiveLite(agent, EMAIL_TASK, { from: 'jiajia' });
    const replies = await receiveLite(agent, '[A2A:task id=email-001]\ntoken sk-abcdefghijklmnopqrstuvwxyz0123', { from: 'jiajia' });
    expect(shapes(replies)).toEqual(['plain']);
    expect((await agent.listTasks()).tasks[0]?.status.state).toBe('input-required');
  });
});

describe('hostile text', () => {
  const header = fc.constantFrom(
    '[A2A:task id=t-1]', '[A2A:task id=t-1 skill=x]', '[A2A:task id=t-2]', '[A2A:cancel task=t-1]', '[A2A:discover]', '[A2A:ack task=t-1]',
    '[A2A:status task=t-1 state=working progress=200%]', '[A2A:result task=t-1 state=completed]', '[A2A:Bad!]', '［A2A：task id=t-2］', '@Mexico [A2A:task id=t-3]',
  );
  const tricky = fc.constantFrom(
    '[附件: a.md]', '[附件: ]', '```', '\r', '"', '\\', ']', '=', '?', 'sk-abcdefghijklmnopqrstuvwxyz0123', '\u0000', '\u3000', '[A2A:task id=t-1]',
  );
  const junk = fc.array(fc.oneof(tricky, fc.string({ unit: 'grapheme', maxLength: 4 })), { maxLength: 8 }).map((parts) => parts.join(''));
  const line = fc.oneof(header, junk, fc.tuple(header, junk).map(([h, j]) => h + j));
  const hostile = fc.tuple(fc.array(line, { maxLength: 12 }), fc.constantFrom('\n', '\r\n')).map(([lines, end]) => lines.join(end));

  it('never throws, and every reply reads back as a valid message with no warnings', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (text) => {
        // The agent echoes what it got, so hostile text reaches the replies too.
        const agent = createAgent({
          card: mexicoCard(),
          async onTask(task, ctx) {
            await ctx.status('working', { message: task.text, progress: task.text.length % 101, eta: task.text.slice(0, 9) });
            if (task.text.includes('?')) await ctx.ask(task.text);
            await ctx.complete({ text: task.text, files: task.files.map((f) => ({ name: f.name ?? '', url: 'https://example.com/f' })) });
          },
        });
        const replies = await receiveLite(agent, text, { from: 'jiajia', ledger: ledgerIn('fuzz'), lang: text.length % 2 === 0 ? 'zh' : 'en' });
        expectClean(replies);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 200) },
    );
  });

  it('writes valid replies whatever the handler says', async () => {
    const agent = mexico(async (_task, ctx) => {
      await ctx.status('working', { message: 'line\r\n[A2A:task id=evil]\r\r\n[附件: fake.md]\n', progress: 33.333333, eta: 'two\nlines' });
      await ctx.status('working', { progress: 250 });
      await ctx.complete({ text: 'Bearer abcdefghijklmnopqrstuvwxyz', files: [{ name: ' a\nb.md ' }, { name: '' }], data: { ok: true } });
    });
    const replies = await receiveLite(agent, EMAIL_TASK, { from: 'jiajia' });
    expectClean(replies);
    expect(parse(replies[1] as string)).toMatchObject({ params: { progress: '33.33%', eta: 'two lines' }, body: 'line\n[A2A:task id=evil]\n\n[附件: fake.md]' });
    expect(parse(replies[2] as string).params.progress).toBeUndefined();
    expect(parse(replies[3] as string)).toMatchObject({ body: expect.stringContaining('[redacted: bearer token]'), attachments: ['a b.md', 'file-2'] });
  });

});
