// A task that runs on another replica, as a send here reaches it (a retried Idempotency-Key, a
// reply forwarded to its runner): answered as it stands, waited for as a blocking send waits,
// or streamed, from the store and the bus (remote-follow.ts).

import { isSettled, type TaskState } from '../protocol/states.js';
import type { Task, TaskEvent } from '../model/task.js';
import type { EventQueue } from './event-queue.js';
import { LiveTask, type SaveContext } from './live-task.js';
import { followElsewhere, followElsewhereNow, type FollowHost } from './remote-follow.js';

export class ElsewhereTask extends LiveTask {
  constructor(
    task: Task,
    saves: SaveContext,
    owner: string | undefined,
    private readonly host: FollowHost,
  ) {
    // Standing: nothing here runs it or saves it.
    super(task, saves, owner, true);
  }

  /** Resolves when the task has ended or asks for input, with `task` as it then stands. */
  override async untilPaused(): Promise<void> {
    const events = await followElsewhere(this.host, this.task.id, this.owner, { snapshot: true }, isSettled);
    for await (const event of events) void event;
    const now = await this.host.store.get(this.task.id, this.owner);
    if (now !== undefined) stand(this.task, now);
  }

  /** The task as stored now, then its events until a state `endsAt` accepts. */
  override follow(endsAt: (state: TaskState) => boolean = isSettled): EventQueue<TaskEvent> {
    return followElsewhereNow(this.host, this.task.id, this.owner, endsAt);
  }
}

/** Makes `task` (kept by reference) what `now` says. */
function stand(task: Task, now: Task): void {
  Object.assign(task, { metadata: undefined }, now);
  if (task.metadata === undefined) delete task.metadata;
}
