// Resuming a task's events after a cut: what a client missed since the last event it saw,
// from the task's log in the store, then the live events that follow, each once and in order.
// When the log no longer holds every missed event (or has none: a task's events are logged from
// the first time anyone follows it), the task as it stands takes their place, marked as a gap, so
// that the client knows to take it whole.
//
//   listen (events from now) ─► wait for saves ─► log after N ─► contiguous? ─► replay, then live
//                                                                  └─ no ──► snapshot (gap), then live

import { LiteError } from '../errors.js';
import { isTerminal } from '../protocol/states.js';
import type { TaskStore } from '../store/task-store.js';
import { cloneTask, type Task, type TaskChange, type TaskEvent } from '../model/task.js';
import type { EventQueue } from './event-queue.js';
import type { LiveTask } from './live-task.js';
import { taskNotFound } from './stored-end.js';

/**
 * The events of task `id` numbered above `after`, then its live events until it ends. `live` is
 * the running task when this process runs it; otherwise the events come from the store alone.
 * Throws INVALID_PARAMS for a number past the task's last event.
 */
export async function eventsAfter(store: TaskStore, id: string, owner: string | undefined, after: number, live: LiveTask | undefined): Promise<AsyncIterable<TaskEvent>> {
  if (live === undefined) {
    const task = await store.get(id, owner);
    if (task === undefined) throw taskNotFound(id);
    const { events, last } = await store.events(id, after);
    checkCursor(id, after, last);
    // No log at all: nobody followed the task while it ran, so nobody missed part of it.
    return new Resumed(last > 0 && complete(events, after, last) ? events : [gap(task, last)]);
  }
  // Listen first: whatever happens from here on reaches the queue, and all before it is saved
  // (or failed to be) once `saving` settles, so the log and the queue leave nothing out.
  const seen = live.seq;
  const snapshot = cloneTask(live.task);
  const queue = live.listen(isTerminal);
  try {
    checkCursor(id, after, seen);
    await live.saving;
    const { events } = await store.events(id, after);
    return new Resumed(complete(events, after, seen) ? events : [gap(snapshot, seen)], queue);
  } catch (error) {
    queue.end();
    throw error;
  }
}

function checkCursor(id: string, after: number, last: number): void {
  if (after > last) {
    throw new LiteError('INVALID_PARAMS', `task "${id}" has no event ${after}: its last is ${last}; resume from an event id this server sent`, { task: id });
  }
}

/** Whether `events` are exactly the ones numbered after+1 … up to at least `through`. */
function complete(events: readonly TaskChange[], after: number, through: number): boolean {
  for (const [i, event] of events.entries()) if (event.seq !== after + 1 + i) return false;
  return after + events.length >= through;
}

function gap(task: Task, seq: number): TaskEvent {
  return { kind: 'task', task, seq, gap: true };
}

/**
 * The replayed events, then the live ones numbered after them; ends after a terminal status.
 * Closing it closes the live queue at once (unsubscribing), even while a `next()` waits.
 */
class Resumed implements AsyncIterable<TaskEvent> {
  private readonly replay: TaskEvent[];
  private last = 0;
  private ended = false;

  constructor(
    replay: readonly TaskEvent[],
    private readonly queue?: EventQueue<TaskEvent>,
  ) {
    this.replay = [...replay];
  }

  [Symbol.asyncIterator](): AsyncIterator<TaskEvent> {
    const live = this.queue?.[Symbol.asyncIterator]();
    const close = async (): Promise<IteratorResult<TaskEvent>> => {
      this.ended = true;
      this.replay.length = 0;
      await live?.return?.();
      return { value: undefined, done: true };
    };
    return {
      next: async () => {
        for (;;) {
          if (this.ended) return { value: undefined, done: true };
          const event = this.replay.shift() ?? (await live?.next())?.value;
          if (event === undefined) return close();
          const seq = 'seq' in event ? event.seq : undefined;
          // Live events the replay already gave are passed over.
          if (seq !== undefined && seq <= this.last && event.kind !== 'task') continue;
          if (seq !== undefined) this.last = seq;
          if (endsStream(event)) {
            await close();
            this.ended = true;
          }
          return { value: event, done: false };
        }
      },
      return: close,
    };
  }
}

function endsStream(event: TaskEvent): boolean {
  return (event.kind === 'status' && isTerminal(event.status.state)) || (event.kind === 'task' && isTerminal(event.task.status.state));
}
