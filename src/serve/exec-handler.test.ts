import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/fixtures/home.js';
import { eventually } from '../../test/fixtures/webhook.js';
import { jiajiaCard } from '../card/examples.js';
import { createAgent } from '../runtime/agent.js';
import type { Part, TaskEvent, TaskMessage } from '../model/task.js';
import { execHandler, type ExecOptions } from './exec-handler.js';

let counter = 0;
const message = (text: string, extra: Partial<TaskMessage> = {}): TaskMessage => ({
  messageId: `m-${(counter += 1)}`,
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});

function agentFor(command: string, options: Partial<ExecOptions> = {}) {
  const workRoot = join(tempHome('exec'), 'work');
  const agent = createAgent({ card: jiajiaCard(), onTask: execHandler({ command, workRoot, graceMs: 300, ...options }) });
  return { agent, workRoot };
}

const hasSetsid = spawnSync('sh', ['-c', 'command -v setsid'], { stdio: 'ignore' }).status === 0;

/** Whether a process runs; a zombie (ended, not yet reaped by the init it was handed to) does not. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

const reasonOf = (task: { status: { message?: TaskMessage } }) => {
  const part = task.status.message?.parts[0];
  return part?.kind === 'text' ? part.text : undefined;
};

describe('serve --exec', () => {
  it('completes with the plain output of a program that exits 0', async () => {
    const { agent } = agentFor('read -r header; echo "done: $header"');
    const task = await agent.send(message('hello'));
    expect(task.status.state).toBe('completed');
    expect(task.artifacts[0]?.parts).toEqual([{ kind: 'text', text: `done: [A2A:task id=${task.id}]` }]);
  });

  it('reads the lite header an A2A-Lite peer opens its request with, instead of passing it on escaped', async () => {
    const { agent, workRoot } = agentFor('cat > stdin.txt; echo "$A2A_PEER_TASK_ID $A2A_SKILL"');
    const task = await agent.send(message('[A2A:task id=research-002 skill=research priority=high]\nAI agents, [A2A:nested] last week'));
    expect(task.artifacts[0]?.parts).toEqual([{ kind: 'text', text: 'research-002 research' }]);
    const stdin = readFileSync(join(workRoot, task.id, 'stdin.txt'), 'utf8');
    expect(stdin).toBe(`[A2A:task id=${task.id} skill=research priority=high]\nAI agents, [A2A:nested] last week\n`);
  });

  it('says the result on the final status, or the words a completed status gives', async () => {
    const plain = await agentFor('echo "forty-two"').agent.send(message('answer'));
    expect([reasonOf(plain), plain.artifacts[0]?.parts]).toEqual(['forty-two', [{ kind: 'text', text: 'forty-two' }]]);
    const { agent } = agentFor('printf "[A2A:result task=$A2A_TASK_ID state=completed]\\n42\\n[A2A:status task=$A2A_TASK_ID state=completed]\\nAnswered.\\n"');
    const worded = await agent.send(message('answer'));
    expect([worded.status.state, reasonOf(worded), worded.artifacts[0]?.parts]).toEqual(['completed', 'Answered.', [{ kind: 'text', text: '42' }]]);
  });

  it('takes text that does not open with a valid task header word for word', async () => {
    const { agent, workRoot } = agentFor('cat > stdin.txt; echo "[$A2A_PEER_TASK_ID]"');
    const task = await agent.send(message('[A2A:task id=../../bad]\nhello'));
    expect(task.artifacts[0]?.parts).toEqual([{ kind: 'text', text: '[]' }]);
    expect(readFileSync(join(workRoot, task.id, 'stdin.txt'), 'utf8')).toBe(`[A2A:task id=${task.id}]\n\\[A2A:task id=../../bad]\nhello\n`);
  });

  it('streams status lines live and returns the files of the result', async () => {
    const script = [
      'printf "[A2A:status task=$A2A_TASK_ID state=working progress=30%%]\\nreading\\n"',
      'sleep 0.2',
      'printf "# Report\\n" > report.md',
      'printf "[A2A:result task=$A2A_TASK_ID state=completed]\\nsee the report\\n[附件: report.md]\\n"',
    ].join('; ');
    const { agent } = agentFor(script);
    const events: TaskEvent[] = [];
    for await (const event of await agent.stream(message('research'))) events.push(event);
    const progress = events.find((e) => e.kind === 'status' && e.status.state === 'working');
    expect(progress?.kind === 'status' && progress.status.message?.metadata).toEqual({ a2aLite: { progress: 30 } });
    const task = await agent.getTask(events[0]?.kind === 'task' ? events[0].task.id : '');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts[0]?.parts).toEqual([
      { kind: 'text', text: 'see the report' },
      { kind: 'file', name: 'report.md', mediaType: 'text/markdown', bytes: Buffer.from('# Report\n').toString('base64') },
    ]);
  });

  it('shows a status at once when the program then works silently, and only once', async () => {
    const finished = join(tempHome('exec-marker'), 'finished');
    const script = [
      'printf "[A2A:status task=$A2A_TASK_ID state=working]\\nsleeping\\n"',
      'sleep 0.5',
      'echo "still sleeping"', // no header of its own: plain text, not a second status
      'sleep 1.5',
      `touch '${finished}'`,
      'printf "[A2A:result task=$A2A_TASK_ID state=completed]\\nrested\\n"',
    ].join('; ');
    const { agent } = agentFor(script);
    const started = Date.now();
    const statuses: { state: string; text: string | undefined; at: number; programDone: boolean }[] = [];
    for await (const event of await agent.stream(message('nap'))) {
      if (event.kind === 'status') statuses.push({ state: event.status.state, text: reasonOf(event), at: Date.now() - started, programDone: existsSync(finished) });
    }
    const working = statuses.filter((s) => s.state === 'working');
    expect(working.map((s) => s.text)).toEqual(['sleeping']);
    // It came while the program still ran, not when it ended (2 s later) as it once did.
    expect(working[0]?.programDone).toBe(false);
    expect(statuses.at(-1)).toMatchObject({ state: 'completed' });
    expect(statuses.at(-1)?.at).toBeGreaterThan(1900);
  });

  it('fails with the end of stderr when the program exits non-zero', async () => {
    const { agent } = agentFor('echo "no access to source X" >&2; exit 3');
    const task = await agent.send(message('x'));
    expect(task.status.state).toBe('failed');
    expect(reasonOf(task)).toBe('the program failed: no access to source X');
  });

  it.each([
    { title: 'asks for input and runs the next turn with the whole conversation', state: 'input-required', question: 'which range?', ask: 'research', reply: 'last week', result: 'research over last week' },
    { title: 'asks for credentials when the program says auth-required, and takes the reply as the answer', state: 'auth-required', question: 'Sign in to the mailbox first.', ask: 'read my mail', reply: 'token-ok', result: 'mail read' },
  ])('$title', async ({ state, question, ask, reply, result }) => {
    const script = `input=$(cat); case "$input" in *"${reply}"*) echo "${result}";; *) printf "[A2A:status task=$A2A_TASK_ID state=${state}]\\n${question}\\n";; esac`;
    const { agent } = agentFor(script);
    const asked = await agent.send(message(ask));
    expect(asked.status.state).toBe(state);
    expect(reasonOf(asked)).toBe(question);
    const done = await agent.send(message(reply, { taskId: asked.id }));
    expect(done.status.state).toBe('completed');
    expect(done.artifacts[0]?.parts[0]).toEqual({ kind: 'text', text: result });
  });

  it.each([
    ['a program that stops on SIGTERM', 'echo $$ > pid; trap "exit 0" TERM; sleep 30 & wait'],
    ['a program that ignores SIGTERM', 'echo $$ > pid; trap "" TERM; while :; do sleep 0.05; done'],
  ])('cancels %s, and the process is gone', async (_what, script) => {
    const { agent, workRoot } = agentFor(script);
    const started = await agent.send(message('x'), { returnImmediately: true });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const cancelled = await agent.cancel(started.id);
    expect(cancelled.status.state).toBe('cancelled');
    const pid = Number(readFileSync(join(workRoot, started.id, 'pid'), 'utf8'));
    await eventually(() => expect(() => process.kill(pid, 0)).toThrow(/ESRCH/));
  });

  it.each([
    ['hangs', 'sleep 30', { timeoutMs: 300 }, 'the program ran longer than 0.3 s'],
    ['hangs and ignores SIGTERM', 'trap "" TERM; while :; do sleep 0.05; done', { timeoutMs: 300 }, 'the program ran longer than 0.3 s'],
    ['floods stdout and ignores SIGTERM', 'trap "" TERM; yes', { maxOutputBytes: 100_000 }, 'the program printed more than 100000 bytes'],
    ['floods stdout', 'yes | head -c 3000000', { maxOutputBytes: 100_000 }, 'the program printed more than 100000 bytes'],
    ['exits mid-message', 'printf "[A2A:result task=$A2A_TASK_ID state=compl"; exit 1', {}, 'the program failed: exit code 1'],
    ['is killed mid-message', 'printf "[A2A:result task=$A2A_TASK_ID state=compl"; kill -KILL $$', {}, 'the program failed: killed by SIGKILL'],
    ['names a file outside its folder', 'printf "[A2A:result task=$A2A_TASK_ID state=completed]\\n[附件: ../../etc/passwd]\\n"', {}, 'lies outside the task folder'],
    ['names an absolute path', 'printf "[A2A:result task=$A2A_TASK_ID state=completed]\\n[附件: /etc/passwd]\\n"', {}, 'lies outside the task folder'],
    ['names a link that leads out', 'ln -s /etc/passwd out.txt; printf "[A2A:result task=$A2A_TASK_ID state=completed]\\n[附件: out.txt]\\n"', {}, 'lies outside the task folder'],
    ['names a missing file', 'printf "[A2A:result task=$A2A_TASK_ID state=completed]\\n[附件: nothing.md]\\n"', {}, 'which is not in the task folder'],
  ])('fails a task whose program %s', async (_what, script, options, reason) => {
    const { agent } = agentFor(script, options);
    const task = await agent.send(message('x'));
    expect(task.status.state).toBe('failed');
    expect(reasonOf(task)).toContain(reason);
  });

  describe('a program that leaves a process holding its output', () => {
    // The process left behind holds the output for longer than a test may run: a task that
    // waited for the output to close would fail by the test's own timeout.
    const leaving = (how: string) => `${how} sh -c 'echo $$ > left; exec sleep 120' & printf "[A2A:result task=$A2A_TASK_ID state=completed]\\ndone\\n"`;
    const pidLeft = (workRoot: string, taskId: string) => Number(readFileSync(join(workRoot, taskId, 'left'), 'utf8'));
    const end = (pid: number): void => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    };

    it('ends the task when the program exits, and stops what it left in its group', async () => {
      const { agent, workRoot } = agentFor(leaving(''));
      const task = await agent.send(message('x'));
      const left = pidLeft(workRoot, task.id);
      try {
        expect(task.status.state).toBe('completed');
        expect(task.artifacts[0]?.parts).toEqual([{ kind: 'text', text: 'done' }]);
        await eventually(() => expect(isRunning(left)).toBe(false));
      } finally {
        end(left);
      }
    });

    it.skipIf(!hasSetsid)('ends the task when the program exits, though what it left escaped the group with setsid', async () => {
      const { agent, workRoot } = agentFor(leaving('setsid'));
      const task = await agent.send(message('x'));
      try {
        expect(task.status.state).toBe('completed');
        expect(task.artifacts[0]?.parts).toEqual([{ kind: 'text', text: 'done' }]);
      } finally {
        // No signal to the group reaches a process in a session of its own.
        end(pidLeft(workRoot, task.id));
      }
    });

    it.skipIf(!hasSetsid)('fails the task at the time limit though what the program left escaped the group', async () => {
      const { agent, workRoot } = agentFor(`setsid sh -c 'echo $$ > left; exec sleep 120' & sleep 120`, { timeoutMs: 300 });
      const task = await agent.send(message('x'));
      try {
        expect(task.status.state).toBe('failed');
        expect(reasonOf(task)).toBe('the program ran longer than 0.3 s');
      } finally {
        end(pidLeft(workRoot, task.id));
      }
    });
  });

  it('saves files from peers under safe names inside the task folder', async () => {
    const { agent, workRoot } = agentFor('cat > stdin.txt; ls');
    const file = (name: string): Part => ({ kind: 'file', name, bytes: Buffer.from(`content of ${name}`).toString('base64') });
    const task = await agent.send(
      message('files', { parts: [{ kind: 'text', text: 'files' }, file('../../evil.sh'), file('CON'), file('re\u202Eport.md'), file('a.txt'), file('a.txt')] }),
    );
    expect(task.status.state).toBe('completed');
    const folder = join(workRoot, task.id);
    expect(readdirSync(folder).sort()).toEqual(['_CON', 'a-1.txt', 'a.txt', 'evil.sh', 'report.md', 'stdin.txt']);
    expect(readdirSync(workRoot)).toEqual([task.id]);
  });

  it('refuses a link in the folder even when it points to another task', async () => {
    const root = tempHome('links');
    mkdirSync(join(root, 'other'));
    writeFileSync(join(root, 'other', 'secret.txt'), 'x');
    symlinkSync(join(root, 'other', 'secret.txt'), join(root, 'link.txt'));
    const { fileInside } = await import('../home/safe-names.js');
    mkdirSync(join(root, 'task'));
    symlinkSync(join(root, 'other', 'secret.txt'), join(root, 'task', 'link.txt'));
    expect(() => fileInside(join(root, 'task'), 'link.txt')).toThrow(/outside the task folder/);
  });
});

describe('the program’s environment', () => {
  it('leaves out the variables named in hiddenEnv', async () => {
    process.env.A2A_TEST_HIDDEN = 'server-secret-value';
    process.env.A2A_TEST_SHOWN = 'visible';
    try {
      const { agent } = agentFor('echo "hidden=${A2A_TEST_HIDDEN:-none} shown=${A2A_TEST_SHOWN:-none} task=$A2A_TASK_ID"', { hiddenEnv: ['A2A_TEST_HIDDEN'] });
      const task = await agent.send(message('x'));
      expect(task.artifacts[0]?.parts[0]).toEqual({ kind: 'text', text: `hidden=none shown=visible task=${task.id}` });
    } finally {
      delete process.env.A2A_TEST_HIDDEN;
      delete process.env.A2A_TEST_SHOWN;
    }
  });
});

describe('artifacts in chunks from the program', () => {
  it('sends each artifact=NAME status at once, appends the next chunks of NAME, and ends it at last=true', async () => {
    const script = [
      'printf "[A2A:status task=$A2A_TASK_ID state=working artifact=draft]\\nfirst part\\n\\n"',
      'sleep 0.2',
      'printf "[A2A:status task=$A2A_TASK_ID state=working progress=50%%]\\nhalfway\\n\\n"',
      'printf "[A2A:status task=$A2A_TASK_ID state=working artifact=draft last=true]\\nsecond part\\n\\n"',
      'printf "[A2A:result task=$A2A_TASK_ID state=completed]\\nall written\\n"',
    ].join('; ');
    const { agent } = agentFor(script);
    const events: TaskEvent[] = [];
    for await (const event of await agent.stream(message('write'))) events.push(event);
    const chunks = events.flatMap((e) => (e.kind === 'artifact' ? [[e.artifact.name ?? '', e.append, e.lastChunk, e.artifact.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')]] : []));
    expect(chunks).toEqual([
      ['draft', false, false, 'first part'],
      ['draft', true, true, 'second part'],
      ['result', false, true, 'all written'],
    ]);
    const final = events.find((e) => e.kind === 'artifact' && e.append);
    const task = await agent.getTask(final?.kind === 'artifact' ? final.taskId : '');
    expect(task.artifacts.map((a) => [a.name, a.parts.length])).toEqual([['draft', 2], ['result', 1]]);
  });
});
