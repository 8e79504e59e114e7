// A running task's bookkeeping: the task, who follows it, and its saving. What a client is told
// must survive a crash, so an event reaches listeners only once the save that covers it is done.
//
//   change ──► hold(event) ─────────────────────────────┐ (for the listeners there are now)
//          └─► persist ──► end of turn ──► store.save ──┴─► deliver what the save covered
//                                              └─ fails: report, retry with the newest state

import type { Context } from '@opentelemetry/api';
import { LiteError } from '../errors.js';
import { isSettled, type TaskState } from '../protocol/states.js';
import type { TaskStore } from '../store/task-store.js';
import type { IdempotencyKey, SaveExtras } from '../store/task-log.js';
import { EventQueue } from './event-queue.js';
import { LazyAbort } from './lazy-abort.js';
import { cloneTask, type Task, type TaskChange, type TaskEvent, type TaskMessage } from '../model/task.js';

/** A failed save is tried again after this long, with the newest state. */
const SAVE_RETRY_MS = 1000;

type Listener = (event: TaskEvent) => void;

/** What the live tasks of one agent share: where they are saved and where failures are told. */
export interface SaveContext {
  readonly store: TaskStore;
  /**
   * Saves a task with what goes beside it: the store's own save, or a replica's, which names
   * itself the runner and then tells the other replicas (replica.ts).
   */
  save(task: Task, owner: string | undefined, extras: SaveExtras): Promise<void>;
  /** Resolves at the end of this turn of the event loop (see `endOfTurn`). */
  endOfTurn(): Promise<void>;
  /** Told about a save that failed and will be retried. */
  reportError(error: unknown, what: string): void;
}

export class LiveTask {
  readonly task: Task;
  /** The principal that made the task, saved beside it (see TaskStore); none without auth. */
  readonly owner: string | undefined;
  readonly abort = new LazyAbort();
  /** Set while the handler waits in `ask` for the requester's reply. */
  reply?: { resolve(message: TaskMessage): void; reject(error: unknown): void };
  /** Resolves when the newest state is saved. Saves run one at a time and coalesce; it never rejects. */
  saving: Promise<void> = Promise.resolve();
  /** The last save failed; cleared by the next one that succeeds. */
  saveError?: unknown;
  /** The number of the task's last event (its status and artifact events count 1, 2, 3 …). */
  seq = 0;
  /** The key of the send that made the task, saved with its first save. */
  idempotency?: IdempotencyKey;
  /**
   * Events go to the task's log once someone has followed the task: a client's resume cursor
   * comes from a stream, whose opening snapshot covers all before. A task only ever answered
   * by blocking sends and reads costs the log nothing.
   */
  logging = false;
  /**
   * The trace context of the request that started the task or last sent it a reply (its server
   * span), while tracing is on: the parent of the turn's spans and of the event's pushes.
   */
  trace: Context | undefined;

  private readonly saves: SaveContext;
  private readonly listeners = new Set<Listener>();
  /**
   * Events not yet saved, with the listeners there were when each happened. Listeners hear of an
   * event only once the state it tells of is saved: what a client has been told survives a crash.
   */
  private held: { event: TaskEvent; to: Listener[] }[] = [];
  /** Numbered events not yet saved: the next save adds them to the task's log. */
  private unsaved: TaskChange[] = [];
  /** Blocking sends waiting for the task to end or ask for input. */
  private readonly waiters: (() => void)[] = [];
  /** The task changed since the save in flight began. */
  private dirty = false;

  /**
   * `standing`: a task no handler runs here (ended, or another process's), taken up only to
   * answer a retried send with it as it stands; it is followed to no further event.
   */
  constructor(task: Task, saves: SaveContext, owner?: string, private readonly standing = false) {
    this.task = task;
    this.saves = saves;
    this.owner = owner;
  }

  /** Someone follows the task's events (a stream or a subscription). */
  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** How many streams, subscriptions and waiting sends follow the task. */
  get followers(): number {
    return this.listeners.size + this.waiters.length;
  }

  /**
   * Numbers a change and keeps it for the task's log; keeps any event for the listeners there
   * are now, until the save that covers it is done.
   */
  record(event: TaskEvent): void {
    if (event.kind === 'status' || event.kind === 'artifact') {
      event.seq = this.seq += 1;
      if (this.logging) this.unsaved.push(event);
    }
    if (this.listeners.size > 0) this.held.push({ event, to: [...this.listeners] });
  }

  /** Makes `saving` wait for `work` too (an observer's), which must never reject. */
  waitFor(work: Promise<void>): void {
    this.saving = this.saving.then(() => work);
  }

  /**
   * Saves the task at the end of this turn of the event loop, after the changes made in it. While
   * a save is waiting or in flight, further changes only mark the task dirty; the next save
   * writes the newest state once. A burst of updates costs a few saves, not one full copy of the
   * task each, and a task that starts and ends in one turn is written once.
   */
  persist(): void {
    if (this.dirty) return;
    this.dirty = true;
    this.saving = this.saving.then(() => this.saves.endOfTurn()).then(async () => {
      this.dirty = false;
      // What this save covers: the events so far. Later ones wait for the next save.
      const covered = this.held;
      const events = this.unsaved;
      const idempotency = this.idempotency;
      this.held = [];
      this.unsaved = [];
      this.idempotency = undefined;
      try {
        // The store takes its snapshot when called (see TaskStore.save): no copy needed here.
        await this.saves.save(this.task, this.owner, idempotency === undefined ? { events } : { events, idempotency });
        this.saveError = undefined;
      } catch (error) {
        // What the failed save would have logged goes with the next one.
        this.unsaved = [...events, ...this.unsaved];
        this.idempotency ??= idempotency;
        // A locked or full disk must not stop the agent: report it, and try again shortly with
        // whatever the task has become by then. `saving` itself never rejects, and the events
        // go out all the same rather than stall every stream.
        this.saveError = error;
        this.saves.reportError(error, `saving task ${this.task.id}`);
        setTimeout(() => this.persist(), SAVE_RETRY_MS).unref();
      }
      for (const { event, to } of covered) {
        for (const listener of to) if (this.listeners.has(listener)) listener(event);
      }
    });
  }

  /** Fires the handler's signal with `reason`, and fails the `ask` it may be waiting in. */
  stop(reason: LiteError): void {
    this.abort.abort(reason);
    this.reply?.reject(this.abort.signal.reason);
  }

  /** Resolves when the task ends or asks for input (not yet saved: await `saving` for that). */
  untilPaused(): Promise<void> {
    return this.standing ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes the waiting blocking sends if the task has ended or asks for input. */
  wakeIfPaused(): void {
    if (this.waiters.length > 0 && isSettled(this.task.status.state)) for (const resolve of this.waiters.splice(0)) resolve();
  }

  /**
   * The task now, then each event, ending after a state `endsAt` accepts: a send's stream ends
   * where the task ends or asks for input (the default), a subscription only where it ends.
   */
  follow(endsAt: (state: TaskState) => boolean = isSettled): EventQueue<TaskEvent> {
    return this.listen(endsAt, { kind: 'task', task: cloneTask(this.task), seq: this.seq });
  }

  /**
   * `first` if given, then each event from now on, ending after a state `endsAt` accepts; at
   * once if the task is in such a state already.
   */
  listen(endsAt: (state: TaskState) => boolean, first?: TaskEvent): EventQueue<TaskEvent> {
    this.logging = true;
    const queue = new EventQueue<TaskEvent>(() => this.listeners.delete(listener));
    const listener = (event: TaskEvent): void => {
      queue.push(event);
      if (event.kind === 'status' && endsAt(event.status.state)) queue.end();
    };
    if (first !== undefined) queue.push(first);
    if (this.standing || endsAt(this.task.status.state)) queue.end();
    else this.listeners.add(listener);
    return queue;
  }
}

/**
 * Makes a function that resolves in this turn's check phase (setImmediate), after the I/O
 * callbacks of the turn; every call in one turn shares one promise.
 */
export function endOfTurn(): () => Promise<void> {
  let turnEnd: Promise<void> | undefined;
  return () =>
    (turnEnd ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        turnEnd = undefined;
        resolve();
      }),
    ));
}
