// Following a task that runs on another replica. The store is the truth: the follower reads the
// task's log there, again on each notice the runner publishes after a save, on a slow timer in
// case a notice was lost, and when the bus comes back from a loss. Each event goes out once, in order.
//
//   subscribe(notices) ─► first: the task now (snapshot), or the log after a client's cursor
//        └─ notice | timer | reconnect ─► log after the last event sent ─► events ─► end at endsAt
//                                              └─ not contiguous (trimmed) ─► the task whole (gap)

import { subjectToken, type Bus } from '../cluster/bus.js';
import { LiteError } from '../errors.js';
import type { TaskState } from '../protocol/states.js';
import type { TaskStore } from '../store/task-store.js';
import type { Task, TaskEvent } from '../model/task.js';
import { EventQueue } from './event-queue.js';
import { taskNotFound } from './stored-end.js';

/** What a follower reads and listens on. */
export interface FollowHost {
  store: TaskStore;
  bus: Bus;
  /** How often the store is read when no notice came (one was lost, say). */
  checkMs: number;
  reportError(error: unknown, what: string): void;
}

/** Where a follower starts: the task as it is now, or the events after a client's cursor. */
export type FollowStart = { snapshot: true } | { after: number };

/** The subject a task's notices go to: "saved up to event `seq`". */
export function noticeSubject(taskId: string): string {
  return `task.${subjectToken(taskId)}`;
}

/** Reads of a task's last event number and of the task that agreed, before giving up on agreement. */
const SNAPSHOT_TRIES = 20;

/**
 * The task as stored and the number of its last event, read so that they agree: a save between
 * the reads (which moves the number) makes them read again. Undefined when there is no such task.
 */
export async function storedSnapshot(store: TaskStore, id: string, owner: string | undefined): Promise<{ task: Task; seq: number } | undefined> {
  let before = (await store.events(id, Number.MAX_SAFE_INTEGER)).last;
  for (let tries = 1; ; tries += 1) {
    const task = await store.get(id, owner);
    if (task === undefined) return undefined;
    const after = (await store.events(id, Number.MAX_SAFE_INTEGER)).last;
    // Given up on agreement (a task saving without pause): events after `before` may then repeat
    // what the task already shows, which is better than leaving any out.
    if (after === before || tries === SNAPSHOT_TRIES) return { task, seq: before };
    before = after;
  }
}

/**
 * Follows task `id` (as `owner` reaches it) from `start`; the events go to the returned queue,
 * which ends after a status `endsAt` accepts, when the task is deleted, or when the reader stops.
 * Throws TASK_NOT_FOUND, or INVALID_PARAMS for a cursor past the task's last event.
 */
export async function followElsewhere(host: FollowHost, id: string, owner: string | undefined, start: FollowStart, endsAt: (state: TaskState) => boolean): Promise<EventQueue<TaskEvent>> {
  const follower = new Follower(host, id, owner, endsAt);
  await follower.open(start);
  return follower.queue;
}

/** As `followElsewhere`, but the queue at once: a failure to start ends it, and is reported. */
export function followElsewhereNow(host: FollowHost, id: string, owner: string | undefined, endsAt: (state: TaskState) => boolean): EventQueue<TaskEvent> {
  const follower = new Follower(host, id, owner, endsAt);
  follower.open({ snapshot: true }).catch((error: unknown) => host.reportError(error, `following task ${id}`));
  return follower.queue;
}

class Follower {
  readonly queue: EventQueue<TaskEvent>;
  /** The number of the last event sent. */
  private last = 0;
  private reading = false;
  private again = false;
  /** The reader stopped, or the follow reached its end. */
  private ended = false;
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly host: FollowHost,
    private readonly id: string,
    private readonly owner: string | undefined,
    private readonly endsAt: (state: TaskState) => boolean,
  ) {
    this.queue = new EventQueue<TaskEvent>(() => {
      this.ended = true;
      for (const stop of this.stops.splice(0)) stop();
    });
  }

  /** Listens first, then reads: whatever is saved after the read comes with a notice. */
  async open(start: FollowStart): Promise<void> {
    try {
      this.keep(await this.host.bus.subscribe(noticeSubject(this.id), () => void this.read()));
      this.keep(this.host.bus.onReconnect(() => void this.read()));
      const timer = setInterval(() => void this.read(true), this.host.checkMs).unref();
      this.keep(() => clearInterval(timer));
      const now = await storedSnapshot(this.host.store, this.id, this.owner);
      if (now === undefined) throw taskNotFound(this.id);
      if ('after' in start) {
        if (start.after > now.seq) {
          throw new LiteError('INVALID_PARAMS', `task "${this.id}" has no event ${start.after}: its last is ${now.seq}; resume from an event id this server sent`, { task: this.id });
        }
        this.last = start.after;
        if (start.after === now.seq && this.endsAt(now.task.status.state)) return this.queue.end();
      } else {
        this.queue.push({ kind: 'task', task: now.task, seq: now.seq });
        this.last = now.seq;
        if (this.endsAt(now.task.status.state)) return this.queue.end();
      }
    } catch (error) {
      this.queue.end();
      throw error;
    }
    await this.read();
  }

  /** Reads what was logged after the last event sent, one read at a time; never rejects. */
  private async read(timed = false): Promise<void> {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.again = false;
        await this.readOnce(timed);
      } while (this.again && !this.ended);
    } catch (error) {
      this.host.reportError(error, `following task ${this.id}`);
    } finally {
      this.reading = false;
    }
  }

  private async readOnce(timed: boolean): Promise<void> {
    if (this.ended) return;
    const { events } = await this.host.store.events(this.id, this.last);
    if (events.length === 0) {
      // Deleted meanwhile (retention): nothing more will come. Checked only now and then.
      if (timed && (await this.host.store.get(this.id, this.owner)) === undefined) this.queue.end();
      return;
    }
    if (events[0]?.seq !== this.last + 1) return this.gap();
    for (const event of events) {
      if ((event.seq ?? 0) <= this.last) continue;
      this.queue.push(event);
      this.last = event.seq ?? this.last;
      if (event.kind === 'status' && this.endsAt(event.status.state)) return this.queue.end();
    }
  }

  /** The log no longer holds the events after the last one sent: the task whole takes their place. */
  private async gap(): Promise<void> {
    const now = await storedSnapshot(this.host.store, this.id, this.owner);
    if (now === undefined) return this.queue.end();
    this.queue.push({ kind: 'task', task: now.task, seq: now.seq, gap: true });
    this.last = now.seq;
    if (this.endsAt(now.task.status.state)) this.queue.end();
  }

  /** Runs `stop` when the follow ends (at once if it has). */
  private keep(stop: () => void): void {
    if (this.ended) stop();
    else this.stops.push(stop);
  }
}
