// The agent runtime: one handler API (`onTask(task, ctx)`) driven by A2A requests or A2A-Lite
// text. It owns the live tasks: their state (checked by the core state machine), their
// subscribers, cancellation, the concurrency limit, and saving every change to the store.
//
//   send/stream ──► new task (submitted) ──► onTask(task, ctx) ──► ctx.status / ask / complete …
//                        │                                              │
//                        └─ events ──► subscribers (streams, waiters) ◄─┘──► store.save
//                                 └──► observers (the push sender), told of every task

import type { LiteCard } from '../card/types.js';
import { LiteError } from '../errors.js';
import { isInterrupted, isTerminal, transition, type TaskState, type WireState } from '../protocol/states.js';
import { jsonDepth } from '../json-depth.js';
import { MemoryTaskStore, type TaskPage, type TaskQuery, type TaskStore } from '../store/task-store.js';
import { EventQueue } from './event-queue.js';
import { uuidv7 } from './ids.js';
import { LazyAbort } from './lazy-abort.js';
import { receiveLite, type LiteReceiveOptions } from './lite-driver.js';
import { cloneTask, textOf, type Artifact, type Part, type Task, type TaskEvent, type TaskMessage } from './task-model.js';

/** What a handler receives about a new task. */
export interface IncomingTask {
  id: string;
  contextId: string;
  /** The skill asked for (`skill` in the message metadata, or the lite `skill=` param). */
  skill?: string;
  /** The text of the request. */
  text: string;
  /** Files sent with the request. */
  files: Extract<Part, { kind: 'file' }>[];
  message: TaskMessage;
  /** Who asked, when known (a lite peer id). */
  from?: string;
}

/** A file in a result: inline bytes, or a URL the peer can fetch. */
export interface ResultFile {
  name: string;
  mediaType?: string;
  bytes?: Uint8Array;
  url?: string;
}

export interface TaskContext {
  readonly taskId: string;
  readonly contextId: string;
  /** Fires when the task is cancelled; stop work and return. */
  readonly signal: AbortSignal;
  /** Reports a non-final state, with the agent's words, a 0–100 progress and an eta. */
  status(state: Exclude<WireState, 'completed' | 'failed' | 'cancelled' | 'rejected'>, options?: StatusOptions): Promise<void>;
  /** Asks the requester a question (input-required) and resolves with their reply. */
  ask(question: string): Promise<TaskMessage>;
  /** Ends the task as completed, with its result as an artifact. */
  complete(result?: { text?: string; files?: ResultFile[]; data?: unknown; name?: string }): Promise<void>;
  fail(reason: string): Promise<void>;
  reject(reason: string): Promise<void>;
}

export interface StatusOptions {
  message?: string;
  progress?: number;
  eta?: string;
}

export interface AgentOptions {
  card: LiteCard;
  store?: TaskStore;
  onTask(task: IncomingTask, context: TaskContext): unknown;
  now?: () => Date;
  /** Makes task, context, message and artifact ids (default: UUIDv7, time-ordered). */
  newId?: () => string;
  /** Told about failures the agent survives, such as a save that will be retried (default: stderr). */
  onError?: (error: unknown, what: string) => void;
}

/** Messages nest no deeper than this; deeper input is refused before anything copies it. */
const MAX_MESSAGE_DEPTH = 64;
/** A failed save is tried again after this long, with the newest state. */
const SAVE_RETRY_MS = 1000;

export interface SendOptions {
  /** Return as soon as the task exists instead of waiting for it to end or ask for input. */
  returnImmediately?: boolean;
  from?: string;
  skill?: string;
  /**
   * Runs once the task exists (a new one, or the one a reply continues) and before any of its
   * updates is sent, so that a push config registered here sees them all. If it throws, the
   * message is refused and no new task is made.
   */
  beforeStart?: (task: Task) => Promise<void>;
}

/**
 * Told of every event of every task, with the task as it is after the event (shared by all
 * observers: do not change it). A returned promise is waited for as the agent waits for its
 * own saves, so use it for local, durable work only, and make it never reject.
 */
export type TaskObserver = (event: TaskEvent, task: Task) => void | Promise<void>;

type Listener = (event: TaskEvent) => void;

interface LiveTask {
  task: Task;
  listeners: Set<Listener>;
  /**
   * Events not yet saved, with the listeners there were when each happened. Listeners hear of an
   * event only once the state it tells of is saved: what a client has been told survives a crash.
   */
  held: { event: TaskEvent; to: Listener[] }[];
  /** Blocking sends waiting for the task to end or ask for input. */
  waiters: (() => void)[];
  abort: LazyAbort;
  /** Set while the handler waits in `ask` for the requester's reply. */
  reply?: { resolve(message: TaskMessage): void; reject(error: unknown): void };
  /** Resolves when the newest state is saved. Saves run one at a time and coalesce. */
  saving: Promise<void>;
  /** The task changed since the save in flight began. */
  dirty: boolean;
  /** The last save failed; cleared by the next one that succeeds. */
  saveError?: unknown;
}

export class Agent {
  readonly card: LiteCard;
  readonly store: TaskStore;
  private readonly options: AgentOptions;
  private readonly live = new Map<string, LiveTask>();
  private readonly observers = new Set<TaskObserver>();
  private readonly now: () => Date;
  private readonly newId: () => string;

  constructor(options: AgentOptions) {
    this.options = options;
    this.card = options.card;
    this.store = options.store ?? new MemoryTaskStore();
    this.now = options.now ?? (() => new Date());
    this.newId = options.newId ?? uuidv7;
  }

  /** Handles a requester's message: a new task, or the reply to a task that asked for input. */
  async send(message: TaskMessage, options: SendOptions = {}): Promise<Task> {
    const blocking = !options.returnImmediately;
    const live = await this.accept(message, options, blocking);
    if (blocking) {
      if (!isPaused(live.task.status.state)) await this.untilPaused(live);
      // What the requester is told has happened must survive a crash.
      await live.saving;
      if (live.saveError !== undefined) {
        const error = live.saveError as Error;
        throw new LiteError('IO_ERROR', `task "${live.task.id}" is ${live.task.status.state}, but that could not be saved (${error.message}); it will be retried`, { task: live.task.id }, { cause: error });
      }
    }
    // An ended task changes no more: no copy needed (it is the caller's now).
    return isTerminal(live.task.status.state) ? live.task : cloneTask(live.task);
  }

  /** Like `send`, but yields the task and then every event until it ends or asks for input. */
  async stream(message: TaskMessage, options: SendOptions = {}): Promise<AsyncIterable<TaskEvent>> {
    return this.follow(await this.accept(message, options));
  }

  async getTask(id: string): Promise<Task> {
    const live = this.live.get(id);
    if (live !== undefined) return cloneTask(live.task);
    const stored = await this.store.get(id);
    if (stored === undefined) throw new LiteError('TASK_NOT_FOUND', `no task "${id}"`, { task: id });
    return stored;
  }

  listTasks(query?: TaskQuery): Promise<TaskPage> {
    return this.store.list(query);
  }

  /** Cancels a task: its handler's signal fires and it ends as cancelled. Idempotent. */
  async cancel(id: string): Promise<Task> {
    const live = this.live.get(id);
    const task = live?.task ?? (await this.store.get(id));
    if (task === undefined) throw new LiteError('TASK_NOT_FOUND', `no task "${id}"`, { task: id });
    if (task.status.state === 'cancelled') return cloneTask(task);
    if (isTerminal(task.status.state)) {
      throw new LiteError('TASK_TERMINAL', `task "${id}" is already ${task.status.state} and cannot be cancelled`, { task: id });
    }
    if (live === undefined) {
      // A task left unfinished by an earlier process: nothing runs it, so just record the end.
      const ended: Task = { ...task, status: { state: 'cancelled', timestamp: this.timestamp() } };
      await this.store.save(ended);
      await this.tell({ kind: 'status', taskId: id, contextId: ended.contextId, status: structuredClone(ended.status) }, ended);
      return ended;
    }
    this.setStatus(live, 'cancelled', agentMessage(live.task, 'Cancelled at the requester’s request.', this.newId()));
    live.abort.abort(new LiteError('TASK_TERMINAL', `task "${id}" was cancelled`));
    live.reply?.reject(live.abort.signal.reason);
    await live.saving;
    return cloneTask(live.task);
  }

  /** The task now, then its events until it ends or asks for input. */
  async subscribe(id: string): Promise<AsyncIterable<TaskEvent>> {
    const live = this.live.get(id);
    if (live !== undefined && !isTerminal(live.task.status.state)) return this.follow(live);
    const task = live?.task ?? (await this.store.get(id));
    if (task === undefined) throw new LiteError('TASK_NOT_FOUND', `no task "${id}"`, { task: id });
    throw new LiteError('UNSUPPORTED_OPERATION', `task "${id}" is ${task.status.state}; there is nothing to follow`, { task: id });
  }

  /** Adds an observer of every task's events; returns the function that removes it. */
  observe(observer: TaskObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** How many streams, subscriptions and waiting sends follow a running task now (0 once it ends). */
  subscribers(taskId: string): number {
    const live = this.live.get(taskId);
    return live === undefined ? 0 : live.listeners.size + live.waiters.length;
  }

  /**
   * Handles A2A-Lite chat text from peer `options.from` and resolves with the lite replies to
   * send, once each task it started has ended or asks for input (see lite-driver.ts).
   */
  receive(text: string, options: LiteReceiveOptions): Promise<string[]> {
    return receiveLite(this, text, options);
  }

  /**
   * Stops the agent: every running task ends as failed with `reason` (its handler's signal
   * fires), every save finishes, and the store is closed.
   */
  async shutdown(reason = 'the agent was stopped'): Promise<void> {
    for (const live of this.live.values()) {
      if (isTerminal(live.task.status.state)) continue;
      this.setStatus(live, 'failed', agentMessage(live.task, reason, this.newId()));
      live.abort.abort(new LiteError('TASK_TERMINAL', reason));
      live.reply?.reject(live.abort.signal.reason);
    }
    await this.close();
  }

  /** Waits for every pending save, then closes the store. */
  async close(): Promise<void> {
    await Promise.all([...this.live.values()].map((live) => live.saving));
    await this.store.close();
  }

  /**
   * Makes the new task a message asks for (or resumes the one it replies to) and starts its
   * handler. `blocking`: the requester learns the task id only with the answer, which waits for
   * the newest state to be saved, so the handler may start before the first save; a quick task
   * is then written once, already ended.
   */
  private async accept(message: TaskMessage, options: SendOptions, blocking = false): Promise<LiveTask> {
    if (message.role !== 'user') throw new LiteError('INVALID_PARAMS', 'a message to an agent has role "user"');
    if (message.parts.length === 0) throw new LiteError('INVALID_PARAMS', 'a message needs at least one part');
    if (jsonDepth(message, MAX_MESSAGE_DEPTH) > MAX_MESSAGE_DEPTH) {
      throw new LiteError('INVALID_PARAMS', `the message nests deeper than ${MAX_MESSAGE_DEPTH} levels`);
    }
    if (message.taskId) return this.resume(message, options);
    const id = this.newId();
    const contextId = message.contextId || this.newId();
    const first: TaskMessage = { ...message, taskId: id, contextId };
    const task: Task = { id, contextId, status: { state: 'submitted', timestamp: this.timestamp() }, history: [first], artifacts: [] };
    if (options.beforeStart) await options.beforeStart(cloneTask(task));
    const live: LiveTask = { task, listeners: new Set(), held: [], waiters: [], abort: new LazyAbort(), saving: Promise.resolve(), dirty: false };
    this.live.set(id, live);
    // Nobody follows the task yet; this tells observers that it exists (without any, the copy
    // for the event would be made for no one).
    if (this.observers.size > 0) this.emit(live, { kind: 'task', task: cloneTask(task) });
    const limit = this.card.limits?.maxConcurrentTasks;
    const busy = limit !== undefined && this.running() > limit;
    let start: (() => void) | undefined;
    if (busy) {
      this.setStatus(live, 'rejected', agentMessage(task, `Busy: this agent works on at most ${limit} task${limit === 1 ? '' : 's'} at once. Try again later.`, this.newId()));
    } else {
      const incoming: IncomingTask = {
        id,
        contextId,
        text: textOf(first),
        files: first.parts.filter((p): p is Extract<Part, { kind: 'file' }> => p.kind === 'file'),
        message: first,
      };
      const skill = options.skill ?? (typeof first.metadata?.skill === 'string' ? first.metadata.skill : undefined);
      if (skill !== undefined) incoming.skill = skill;
      if (options.from !== undefined) incoming.from = options.from;
      start = () => void this.run(live, incoming);
    }
    this.persist(live);
    if (busy) {
      void live.saving.then(() => this.live.delete(id));
    } else if (blocking) {
      // The requester learns the id with the answer, once the newest state is saved (`send`).
      start?.();
      return live;
    }
    try {
      // A client that gets a task id may rely on it surviving a crash: save before answering.
      await live.saving;
      if (live.saveError !== undefined) throw live.saveError;
    } catch (error) {
      this.live.delete(id);
      if (error instanceof LiteError) throw error;
      throw new LiteError('IO_ERROR', `the new task could not be saved (${(error as Error).message})`, undefined, { cause: error });
    }
    // Start on the next turn, so that a stream has subscribed before the first update.
    if (start !== undefined) setImmediate(start);
    return live;
  }

  /** A follow-up message: the reply to a task waiting for input. */
  private async resume(message: TaskMessage, options: SendOptions): Promise<LiveTask> {
    const id = message.taskId as string;
    const live = this.live.get(id);
    if (live === undefined) {
      const stored = await this.store.get(id);
      if (stored === undefined) throw new LiteError('TASK_NOT_FOUND', `no task "${id}"`, { task: id });
      throw new LiteError('UNSUPPORTED_OPERATION', `task "${id}" is ${stored.status.state}; send a new message without taskId to start a new task`, { task: id });
    }
    if (message.contextId && message.contextId !== live.task.contextId) {
      throw new LiteError('INVALID_PARAMS', `contextId "${message.contextId}" is not the context of task "${id}"`);
    }
    const reply = live.reply;
    const notWaiting = () => new LiteError('UNSUPPORTED_OPERATION', `task "${id}" is ${live.task.status.state} and is not waiting for input`, { task: id });
    if (reply === undefined) throw notWaiting();
    if (options.beforeStart) {
      await options.beforeStart(cloneTask(live.task));
      // Another reply or a cancel may have come while it ran.
      if (live.reply !== reply || isTerminal(live.task.status.state)) throw notWaiting();
    }
    live.reply = undefined;
    const turn: TaskMessage = { ...message, taskId: id, contextId: live.task.contextId };
    live.task.history.push(turn);
    this.setStatus(live, 'working');
    reply.resolve(turn);
    return live;
  }

  private async run(live: LiveTask, incoming: IncomingTask): Promise<void> {
    const context = this.contextFor(live);
    try {
      if (isTerminal(live.task.status.state)) return; // cancelled before it started
      const returned = await this.options.onTask(incoming, context);
      if (isTerminal(live.task.status.state)) return;
      if (typeof returned === 'string') await context.complete({ text: returned });
      else await context.fail('the agent stopped without a result');
    } catch (error) {
      if (isTerminal(live.task.status.state)) return;
      const reason = error instanceof Error ? error.message : String(error);
      this.setStatus(live, 'failed', agentMessage(live.task, reason, this.newId()));
    } finally {
      await live.saving;
      if (isTerminal(live.task.status.state)) this.live.delete(live.task.id);
    }
  }

  private contextFor(live: LiveTask): TaskContext {
    const { task } = live;
    const guard = (): void => {
      if (isTerminal(live.task.status.state)) {
        throw new LiteError('TASK_TERMINAL', `task "${task.id}" is already ${live.task.status.state}`, { task: task.id });
      }
    };
    return {
      taskId: task.id,
      contextId: task.contextId,
      // Made on first use: most handlers never look at it.
      get signal() {
        return live.abort.signal;
      },
      status: async (state, options = {}) => {
        guard();
        const words = options.message ?? '';
        const message = words === '' && options.progress === undefined && options.eta === undefined ? undefined : agentMessage(task, words, this.newId(), options);
        this.setStatus(live, state, message);
        await live.saving;
      },
      ask: async (question) => {
        guard();
        const answer = new Promise<TaskMessage>((resolve, reject) => (live.reply = { resolve, reject }));
        this.setStatus(live, 'input-required', agentMessage(task, question, this.newId()));
        return answer;
      },
      complete: async (result = {}) => {
        guard();
        const parts = resultParts(result);
        if (parts.length > 0) {
          const artifact: Artifact = { artifactId: this.newId(), name: result.name ?? 'result', parts };
          live.task.artifacts.push(artifact);
          if (live.listeners.size > 0 || this.observers.size > 0) {
            this.emit(live, { kind: 'artifact', taskId: task.id, contextId: task.contextId, artifact: structuredClone(artifact), append: false, lastChunk: true });
          }
        }
        this.setStatus(live, 'completed');
        await live.saving;
      },
      fail: async (reason) => {
        guard();
        this.setStatus(live, 'failed', agentMessage(task, reason, this.newId()));
        await live.saving;
      },
      reject: async (reason) => {
        guard();
        this.setStatus(live, 'rejected', agentMessage(task, reason, this.newId()));
        await live.saving;
      },
    };
  }

  /** Moves the task to `state` if the state machine allows it, then tells everyone and saves. */
  private setStatus(live: LiveTask, state: WireState, message?: TaskMessage): void {
    const from = live.task.status.state;
    if (transition(from, state) === 'illegal' || (isTerminal(from) && from === state)) {
      throw new LiteError('ILLEGAL_TRANSITION', `task "${live.task.id}" cannot go from ${from} to ${state}`, { task: live.task.id, from, to: state });
    }
    live.task.status = message === undefined ? { state, timestamp: this.timestamp() } : { state, message, timestamp: this.timestamp() };
    // The agent's words join the conversation; a bare progress figure does not.
    if (message !== undefined && textOf(message) !== '') live.task.history.push(message);
    // A status is replaced on every change, never edited, so listeners can share it.
    this.emit(live, { kind: 'status', taskId: live.task.id, contextId: live.task.contextId, status: live.task.status });
    this.persist(live);
    if (live.waiters.length > 0 && isPaused(state)) for (const resolve of live.waiters.splice(0)) resolve();
  }

  private reportError(error: unknown, what: string): void {
    if (this.options.onError) this.options.onError(error, what);
    else process.stderr.write(`a2a-lite: ${what}: ${error instanceof Error ? error.message : String(error)}\n`);
  }

  private emit(live: LiveTask, event: TaskEvent): void {
    if (live.listeners.size > 0) live.held.push({ event, to: [...live.listeners] });
    if (this.observers.size === 0) return;
    const told = this.tell(event, cloneTask(live.task));
    live.saving = live.saving.then(() => told);
  }

  /** Tells every observer; resolves when the work they returned is done, whatever its outcome. */
  private tell(event: TaskEvent, task: Task): Promise<void> {
    const work: Promise<unknown>[] = [];
    for (const observer of this.observers) {
      try {
        const done = observer(event, task);
        if (done !== undefined) work.push(done.catch(() => undefined));
      } catch {
        // An observer's failure is its own; the task goes on.
      }
    }
    return Promise.all(work).then(() => undefined);
  }

  /**
   * Saves the task at the end of this turn of the event loop, after the changes made in it. While
   * a save is waiting or in flight, further changes only mark the task dirty; the next save
   * writes the newest state once. A burst of updates costs a few saves, not one full copy of the
   * task each, and a task that starts and ends in one turn is written once.
   */
  private persist(live: LiveTask): void {
    if (live.dirty) return;
    live.dirty = true;
    live.saving = live.saving.then(this.endOfTurn).then(async () => {
      live.dirty = false;
      // What this save covers: the events so far. Later ones wait for the next save.
      const covered = live.held;
      live.held = [];
      try {
        // The store takes its snapshot when called (see TaskStore.save): no copy needed here.
        await this.store.save(live.task);
        live.saveError = undefined;
      } catch (error) {
        // A locked or full disk must not stop the agent: report it, and try again shortly with
        // whatever the task has become by then. `saving` itself never rejects, and the events
        // go out all the same rather than stall every stream.
        live.saveError = error;
        this.reportError(error, `saving task ${live.task.id}`);
        setTimeout(() => this.persist(live), SAVE_RETRY_MS).unref();
      }
      for (const { event, to } of covered) {
        for (const listener of to) if (live.listeners.has(listener)) listener(event);
      }
    });
  }

  /** The task now, then each event, ending after a final or interrupted state. */
  private follow(live: LiveTask): AsyncIterable<TaskEvent> {
    const queue = new EventQueue<TaskEvent>(() => live.listeners.delete(listener));
    const listener = (event: TaskEvent): void => {
      queue.push(event);
      if (event.kind === 'status' && isPaused(event.status.state)) queue.end();
    };
    queue.push({ kind: 'task', task: cloneTask(live.task) });
    if (isPaused(live.task.status.state)) queue.end();
    else live.listeners.add(listener);
    return queue;
  }

  /** Resolves when the task ends or asks for input (not yet saved: see `send`). */
  private untilPaused(live: LiveTask): Promise<void> {
    return new Promise((resolve) => live.waiters.push(resolve));
  }

  /** Tasks that count against the concurrency limit: started and not yet ended. */
  private running(): number {
    let count = 0;
    for (const live of this.live.values()) if (!isTerminal(live.task.status.state)) count += 1;
    return count;
  }

  /** Resolves in this turn's check phase (setImmediate), after the I/O callbacks of the turn. */
  private turnEnd: Promise<void> | undefined;
  private readonly endOfTurn = (): Promise<void> =>
    (this.turnEnd ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.turnEnd = undefined;
        resolve();
      }),
    ));

  /** The default clock's last reading and its ISO text, which changes once per millisecond. */
  private lastMs = Number.NaN;
  private lastIso = '';

  private timestamp(): string {
    if (this.options.now !== undefined) return this.now().toISOString();
    const ms = Date.now();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }
}

/** Creates an agent that runs `onTask` for every new task. */
export function createAgent(options: AgentOptions): Agent {
  return new Agent(options);
}

/** Ended, or waiting on the requester: a blocking send returns and a stream closes. */
function isPaused(state: TaskState): boolean {
  return isTerminal(state) || isInterrupted(state);
}

function agentMessage(task: Task, text: string, messageId: string, options: StatusOptions = {}): TaskMessage {
  const message: TaskMessage = { messageId, role: 'agent', parts: [{ kind: 'text', text }], taskId: task.id, contextId: task.contextId };
  if (options.progress !== undefined || options.eta !== undefined) {
    const progress: Record<string, unknown> = {};
    if (options.progress !== undefined) progress.progress = options.progress;
    if (options.eta !== undefined) progress.eta = options.eta;
    message.metadata = { a2aLite: progress };
  }
  return message;
}

function resultParts(result: { text?: string; files?: ResultFile[]; data?: unknown }): Part[] {
  const parts: Part[] = [];
  if (result.text !== undefined && result.text !== '') parts.push({ kind: 'text', text: result.text });
  for (const file of result.files ?? []) {
    const part: Part = { kind: 'file', name: file.name };
    if (file.mediaType) part.mediaType = file.mediaType;
    if (file.bytes) part.bytes = Buffer.from(file.bytes).toString('base64');
    if (file.url) part.url = file.url;
    parts.push(part);
  }
  if (result.data !== undefined) parts.push({ kind: 'data', data: result.data });
  return parts;
}
