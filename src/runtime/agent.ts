// The agent runtime: one handler API (`onTask(task, ctx)`), driven by A2A requests (a2a/server)
// or by A2A-Lite chat text (lite/driver.ts), and knowing neither. It owns the live tasks: their
// state (checked by the state machine), cancellation, the concurrency limit and the observers;
// live-task.ts keeps each task's saves and followers. With `cluster`, it is one replica of several
// sharing a store: replica.ts and forwarded.ts reach the tasks that run on the others.
//
//   send/stream ──► new task (submitted) ──► onTask(task, ctx) ──► ctx.status / ask / complete …
//                        │                                              │
//                        └─ events ──► LiveTask (live-task.ts) ◄────────┘
//                                 │      store.save, then subscribers (streams, waiters)
//                                 └──► observers (the push sender), told of every task

import type { LiteCard } from '../card/types.js';
import { LiteError } from '../errors.js';
import { isSettled, isTerminal } from '../protocol/states.js';
import { isClusterStore } from '../store/cluster-store.js';
import { MemoryTaskStore, type TaskPage, type TaskQuery, type TaskStore } from '../store/task-store.js';
import { uuidv7 } from '../model/ids.js';
import { errorReporter, type AgentOptions, type ClusterOptions, type SendOptions, type TaskAccess, type TaskObserver } from './agent-options.js';
import { isoClock } from './clock.js';
import { LiveTask, endOfTurn, type SaveContext } from './live-task.js';
import { Observers } from './observers.js';
import { Retention } from './retention.js';
import { checkRequesterMessage, directAnswer } from './direct-answer.js';
import { eventsAfter } from './resume.js';
import { followUp, type FollowUpHost } from './follow-up.js';
import { answerForwarded, cancelElsewhere, claimKey, replyElsewhere, retentionElsewhere } from './forwarded.js';
import { IdempotentSends, sendKey, type SendKey } from './idempotency.js';
import { Replica, type ReplicaHost } from './replica.js';
import { cancelStored, taskNotFound } from './stored-end.js';
import { TaskChanges } from './task-changes.js';
import { agentMessage, endTask, incomingTask, taskContext, type IncomingTask } from './task-context.js';
import { cloneTask, type Task, type TaskMessage, type TaskEvent } from '../model/task.js';
import { observedSave } from './observed-save.js';

export type { IncomingTask, ResultFile, StatusOptions, TaskContext } from './task-context.js';
export type { AgentOptions, ClusterOptions, SendOptions, TaskAccess, TaskObserver } from './agent-options.js';
export type { DirectReply, IncomingMessage } from './direct-answer.js';

export class Agent {
  readonly card: LiteCard;
  readonly store: TaskStore;
  /** Deletes old tasks and ends unanswered ones by `options.retention`; none without it. */
  readonly retention: Retention | undefined;
  /** @internal This agent as one replica of several sharing its store (`options.cluster`); none alone. */
  readonly replica: Replica | undefined;
  private readonly options: AgentOptions;
  private readonly live = new Map<string, LiveTask>();
  private readonly observers = new Observers();
  /** The time of a status change, as ISO text. */
  private readonly clock: () => string;
  private readonly newId: () => string;
  /** Shared by every live task: saves at the end of a turn, reported through `onError`. */
  private readonly saves: SaveContext;
  /** How a handler's context changes its task. */
  private readonly actions: TaskChanges;
  private readonly sends: IdempotentSends;
  private readonly followUps: FollowUpHost;

  constructor(options: AgentOptions) {
    this.options = options;
    this.card = options.card;
    this.store = options.store ?? new MemoryTaskStore();
    this.clock = options.now === undefined ? isoClock() : () => (options.now as () => Date)().toISOString();
    this.newId = options.newId ?? uuidv7;
    const store = this.store;
    this.saves = { store, save: (task, owner, extras) => observedSave(store, task, owner, extras), endOfTurn: endOfTurn(), reportError: errorReporter(options.onError) };
    this.actions = new TaskChanges(this.clock, this.newId, this.observers);
    const now = options.now ?? (() => new Date());
    this.sends = new IdempotentSends({ store, now, reopen: (id, owner) => this.reopen(id, owner) });
    const local: FollowUpHost = { store, live: (id, access) => this.liveTask(id, access), standing: (task, access) => this.standing(task, access.owner), setStatus: (live, state) => this.actions.setStatus(live, state) };
    const host = { ...this.saves, now, actions: this.actions, live: (id: string) => this.live.get(id), tell: (event: TaskEvent, task: Task, owner?: string) => this.observers.tell(event, task, owner) };
    const replica = (this.replica = options.cluster && this.join(options.cluster, { ...host, followUp: (message, send) => followUp(local, message, send) }));
    this.followUps = replica === undefined ? local : { ...local, elsewhere: (stored, message, send) => replyElsewhere(replica, stored, message, send) };
    this.retention = options.retention && new Retention(options.retention, { ...host, ...(replica && { cluster: retentionElsewhere(replica) }) });
  }

  /**
   * The agent's answer to a new message without a task, when its `onMessage` gives one (§3.1.1);
   * a retried send (same key) gets the first answer.
   */
  answer(message: TaskMessage, options: SendOptions = {}): Promise<TaskMessage | undefined> {
    if (this.options.onMessage === undefined || message.taskId) return Promise.resolve(undefined);
    return this.sends.answer(sendKey(message, options.idempotencyKey, options.messageIdKeys), options.owner, () => directAnswer(this.options.onMessage, message, this.newId));
  }

  /** Handles a requester's message: a new task, or the reply to a task that asked for input. */
  async send(message: TaskMessage, options: SendOptions = {}): Promise<Task> {
    const blocking = !options.returnImmediately;
    const live = await this.accept(message, options, blocking);
    if (blocking) {
      if (!isSettled(live.task.status.state)) await live.untilPaused();
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
    return (await this.accept(message, options)).follow();
  }

  async getTask(id: string, access: TaskAccess = {}): Promise<Task> {
    const live = this.liveTask(id, access);
    if (live !== undefined) return cloneTask(live.task);
    const stored = await this.store.get(id, access.owner);
    if (stored === undefined) throw taskNotFound(id);
    return stored;
  }

  /** A page of tasks, newest first; only `query.owner`'s when it names one. */
  listTasks(query?: TaskQuery): Promise<TaskPage> {
    return this.store.list(query);
  }

  /** Cancels a task: its handler's signal fires and it ends as cancelled. Idempotent. */
  async cancel(id: string, access: TaskAccess = {}): Promise<Task> {
    const live = this.liveTask(id, access);
    const task = live?.task ?? (await this.store.get(id, access.owner));
    if (task === undefined) throw taskNotFound(id);
    if (task.status.state === 'cancelled') return cloneTask(task);
    if (isTerminal(task.status.state)) {
      throw new LiteError('TASK_TERMINAL', `task "${id}" is already ${task.status.state} and cannot be cancelled`, { task: id });
    }
    if (live === undefined) {
      if (this.replica !== undefined) return cancelElsewhere(this.replica, task, access.owner);
      const { ended, event } = await cancelStored(this.store, task, this.clock());
      await this.observers.tell(event, ended, access.owner);
      return ended;
    }
    endTask(live, this.actions, 'cancelled', 'Cancelled at the requester’s request.', `task "${id}" was cancelled`);
    await live.saving;
    return cloneTask(live.task);
  }

  /**
   * The task now, then its events until it ends, through any wait for input (A2A §3.1.6). With
   * `after`, the events numbered above it instead, even of an ended task (resume.ts).
   */
  async subscribe(id: string, access: TaskAccess = {}, after?: number): Promise<AsyncIterable<TaskEvent>> {
    const live = this.liveTask(id, access);
    if (live === undefined && this.replica !== undefined) return this.replica.subscribe(id, access.owner, after);
    if (after !== undefined) return eventsAfter(this.store, id, access.owner, after, live);
    if (live !== undefined && !isTerminal(live.task.status.state)) return live.follow(isTerminal);
    const task = live?.task ?? (await this.store.get(id, access.owner));
    if (task === undefined) throw taskNotFound(id);
    throw new LiteError('UNSUPPORTED_OPERATION', `task "${id}" is ${task.status.state}; there is nothing to follow`, { task: id });
  }

  /** Adds an observer of every task's events; returns the function that removes it. */
  observe(observer: TaskObserver): () => void {
    return this.observers.add(observer);
  }

  /** How many streams, subscriptions and waiting sends follow a running task now (0 once it ends). */
  subscribers(taskId: string): number {
    const live = this.live.get(taskId);
    return live === undefined ? 0 : live.followers;
  }

  /**
   * Stops the agent: every running task ends as failed with `reason` (its handler's signal
   * fires), every save finishes, and the store is closed.
   */
  async shutdown(reason = 'the agent was stopped'): Promise<void> {
    for (const live of this.live.values()) {
      if (isTerminal(live.task.status.state)) continue;
      endTask(live, this.actions, 'failed', reason, reason);
    }
    await this.close();
  }

  /** Waits for every pending save and retention pass, then closes the store (a replica leaves its bus open). */
  async close(): Promise<void> {
    await this.retention?.close();
    await Promise.all([...this.live.values()].map((live) => live.saving));
    await this.replica?.close();
    await this.store.close();
  }

  /**
   * Makes the new task a message asks for (or resumes the one it replies to) and starts its
   * handler. `blocking`: the requester learns the task id only with the answer, which waits for
   * the newest state to be saved, so the handler may start before the first save; a quick task
   * is then written once, already ended.
   */
  private async accept(message: TaskMessage, options: SendOptions, blocking = false): Promise<LiveTask> {
    checkRequesterMessage(message);
    if (message.taskId) return followUp(this.followUps, message, options);
    return this.sends.once(sendKey(message, options.idempotencyKey, options.messageIdKeys), options.owner, (key) => this.create(message, options, blocking, key));
  }

  private async create(message: TaskMessage, options: SendOptions, blocking: boolean, key?: SendKey): Promise<LiveTask> {
    const id = this.newId();
    // Replicas claim the key before anything starts: of those sending with one key, one makes the task.
    const claim = key && this.replica && (await claimKey(this.replica, key, options.owner, id));
    if (claim && 'task' in claim) return claim.task;
    if (claim) key = claim.key;
    const contextId = message.contextId || this.newId();
    const first = { ...message, taskId: id, contextId };
    const task: Task = { id, contextId, status: { state: 'submitted', timestamp: this.clock() }, history: [first], artifacts: [] };
    try {
      // Counted against the retention cap first: a task beforeStart refuses is not made, and gives its place back.
      await (this.retention?.admit(task, options.beforeStart) ?? options.beforeStart?.(cloneTask(task)));
    } catch (error) {
      this.release(key, options.owner, id);
      throw error;
    }
    const live = Object.assign(new LiveTask(task, this.saves, options.owner), { trace: options.trace });
    // Replicas log every event: a follower on another replica reads them from the store.
    if (this.replica !== undefined) live.logging = true;
    this.live.set(id, live);
    // Nobody follows the task yet; this tells observers that it exists (without any, the copy
    // for the event would be made for no one).
    if (this.observers.size > 0) this.actions.emit(live, { kind: 'task', task: cloneTask(task) });
    const limit = this.card.limits?.maxConcurrentTasks;
    const busy = limit !== undefined && this.running() > limit;
    // Saved with the task: a retry gets this task (idempotency.ts). A refusal for being busy is
    // not kept, so that a retry may find room.
    if (key !== undefined && !busy) live.idempotency = { key: key.key, fingerprint: key.fingerprint };
    let start: (() => void) | undefined;
    if (busy) {
      this.actions.setStatus(live, 'rejected', agentMessage(task, `Busy: this agent works on at most ${limit} task${limit === 1 ? '' : 's'} at once. Try again later.`, this.newId()));
    } else {
      const incoming = incomingTask(first, options.from, options.skill);
      start = () => void this.run(live, incoming);
    }
    live.persist();
    if (busy) {
      this.release(key, options.owner, id);
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
      this.release(key, options.owner, id);
      if (error instanceof LiteError) throw error;
      throw new LiteError('IO_ERROR', `the new task could not be saved (${(error as Error).message})`, undefined, { cause: error });
    }
    // Start on the next turn, so that a stream has subscribed before the first update.
    if (start !== undefined) setImmediate(start);
    return live;
  }

  private async run(live: LiveTask, incoming: IncomingTask): Promise<void> {
    const context = taskContext(live, this.actions);
    try {
      if (isTerminal(live.task.status.state)) return; // cancelled before it started
      const returned = await this.options.onTask(incoming, context);
      if (isTerminal(live.task.status.state)) return;
      if (typeof returned === 'string') await context.complete({ text: returned });
      else await context.fail('the agent stopped without a result');
    } catch (error) {
      if (isTerminal(live.task.status.state)) return;
      const reason = error instanceof Error ? error.message : String(error);
      this.actions.setStatus(live, 'failed', agentMessage(live.task, reason, this.newId()));
    } finally {
      await live.saving;
      if (isTerminal(live.task.status.state)) this.live.delete(live.task.id);
    }
  }

  /** Task `id` as `owner` reaches it, for a retried send: running here, or as it was stored. */
  private async reopen(id: string, owner: string | undefined): Promise<LiveTask | undefined> {
    const found = this.liveTask(id, { owner }) ?? (await this.store.get(id, owner));
    return found === undefined || found instanceof LiveTask ? found : this.standing(found, owner);
  }

  /** A task no handler runs here, to answer a retried send with as it stands (or, running on another replica, as it goes on). */
  private standing(task: Task, owner: string | undefined): LiveTask {
    return this.replica === undefined || isTerminal(task.status.state) ? new LiveTask(task, this.saves, owner, true) : this.replica.elsewhere(task, owner);
  }

  /** This agent as a replica of the cluster `options` names; USAGE for a store replicas cannot share. */
  private join(options: ClusterOptions, host: Omit<ReplicaHost, 'store' | 'saves' | 'cancel' | 'reopen'>): Replica {
    const store = this.store;
    if (!isClusterStore(store)) throw new LiteError('USAGE', 'cluster needs a store its replicas share: a ClusterStore, as MemoryTaskStore (in one process) and the PostgreSQL store are');
    const replica = new Replica(options, { ...host, store, saves: this.saves, cancel: (id, owner) => this.cancel(id, { owner }), reopen: (id, owner) => this.reopen(id, owner) }, answerForwarded);
    // Its saves name it the runner, and tell the other replicas.
    this.saves.save = replica.save;
    return replica;
  }

  /** Gives back the key a replica claimed for a task that was not made, or not kept. */
  private release(key: SendKey | undefined, owner: string | undefined, id: string): void {
    if (key !== undefined) this.replica?.store.releaseKey(key.key, owner, id).catch((error: unknown) => this.saves.reportError(error, 'giving back an Idempotency-Key'));
  }

  /** The running task `id`, if `access` reaches it. */
  private liveTask(id: string, access: TaskAccess): LiveTask | undefined {
    const live = this.live.get(id);
    return live === undefined || (access.owner !== undefined && live.owner !== access.owner) ? undefined : live;
  }

  /** Tasks that count against the concurrency limit: started and not yet ended. */
  private running(): number {
    let count = 0;
    for (const live of this.live.values()) if (!isTerminal(live.task.status.state)) count += 1;
    return count;
  }
}

/** Creates an agent that runs `onTask` for every new task. */
export function createAgent(options: AgentOptions): Agent {
  return new Agent(options);
}
