// `serve --exec CMD`: any program becomes an agent. One process per turn of a task, in the
// task's own folder; the conversation so far arrives on stdin as A2A-Lite text, and what the
// program prints is read as A2A-Lite:
//
//   [A2A:status … state=working progress=50%]   → a status update (any number)
//   [A2A:status … state=working artifact=NAME]   → a chunk of the artifact NAME, sent at once;
//                        the next chunks of NAME are appended, last=true ends it
//   [A2A:status … state=input-required]          → a question; the next turn gets the answer
//                        (auth-required the same)
//   [A2A:result … state=completed] + [附件: f]   → the result, with files from the task folder
//   plain text, exit 0                           → the result text
//   [A2A:status … state=completed]               → the words of the final status (with a result
//                        or plain text, in any order); without them, a result text of at most
//                        2,000 characters is said there too, and an empty body says nothing
//   exit ≠ 0                                     → failed, with the end of stderr
//
// Cancel sends SIGTERM, then SIGKILL after a grace period; so do the time and output limits,
// and the program's exit to whatever it left running with its output still open.

import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { format } from '../protocol/format.js';
import { parseAll } from '../protocol/parse.js';
import { isSettled, isWireState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import { progressValue } from '../protocol/validate.js';
import type { IncomingTask, TaskContext } from '../runtime/agent.js';
import { textOf } from '../model/task.js';
import { safeFileName } from '../home/safe-names.js';
import { liftTaskHeader } from '../lite/request.js';
import { finish, outcomeOf, type Outcome } from './exec-outcome.js';
import { HUB_TRAIL_ENV, trailOf } from '../a2a/wire/hub-trail.js';
import { saveFiles, taskMessage, withLiteHeader, type ExecTask } from './exec-transcript.js';
import { TRACE_ENV_NAMES, tracedTurn } from './exec-trace.js';

export interface ExecOptions {
  /** The shell command to run for each turn. */
  command: string;
  /** Task folders are made under this folder, one per task id. */
  workRoot: string;
  /** A turn that runs longer is stopped and the task fails (default 10 minutes). */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL (default 5 s). */
  graceMs?: number;
  /** Stdout beyond this stops the process (default 1 MiB). */
  maxOutputBytes?: number;
  /** A file in a result may be at most this large (default 25 MiB). */
  maxFileBytes?: number;
  /** Environment variables the program must not see, such as the server's own tokens. */
  hiddenEnv?: readonly string[];
}

function withoutNames(env: NodeJS.ProcessEnv, hidden: readonly string[]): NodeJS.ProcessEnv {
  if (hidden.length === 0) return env;
  return Object.fromEntries(Object.entries(env).filter(([name]) => !hidden.includes(name)));
}

const STDERR_TAIL = 2000;
/** How long output may keep coming once the program has exited; then its pipes are closed. */
const DRAIN_MS = 500;
/** Quiet time after a whole line before pending status messages count as complete. */
const IDLE_MS = 150;
/** Where a new message starts: a header at the start of a line. */
const NEXT_HEADER = '\n[A2A:';

/** The folder of task `id` under `workRoot`. */
function taskFolder(workRoot: string, id: string): string {
  return join(workRoot, safeFileName(id));
}

/** Removes the folders of tasks that were deleted (see Retention.onDelete), with all they hold. */
export async function removeTaskFolders(workRoot: string, ids: readonly string[]): Promise<void> {
  await Promise.all(ids.map((id) => rm(taskFolder(workRoot, id), { recursive: true, force: true })));
}

/** Returns an `onTask` handler that runs `options.command` for each turn of a task. */
export function execHandler(options: ExecOptions): (task: IncomingTask, ctx: TaskContext) => Promise<unknown> {
  return async (incoming, ctx) => {
    const task = withLiteHeader(incoming);
    const folder = taskFolder(options.workRoot, task.id);
    mkdirSync(folder, { recursive: true });
    const transcript: Message[] = [taskMessage(task, saveFiles(folder, task.message))];
    for (;;) {
      const outcome = await tracedTurn(task, ctx.trace, (traceEnv) => runTurn(options, folder, task, transcript, ctx, traceEnv));
      if (outcome.kind === 'ask') {
        transcript.push({ type: 'status', params: { task: task.id, state: outcome.state }, body: outcome.question, attachments: [] });
        const reply = await ctx.ask(outcome.question, { state: outcome.state });
        const text = textOf(reply);
        transcript.push(taskMessage({ ...task, text: liftTaskHeader(text)?.body ?? text }, saveFiles(folder, reply)));
        continue;
      }
      return finish(ctx, folder, outcome, options.maxFileBytes ?? 25 * 1024 * 1024);
    }
  };
}

/**
 * The hub's loop guard for the program: the trail the task's message came with, so that a
 * program sending onward with `a2a-lite send` carries it on (a2a/wire/hub-trail.ts).
 */
function hubTrailEnv(task: ExecTask): Record<string, string> {
  const trail = trailOf(task.message.metadata);
  return trail === undefined ? {} : { [HUB_TRAIL_ENV]: JSON.stringify(trail) };
}

/** Runs the command once (`traceEnv`: the turn span for the program, exec-trace.ts) and reads what it printed. */
async function runTurn(options: ExecOptions, folder: string, task: ExecTask, transcript: Message[], ctx: TaskContext, traceEnv: Record<string, string>): Promise<Outcome> {
  const child = spawn(options.command, {
    shell: true,
    cwd: folder,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group, so that a signal reaches what the shell started, too.
    detached: true,
    env: { ...withoutNames(process.env, [...(options.hiddenEnv ?? []), ...TRACE_ENV_NAMES]), A2A_TASK_ID: task.id, A2A_CONTEXT_ID: task.contextId, A2A_TASK_DIR: folder, A2A_SKILL: task.skill ?? '', A2A_FROM: task.from ?? '', A2A_PEER_TASK_ID: task.peerTaskId ?? '', ...hubTrailEnv(task), ...traceEnv },
  });
  child.stdin.on('error', () => {}); // a program that never reads stdin is fine
  child.stdin.end(`${transcript.map((m) => format(m)).join('\n\n')}\n`);

  let stdout = '';
  let stderr = '';
  let stopped: string | undefined;
  const maxOutput = options.maxOutputBytes ?? 1024 * 1024;
  const reader = new StatusReader(ctx);
  const signal = (name: NodeJS.Signals): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, name);
    } catch {
      // The group is already gone.
    }
  };
  const stop = (reason: string): void => {
    if (stopped !== undefined) return;
    stopped = reason;
    signal('SIGTERM');
    setTimeout(() => signal('SIGKILL'), options.graceMs ?? 5000).unref();
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    if (stdout.length + chunk.length > maxOutput) return stop(`the program printed more than ${maxOutput} bytes`);
    stdout += chunk;
    reader.offer(chunk);
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_TAIL)));
  const timeoutMs = options.timeoutMs ?? 600_000;
  const timer = setTimeout(() => stop(`the program ran longer than ${seconds(timeoutMs)} s`), timeoutMs);
  const onAbort = (): void => stop('cancelled');
  ctx.signal.addEventListener('abort', onAbort, { once: true });

  const { code, killedBy } = await new Promise<{ code: number | null; killedBy: NodeJS.Signals | null }>((resolve) => {
    let drain: NodeJS.Timeout | undefined;
    let closed = false;
    child.on('error', (error) => {
      stderr += error.message;
      resolve({ code: 127, killedBy: null });
    });
    // What the program printed before it exited is read before 'close'. A pipe still open
    // after that is held by a process it left behind (`cmd &`, or one that escaped the group
    // with setsid): the turn ends anyway, and the group goes the way a stopped program does.
    child.on('exit', (exit, how) => {
      drain = setTimeout(() => {
        // After one more poll for I/O, so that a busy event loop reads what is waiting first.
        setImmediate(() => {
          if (closed) return;
          signal('SIGTERM');
          setTimeout(() => signal('SIGKILL'), options.graceMs ?? 5000).unref();
          child.stdout.destroy();
          child.stderr.destroy();
          resolve({ code: exit, killedBy: how });
        });
      }, DRAIN_MS);
    });
    child.on('close', (exit, how) => {
      closed = true;
      clearTimeout(drain);
      resolve({ code: exit, killedBy: how });
    });
  });
  clearTimeout(timer);
  ctx.signal.removeEventListener('abort', onAbort);
  await reader.done();

  if (stopped === 'cancelled') return { kind: 'end', state: 'cancelled', text: '', attachments: [] };
  if (stopped !== undefined) return { kind: 'end', state: 'failed', text: stopped, attachments: [] };
  const tail = stderr.trim() || (killedBy === null ? `exit code ${code}` : `killed by ${killedBy}`);
  return outcomeOf(stdout, code, `the program failed: ${tail}`);
}

/** `600`, `0.3`: a limit in seconds as a user would write it. */
function seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(3)));
}

/**
 * Applies status messages as they are printed, so streams see progress live. A message is
 * complete when the next header starts, when the program ends, or when its output stops for a
 * moment after a whole line: a program that says "working" and then works silently shows it at
 * once. Text printed after such a pause, with no header of its own, is plain text. Only the new
 * text is searched for a header and only the unfinished tail is kept, so a program printing line
 * by line costs linear time.
 */
export class StatusReader {
  private pending = '';
  /** The last few characters offered, where a header split across two chunks begins. */
  private edge = '';
  private idle: NodeJS.Timeout | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly ctx: TaskContext;
  /** The artifacts the program is sending in chunks: their ids, by name, until the last chunk. */
  private readonly open = new Map<string, Promise<string | undefined>>();

  constructor(ctx: TaskContext) {
    this.ctx = ctx;
  }

  offer(chunk: string): void {
    // The pending text has no header after its start, so only the seam and the chunk can.
    const seam = this.edge + chunk;
    const found = seam.lastIndexOf(NEXT_HEADER);
    this.pending += chunk;
    this.edge = seam.slice(1 - NEXT_HEADER.length);
    if (found !== -1) {
      const cut = this.pending.length - seam.length + found + 1;
      this.apply(this.pending.slice(0, cut));
      this.pending = this.pending.slice(cut);
    }
    clearTimeout(this.idle);
    this.idle = chunk.endsWith('\n') ? setTimeout(() => this.flush(), IDLE_MS).unref() : undefined;
  }

  /** Applies what is left once the program has ended, and waits for every update. */
  done(): Promise<unknown> {
    this.flush();
    return this.chain;
  }

  private flush(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    this.apply(this.pending);
    this.pending = '';
    this.edge = '';
  }

  private apply(text: string): void {
    for (const message of parseAll(text)) {
      const state = message.params.state;
      if (message.type === 'status' && state === 'working' && message.params.artifact) {
        this.chunk(message.params.artifact, message.body, message.params.last === 'true');
        continue;
      }
      // A question (input-required, auth-required) waits for the end of the turn: the program
      // may say more, and only then is the requester asked.
      if (message.type !== 'status' || state === undefined || !isWireState(state) || isSettled(state)) continue;
      const options: { message?: string; progress?: number; eta?: string } = {};
      if (message.body) options.message = message.body;
      const progress = progressValue(message.params.progress);
      if (progress !== undefined) options.progress = progress;
      if (message.params.eta) options.eta = message.params.eta;
      this.chain = this.chain.then(() => this.ctx.status(state as 'working', options)).catch(() => {});
    }
  }

  /**
   * `[A2A:status … state=working artifact=NAME]` and its body: a chunk of the artifact NAME, sent
   * on at once; the next chunks of NAME are appended to it, and `last=true` ends it.
   */
  private chunk(name: string, text: string, last: boolean): void {
    if (text === '') return; // A chunk says something; an empty one is no chunk.
    const earlier = this.open.get(name) ?? Promise.resolve(undefined);
    const sent = this.chain
      .then(() => earlier)
      .then((id) => this.ctx.artifact({ text, name, ...(id === undefined ? {} : { id, append: true }), lastChunk: last }));
    this.chain = sent.catch(() => {});
    if (last) this.open.delete(name);
    else this.open.set(name, sent.catch(() => undefined));
  }
}

