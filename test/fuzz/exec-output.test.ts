// Fuzzing how `serve --exec` reads a program's stdout: any output, cut into chunks anywhere as a
// pipe may deliver it, goes through the StatusReader (live status updates) and then outcomeOf and
// finish (the end of the turn), in a real agent with the memory store. No process is started:
// the reading is what is under test. Nothing throws out of the handler, every status update the
// output asks for is legal or refused quietly, and the task ends in the state the output says
// (or failed, with a reason, when a file it names cannot be sent).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { jiajiaCard } from '../../src/card/examples.js';
import { WIRE_STATES } from '../../src/protocol/states.js';
import { createAgent, type Agent, type TaskContext } from '../../src/runtime/agent.js';
import { FINAL_WORDS_LIMIT } from '../../src/runtime/task-context.js';
import { textOf, type Task } from '../../src/model/task.js';
import { StatusReader } from '../../src/serve/exec-handler.js';
import { finish, outcomeOf, type Outcome } from '../../src/serve/exec-outcome.js';
import { check, expectSame } from './expect-fast.js';
import { cut, line, words } from './hostile-text.js';
import { fuzzOptions, fuzzTarget, fuzzTimeout } from './runs.js';

const CASES_PER_AGENT = 1000;
const MAX_FILE_BYTES = 1024;

/** A task folder with a file that can be sent, one too large, one leading out, and a folder. */
const folder = mkdtempSync(join(tmpdir(), 'a2a-lite-fuzz-exec-'));
writeFileSync(join(folder, 'report.md'), '# Report\n');
writeFileSync(join(folder, 'big.bin'), Buffer.alloc(MAX_FILE_BYTES + 1));
mkdirSync(join(folder, 'sub'));
symlinkSync('/etc/hostname', join(folder, 'out.txt'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const state = fc.oneof({ arbitrary: fc.constantFrom(...WIRE_STATES), weight: 6 }, { arbitrary: fc.constantFrom('submitted', 'done', 'WORKING', ''), weight: 1 });
const progress = fc.constantFrom('', ' progress=30%', ' progress=100', ' progress=101', ' progress=abc', ' progress=99.5', ' eta=10m', ' progress=5% eta="2 min"');
const fileName = fc.oneof({ arbitrary: fc.constantFrom('report.md', 'report.md', 'missing.txt', 'big.bin', 'out.txt', 'sub', '../x', '/etc/passwd', '.', 'a\u0000b', '"a, b.md"'), weight: 4 }, { arbitrary: words(2), weight: 1 });
const body = fc.array(fc.oneof({ arbitrary: words(6), weight: 3 }, { arbitrary: line, weight: 1 }), { maxLength: 3 });

/** One message as a program prints it: a status or a result, canonical or bent, or plain text. */
const printed = fc.oneof(
  { arbitrary: fc.tuple(state, progress, body).map(([s, p, b]) => [`[A2A:status task=t state=${s}${p}]`, ...b].join('\n')), weight: 5 },
  { arbitrary: fc.tuple(state, body, fc.array(fileName, { maxLength: 2 })).map(([s, b, files]) => [`[A2A:result task=t state=${s}]`, ...b, ...files.map((f) => `[附件: ${f}]`)].join('\n')), weight: 3 },
  { arbitrary: body.map((b) => b.join('\n')), weight: 2 },
  { arbitrary: line, weight: 1 },
);
const output = fc.tuple(fc.array(printed, { maxLength: 6 }), fc.constantFrom('\n', '\n', '\n', '\r\n')).map(([messages, end]) => messages.join(end) + (messages.length > 0 ? end : ''));

interface Turn {
  chunks: string[];
  code: number | null;
  outcome?: Outcome;
}

let turn: Turn = { chunks: [], code: 0 };
const reported: unknown[] = [];

/** An agent whose handler reads `turn` as the exec handler reads a program's output. */
function newAgent(): Agent {
  return createAgent({
    card: jiajiaCard(),
    onError: (error) => reported.push(error),
    onTask: async (_task, ctx) => {
      const reader = new StatusReader(ctx);
      for (const chunk of turn.chunks) reader.offer(chunk);
      await reader.done();
      const outcome = outcomeOf(turn.chunks.join(''), turn.code, 'the program failed: exit code 1');
      turn.outcome = outcome;
      if (outcome.kind === 'ask') return `asked: ${textOf(await ctx.ask(outcome.question))}`;
      return finish(ctx, folder, outcome, MAX_FILE_BYTES);
    },
  });
}

/** The states a turn may end in, given what its output said. */
function allowed(outcome: Outcome | undefined): readonly string[] {
  if (outcome === undefined) return [];
  if (outcome.kind === 'ask') return ['input-required'];
  // A file that cannot be sent fails the task; so does a refusal after work began (the state
  // machine allows rejected only before), and a cancel: a program cannot cancel its own task.
  if (outcome.state === 'completed' || outcome.state === 'rejected') return [outcome.state, 'failed'];
  if (outcome.state === 'cancelled') return ['failed'];
  return [outcome.state];
}

/** The status updates a StatusReader makes of `chunks`, through a context that only records them. */
async function statusCalls(chunks: readonly string[]): Promise<string> {
  const calls: unknown[] = [];
  const ctx = { status: async (state: string, options: unknown) => void calls.push([state, options]) } as unknown as TaskContext;
  const reader = new StatusReader(ctx);
  for (const chunk of chunks) reader.offer(chunk);
  await reader.done();
  return JSON.stringify(calls);
}

describe('fuzz: reading an exec program’s output', () => {
  // What the fuzzing found, kept as examples: a question is asked at the end of the turn, not
  // applied as a bare status first; a program that says it cancelled fails, saying so.
  it.each([
    ['[A2A:status task=t state=auth-required]\nyour token, please\n', 0, 'input-required', 'your token, please'],
    ['[A2A:status task=t state=input-required]\nwhich year?\n[A2A:status task=t state=working]\nmore\n', 0, 'completed', undefined],
    ['[A2A:result task=t state=cancelled]\n', 0, 'failed', 'the program cancelled the task'],
    ['[A2A:result task=t state=cancelled]\nno longer needed\n', 1, 'failed', 'no longer needed'],
  ])('reads %j (exit %s) as %s', async (text, code, state, words) => {
    turn = { chunks: [text], code };
    const agent = newAgent();
    const task = await agent.send({ messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'go' }] });
    check(task.status.state === state && (words === undefined || textOf(task.status.message) === words), `ends ${state}`, task.status);
    if (state === 'input-required') await agent.cancel(task.id);
  });

  it(
    'turns any output, in any chunks, into legal status updates and a legal end',
    () =>
      fuzzTarget('exec output: reader and end of turn', async () => {
        let agent = newAgent();
        let cases = 0;
        await fc.assert(
          fc.asyncProperty(output, fc.array(fc.nat(), { maxLength: 6 }), fc.constantFrom<number | null>(0, 0, 0, 1, null), async (text, points, code) => {
            if ((cases += 1) % CASES_PER_AGENT === 0) agent = newAgent();
            turn = { chunks: cut(text, points), code };
            const task: Task = await agent.send({ messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'go' }] });
            check(allowed(turn.outcome).includes(task.status.state), 'the task ends as the output says', { text, code, state: task.status.state, outcome: turn.outcome });
            if (task.status.state === 'failed') check(textOf(task.status.message) !== '', 'a failed task says why', task.status);
            if (task.status.state === 'completed' && turn.outcome?.kind === 'end') {
              const { text: result, message } = turn.outcome;
              const words = message ?? (result.length <= FINAL_WORDS_LIMIT ? result : '');
              check(textOf(task.status.message) === words, 'the final status says the words the output gave, else a short result', { text, outcome: turn.outcome, status: task.status });
            }
            if (task.status.state === 'input-required') await agent.cancel(task.id);
            check(reported.length === 0, 'the agent reported no failure', reported);
          }),
          fuzzOptions(),
        );
      }),
    fuzzTimeout(1000),
  );

  // The reader cuts at a header that starts a line, without reading the text for Markdown
  // fences, as the whole-output parse does: a fenced header line may be read as a status, and
  // where the chunks fall then matters. Without fences, the chunks never do.
  it(
    'makes the same status updates of output without code fences, however it is cut',
    () =>
      fuzzTarget('exec output: status updates, any cut', async () => {
        await fc.assert(
          fc.asyncProperty(
            output.filter((text) => !/```|~~~/.test(text)),
            fc.array(fc.nat(), { maxLength: 6 }),
            async (text, points) => expectSame(await statusCalls(cut(text, points)), await statusCalls([text])),
          ),
          fuzzOptions(),
        );
      }),
    fuzzTimeout(500),
  );
});
