// Following a task on a remote agent to its end: stream it when the agent streams, else send and
// poll; when a stream breaks before the task has ended or asked for input, subscribe again (or
// poll GetTask where the agent cannot) with backoff until it does or a deadline passes. Every
// event goes to `onEvent` once, in order; what repeats after a resubscription is left out.

import { codeOfPeerError } from '../a2a/wire/error-info.js';
import { LiteError, isLiteError } from '../errors.js';
import { isInterrupted, isSettled, type TaskState } from '../protocol/states.js';
import type { Task, TaskEvent, TaskMessage } from '../model/task.js';
import type { Outcome, Transport } from './transport.js';

export interface FollowOptions {
  /** Stream the task (the agent's card says it can); otherwise send and poll. */
  stream: boolean;
  /** Told of each new event, with the task as the events so far describe it (none yet for a message). */
  onEvent(event: TaskEvent, task: Task | undefined): void | Promise<void>;
  /** Aborting stops following (the caller decides whether to cancel the task). */
  signal?: AbortSignal;
  /** When to give up waiting, in ms since the epoch. */
  deadline: number;
  /** First pause before resubscribing or polling again; it doubles up to `maxPauseMs`. */
  pauseMs?: number;
  maxPauseMs?: number;
  /** Told when a stream broke and is being resumed, or a send is tried again (for a note on stderr). */
  onResume?(how: 'subscribe' | 'poll' | 'send', error: unknown): void;
  /** Sent as the `Idempotency-Key` of the send, so that sending again cannot start the work twice. */
  idempotencyKey?: string;
  /** With a key: how often a send that failed before naming a task is sent again (default 2). */
  sendRetries?: number;
}

/**
 * Sends `message` and follows the task it makes until it ends or asks for input.
 *
 * @example
 * const outcome = await sendAndFollow(transport, message, { stream: true, deadline: Date.now() + 600_000, onEvent: print });
 */
export async function sendAndFollow(transport: Transport, message: TaskMessage, given: FollowOptions): Promise<Outcome> {
  // A reply to a task that waits for input: the stream may open with the task as it was,
  // still waiting; that is no answer yet.
  const tracker = new Tracker(given, message.taskId !== undefined);
  const { options, done } = withDeadline(given, tracker);
  try {
    // A failed send is tried again only under its key: the agent then takes it once, whether or
    // not the first one reached it.
    const retries = options.idempotencyKey === undefined ? 0 : (options.sendRetries ?? 2);
    let pause = options.pauseMs ?? 250;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await send(transport, message, options, tracker);
      } catch (error) {
        if (attempt >= retries || tracker.task !== undefined || options.signal?.aborted || !worthResending(error)) throw error;
        options.onResume?.('send', error);
        await sleep(pause, options.signal);
        pause = Math.min(pause * 2, options.maxPauseMs ?? 5_000);
      }
    }
  } finally {
    done();
  }
}

/** A send that never reached the agent, or that a proxy or hub in front of it could not pass on. */
function worthResending(error: unknown): boolean {
  if (!isLiteError(error)) return false;
  if (error.code === 'PEER_UNREACHABLE') return error.details?.deadline !== true && error.details?.tls === undefined;
  return error.code === 'PEER_ERROR' && [502, 503, 504].includes(error.details?.status as number);
}

async function send(transport: Transport, message: TaskMessage, options: FollowOptions, tracker: Tracker): Promise<Outcome> {
  if (options.stream) {
    try {
      for await (const event of transport.stream(message, options.signal, options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey })) {
        if (event.kind === 'message' && tracker.task === undefined) {
          // The agent answered at once, without making a task.
          await options.onEvent(event, undefined);
          return { kind: 'message', message: event.message };
        }
        await tracker.see(event);
        // Events that came in one burst are not taken in after an abort (Ctrl-C, the deadline).
        if (options.signal?.aborted) throw options.signal.reason;
        if (tracker.settled) return tracker.outcome();
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      // Before the agent named a task there is nothing to resume: the send failed.
      if (tracker.task === undefined || !resumable(error, options.signal)) throw error;
      options.onResume?.('subscribe', error);
    }
    if (tracker.task === undefined) throw new LiteError('PEER_ERROR', 'the stream ended before the agent named a task');
    return follow(transport, tracker, options);
  }
  // A blocking send may wait as long as the task runs: up to the deadline, not a request's limit.
  const result = await transport.send(message, { returnImmediately: false, timeoutMs: Math.max(1_000, options.deadline - Date.now()), ...(options.signal ? { signal: options.signal } : {}), ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }) });
  if (result.kind === 'message') {
    await options.onEvent({ kind: 'message', message: result.message }, undefined);
    return result;
  }
  await tracker.see({ kind: 'task', task: result.task });
  if (tracker.settled) return tracker.outcome();
  return follow(transport, tracker, options, 'poll');
}

/** Follows a task already known by id (after a break, or for `--reply`). */
export async function followTask(transport: Transport, taskId: string, given: FollowOptions): Promise<Outcome> {
  const tracker = new Tracker(given);
  const { options, done } = withDeadline(given, tracker);
  try {
    await tracker.see({ kind: 'task', task: await transport.getTask(taskId, options.signal) });
    if (tracker.settled) return tracker.outcome();
    return await follow(transport, tracker, options, options.stream ? 'subscribe' : 'poll');
  } finally {
    done();
  }
}

/**
 * The options with a signal that also fires at the deadline, with PEER_UNREACHABLE naming the
 * task as its reason: a stream that goes on past it is given up like a broken one.
 */
function withDeadline(options: FollowOptions, tracker: Tracker): { options: FollowOptions; done(): void } {
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    const id = tracker.task?.id;
    deadline.abort(
      new LiteError(
        'PEER_UNREACHABLE',
        id === undefined ? 'the agent named no task before the deadline' : `task ${id} had not ended by the deadline; it may still be running at the agent (a2a-lite tasks get ${id})`,
        id === undefined ? { deadline: true } : { task: id, deadline: true },
      ),
    );
  }, Math.max(0, options.deadline - Date.now()));
  timer.unref();
  const signal = options.signal === undefined ? deadline.signal : AbortSignal.any([options.signal, deadline.signal]);
  return { options: { ...options, signal }, done: () => clearTimeout(timer) };
}

/** Resubscribes (or polls) with backoff until the task settles or the deadline passes. */
async function follow(transport: Transport, tracker: Tracker, options: FollowOptions, start: 'subscribe' | 'poll' = 'subscribe'): Promise<Outcome> {
  let how = start;
  let pause = options.pauseMs ?? 250;
  const maxPause = options.maxPauseMs ?? 5_000;
  const id = (tracker.task as Task).id;
  for (;;) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (Date.now() >= options.deadline) {
      throw new LiteError('PEER_UNREACHABLE', `task ${id} had not ended by the deadline; it may still be running at the agent (a2a-lite tasks get ${id})`, { task: id });
    }
    try {
      if (how === 'subscribe') {
        // From the last numbered event seen: an agent that numbers them replays what was missed.
        for await (const event of transport.subscribe(id, options.signal, tracker.lastSeq)) {
          // Only news resets the backoff: a subscription that repeats the task and closes is
          // no reason to ask again at once.
          if (await tracker.see(event)) pause = options.pauseMs ?? 250;
          if (options.signal?.aborted) throw options.signal.reason;
          if (tracker.settled) return tracker.outcome();
        }
      } else {
        await tracker.see({ kind: 'task', task: await transport.getTask(id, options.signal) });
        if (tracker.settled) return tracker.outcome();
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (how === 'subscribe' && cannotSubscribe(error)) {
        how = 'poll';
        options.onResume?.('poll', error);
        continue;
      }
      if (!resumable(error, options.signal)) throw error;
      options.onResume?.(how, error);
    }
    await sleep(Math.min(pause, Math.max(0, options.deadline - Date.now())), options.signal);
    pause = Math.min(pause * 2, maxPause);
  }
}

/** The task as the events so far describe it; passes on only what is new. */
class Tracker {
  task: Task | undefined;
  /** The number of the last event seen, when the agent numbers them. */
  lastSeq: number | undefined;
  private readonly seenStatus = new Set<string>();
  private readonly seenArtifacts = new Set<string>();
  /** The task as first seen is the state before our message: it settles nothing. */
  private stale = false;

  constructor(
    private readonly options: FollowOptions,
    private readonly replying = false,
  ) {}

  get settled(): boolean {
    return this.task !== undefined && !this.stale && isSettled(this.task.status.state);
  }

  outcome(): Outcome {
    return { kind: 'task', task: this.task as Task };
  }

  /** Takes in an event; true when it told something new (and was passed on). */
  async see(event: TaskEvent): Promise<boolean> {
    if (event.kind !== 'message' && event.seq !== undefined) this.lastSeq = Math.max(this.lastSeq ?? 0, event.seq);
    if (event.kind === 'task') this.stale = this.replying && this.task === undefined && isInterrupted(event.task.status.state);
    else if (event.kind === 'status') this.stale = false;
    switch (event.kind) {
      case 'task': {
        const task = event.task;
        const known = this.task;
        this.task = { ...task, artifacts: known ? mergeArtifacts(known.artifacts, task.artifacts) : task.artifacts };
        // A snapshot after a resubscription repeats what was seen: pass on only what is new.
        const fresh = task.artifacts.filter((a) => !this.seenArtifacts.has(artifactKey(a.artifactId, a.parts.length)));
        const statusNew = !this.seenStatus.has(statusKey(task.status.state, task.status.message?.messageId, task.status.timestamp));
        if (known === undefined) {
          this.remember(task);
          await this.options.onEvent(event, this.task);
          return true;
        }
        for (const artifact of fresh) {
          this.seenArtifacts.add(artifactKey(artifact.artifactId, artifact.parts.length));
          await this.options.onEvent({ kind: 'artifact', taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: true }, this.task);
        }
        if (statusNew) {
          this.seenStatus.add(statusKey(task.status.state, task.status.message?.messageId, task.status.timestamp));
          await this.options.onEvent({ kind: 'status', taskId: task.id, contextId: task.contextId, status: task.status }, this.task);
        }
        return fresh.length > 0 || statusNew;
      }
      case 'status': {
        const key = statusKey(event.status.state, event.status.message?.messageId, event.status.timestamp);
        if (this.seenStatus.has(key)) return false;
        this.seenStatus.add(key);
        this.task = this.task
          ? { ...this.task, status: event.status }
          : { id: event.taskId, contextId: event.contextId, status: event.status, history: [], artifacts: [] };
        await this.options.onEvent(event, this.task);
        return true;
      }
      case 'artifact': {
        const current = this.task ?? { id: event.taskId, contextId: event.contextId, status: { state: 'submitted' as TaskState, timestamp: '' }, history: [], artifacts: [] };
        const artifacts = event.append ? appendTo(current.artifacts, event.artifact) : mergeArtifacts(current.artifacts, [event.artifact]);
        this.task = { ...current, artifacts };
        const merged = artifacts.find((a) => a.artifactId === event.artifact.artifactId);
        this.seenArtifacts.add(artifactKey(event.artifact.artifactId, merged?.parts.length ?? event.artifact.parts.length));
        await this.options.onEvent(event, this.task);
        return true;
      }
      case 'message':
        await this.options.onEvent(event, this.task);
        return true;
    }
  }

  private remember(task: Task): void {
    this.seenStatus.add(statusKey(task.status.state, task.status.message?.messageId, task.status.timestamp));
    for (const a of task.artifacts) this.seenArtifacts.add(artifactKey(a.artifactId, a.parts.length));
  }
}

function statusKey(state: string, messageId: string | undefined, timestamp: string): string {
  return `${state}\u0000${messageId ?? ''}\u0000${timestamp}`;
}

function artifactKey(id: string, parts: number): string {
  return `${id}\u0000${parts}`;
}

/** Artifacts by id: a later one with the same id replaces the earlier. */
function mergeArtifacts(known: Task['artifacts'], incoming: Task['artifacts']): Task['artifacts'] {
  const out = [...known];
  for (const artifact of incoming) {
    const at = artifact.artifactId === '' ? -1 : out.findIndex((a) => a.artifactId === artifact.artifactId);
    if (at === -1) out.push(artifact);
    else out[at] = artifact;
  }
  return out;
}

function appendTo(known: Task['artifacts'], chunk: Task['artifacts'][number]): Task['artifacts'] {
  const at = known.findIndex((a) => a.artifactId === chunk.artifactId);
  if (at === -1) return [...known, chunk];
  const out = [...known];
  const base = out[at] as Task['artifacts'][number];
  out[at] = { ...base, parts: [...base.parts, ...chunk.parts] };
  return out;
}

/** A broken connection is worth resuming; the agent's own refusal or an abort is not. */
function resumable(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return false;
  return isLiteError(error, 'PEER_UNREACHABLE');
}

/** The agent does not do resubscription: poll instead. */
function cannotSubscribe(error: unknown): boolean {
  if (!isLiteError(error, 'PEER_ERROR')) return false;
  const details = error.details as { code?: unknown; reason?: unknown } | undefined;
  const code = details?.code;
  if (codeOfPeerError(['UNSUPPORTED_OPERATION', 'METHOD_NOT_FOUND'], code, typeof details?.reason === 'string' ? details.reason : undefined) !== undefined) return true;
  return code === 404 || code === 405 || code === 501;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener('abort', stop);
      resolve();
    }
    function stop(): void {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', stop, { once: true });
  });
}
