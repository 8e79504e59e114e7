// One subtask of a run (a step, or one item of a fan-out) given to its agent: each attempt is
// saved as "sending" with its message id before it goes out and as "running" once the agent
// names the task; a failed attempt is tried again after a pause that doubles, then at the
// fallback target; a timeout cancels the attempt at its agent. After a crash, a running
// subtask is followed by its task id and a "sending" one is sent again under the same
// Idempotency-Key, so that no agent is given the same work twice.

import type { Context } from '@opentelemetry/api';
import { credentialFor, transportFor } from '../client/peer.js';
import { sendTask, type SendResult } from '../client/send-task.js';
import { newMessageId } from '../client/transport.js';
import { LiteError, isLiteError } from '../errors.js';
import type { Task } from '../model/task.js';
import { isTerminal } from '../protocol/states.js';
import { wordsOf } from '../lite/task-text.js';
import type { RunContext } from './events.js';
import { followSubtask } from './follow.js';
import type { Step, StepEnd, Target } from './plan.js';
import { answerOf } from './answer.js';
import type { SubtaskRecord } from './run-state.js';
import { tracedAttempt } from './run-trace.js';

/** How long a subtask without a timeout is followed. */
const NO_TIMEOUT_MS = 7 * 24 * 3_600_000;

/** A subtask ready to go: its words and files rendered, its targets known. */
export interface SubtaskJob {
  record: SubtaskRecord;
  step: Step;
  text: string;
  /** Absolute paths of the files to send. */
  attach: string[];
  target: Target;
  fallback?: Target;
  /** The tasks of the steps it builds on. */
  references: string[];
}

/** Runs `job` through its attempts until it ends; the record says how. */
export async function runSubtask(job: SubtaskJob, ctx: RunContext): Promise<void> {
  const { record, step } = job;
  const tries = step.retries + 1;
  for (;;) {
    const onFallback = record.fallback === true;
    const target = onFallback ? (job.fallback as Target) : job.target;
    const usedHere = onFallback ? record.attempt - tries : record.attempt;
    // A subtask a killed run left mid-attempt resumes that attempt rather than starting another.
    const resuming = record.state === 'sending' || record.state === 'running';
    if (usedHere >= tries && !resuming) {
      if (!onFallback && job.fallback !== undefined) {
        record.fallback = true;
        continue;
      }
      return;
    }
    if (ctx.signal.aborted) {
      await end(job, ctx, 'cancelled', 'the run was interrupted');
      return;
    }
    const ended = await ctx.limiter.run(() => tracedAttempt(ctx.run, record.key, target, ctx.trace, (trace) => attempt(job, target, ctx, resuming, trace)));
    if (ended === 'completed' || ctx.signal.aborted) return;
    const usedNow = record.fallback === true ? record.attempt - tries : record.attempt;
    if (usedNow < tries) {
      const pause = step.backoffMs * 2 ** (usedNow - 1);
      ctx.emit({ type: 'step', run: ctx.run.id, key: record.key, step: step.id, ...indexOf(record), state: record.state, attempt: record.attempt, ...(record.error ? { error: `${record.error}; trying again in ${pause / 1000} s` } : {}) });
      await sleep(pause, ctx.signal);
    }
  }
}

/** One attempt: sends (or resumes) and follows the task; returns how it ended. */
async function attempt(job: SubtaskJob, target: Target, ctx: RunContext, resuming: boolean, trace: Context | undefined): Promise<StepEnd> {
  const { record, step } = job;
  const follow = resuming && record.state === 'running' && record.taskId !== undefined;
  if (!resuming) {
    // A send that never reached the agent (no task named) may be repeated under the same key.
    if (record.messageId === undefined || record.taskId !== undefined) record.messageId = newMessageId();
    record.attempt += 1;
    record.taskId = undefined;
  }
  const timeout = new AbortController();
  const timer = step.timeoutMs === undefined ? undefined : setTimeout(() => timeout.abort(new LiteError('PEER_UNREACHABLE', `timed out after ${(step.timeoutMs as number) / 1000} s`)), step.timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout.signal]);
  let result: SendResult;
  try {
    const peer = await ctx.targets.peer(target);
    record.agent = peer.id;
    if (!follow) {
      record.state = 'sending';
      record.startedAt ??= new Date().toISOString();
      // The intent, with the message id, is on disk before the message goes out.
      await save(job, ctx);
    }
    const onTask = (task: Task, progress: number | undefined): void => {
      if (record.taskId !== task.id) {
        record.taskId = task.id;
        if (!record.tasks.includes(task.id)) record.tasks.push(task.id);
        record.state = 'running';
        // Shown once saved: whoever sees "running" may rely on the task id being on disk.
        void save(job, ctx).then(
          () => show(job, ctx),
          () => undefined,
        );
        return;
      }
      if (progress !== undefined) record.progress = progress;
      if (!isTerminal(task.status.state)) show(job, ctx, wordsOf(task.status.message) || undefined);
    };
    result = follow
      ? await followSubtask(ctx.stores, { peer, taskId: record.taskId as string, env: ctx.env, tokenRules: ctx.tokenRules, ...(step.tokenEnv ? { tokenEnv: step.tokenEnv } : {}), ...(ctx.guard === undefined ? {} : { guard: ctx.guard }), waitMs: step.timeoutMs ?? NO_TIMEOUT_MS, signal, onTask, ...(trace === undefined ? {} : { trace }) })
      : await sendTask(
          ctx.stores,
          {
            peer,
            ...('skill' in target ? { skill: target.skill } : {}),
            text: job.text,
            attach: job.attach,
            context: ctx.run.contextId,
            messageId: record.messageId as string,
            idempotencyKey: record.messageId as string,
            referenceTaskIds: job.references,
            recordParams: { run: ctx.run.id, step: record.key },
            markAnswered: false,
            ...(step.tokenEnv ? { tokenEnv: step.tokenEnv } : {}),
            tokenRules: ctx.tokenRules,
            trail: ctx.trail,
            waitMs: step.timeoutMs ?? NO_TIMEOUT_MS,
            cwd: ctx.run.root,
            env: ctx.env,
            signal,
            ...(ctx.guard === undefined ? {} : { guard: ctx.guard }),
            ...(trace === undefined ? {} : { trace }),
          },
          {
            onEvent: (_event, task, taken) => {
              if (task === undefined) return;
              const progress = Number(taken.message?.params.progress?.replace('%', ''));
              onTask(task, Number.isFinite(progress) ? progress : undefined);
            },
          },
        );
  } catch (error) {
    if (ctx.signal.aborted) return end(job, ctx, 'cancelled', 'the run was interrupted');
    // Before any agent named a task, a send the hub routed by skill goes on to its next agent at once.
    if (!follow && record.taskId === undefined && !timeout.signal.aborted && ctx.targets.passOver(target, error)) {
      clearTimeout(timer);
      return attempt(job, target, ctx, false, trace);
    }
    return failed(job, ctx, timeout.signal.aborted ? (timeout.signal.reason as Error).message : messageOf(error));
  } finally {
    clearTimeout(timer);
  }
  if (result.interrupted !== undefined) {
    if (ctx.signal.aborted) return end(job, ctx, 'cancelled', result.interrupted.cancelled ? 'cancelled at the agent when the run was interrupted' : (result.interrupted.error ?? 'the run was interrupted'));
    return failed(job, ctx, `${(timeout.signal.reason as Error).message}${result.interrupted.cancelled ? '; cancelled at the agent' : ''}`);
  }
  if (result.timedOut !== undefined) return failed(job, ctx, result.timedOut.message);
  // The cancel a timeout sent may have ended the stream with the task cancelled, as any end.
  if (timeout.signal.aborted && !ctx.signal.aborted) {
    return failed(job, ctx, `${(timeout.signal.reason as Error).message}${result.state === 'cancelled' ? '; cancelled at the agent' : ''}`);
  }
  ctx.targets.answered(result.peer);
  const answer = answerOf(result, result.task);
  record.text = answer.text;
  record.data = answer.data;
  record.files = result.files.map((f) => ({ name: f.name, ...(f.path ? { path: f.path } : {}), ...(f.url ? { url: f.url } : {}) }));
  const state = result.task === undefined ? 'completed' : (result.state ?? 'failed');
  if (state === 'completed') return end(job, ctx, 'completed');
  // Nobody in a plan can answer a question: the task is not left waiting at its agent.
  if ((state === 'input-required' || state === 'auth-required') && result.task !== undefined) {
    await transportFor(result.peer, credentialFor(result.peer, ctx.env, step.tokenEnv, ctx.tokenRules), ctx.guard === undefined ? {} : { guard: ctx.guard }).cancelTask(result.task.id).catch(() => undefined);
  }
  const ended: StepEnd = state === 'rejected' || state === 'cancelled' || state === 'input-required' || state === 'auth-required' ? state : 'failed';
  return failed(job, ctx, `the agent ended task ${result.task?.id ?? ''} ${state}${answer.text ? `: ${firstLine(answer.text)}` : ''}`, ended);
}

function failed(job: SubtaskJob, ctx: RunContext, error: string, state: StepEnd = 'failed'): Promise<StepEnd> {
  return end(job, ctx, state, error);
}

/** Records how the attempt ended; the subtask's state until another attempt starts. */
async function end(job: SubtaskJob, ctx: RunContext, state: StepEnd, error?: string): Promise<StepEnd> {
  const { record } = job;
  record.state = state;
  if (error === undefined) delete record.error;
  else record.error = error;
  record.endedAt = new Date().toISOString();
  await save(job, ctx);
  show(job, ctx, state === 'completed' ? record.text : undefined);
  return state;
}

function save(job: SubtaskJob, ctx: RunContext): Promise<void> {
  const saved = ctx.runs.saveSubtask(ctx.run.id, job.record);
  if (job.record.state === 'sending') show(job, ctx);
  return saved;
}

function show(job: SubtaskJob, ctx: RunContext, text?: string): void {
  const r = job.record;
  ctx.emit({
    type: 'step',
    run: ctx.run.id,
    key: r.key,
    step: r.step,
    ...indexOf(r),
    state: r.state,
    attempt: r.attempt,
    ...(r.agent ? { agent: r.agent } : {}),
    ...(r.taskId ? { task: r.taskId } : {}),
    ...(r.progress !== undefined ? { progress: r.progress } : {}),
    ...(text ? { text } : {}),
    ...(r.error && r.state !== 'completed' ? { error: r.error } : {}),
  });
}

function indexOf(record: SubtaskRecord): { index?: number } {
  return record.index === undefined ? {} : { index: record.index };
}

function messageOf(error: unknown): string {
  if (isLiteError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
