// The observers of an agent (the push sender, for one): told of every event of every task. An
// observer's failure is its own and never stops a task; the work it returns is waited for.

import type { Context } from '@opentelemetry/api';
import type { Task, TaskEvent } from '../model/task.js';
import type { TaskObserver } from './agent-options.js';

export class Observers {
  private readonly all = new Set<TaskObserver>();

  get size(): number {
    return this.all.size;
  }

  /** Adds an observer; returns the function that removes it. */
  add(observer: TaskObserver): () => void {
    this.all.add(observer);
    return () => this.all.delete(observer);
  }

  /** Tells every observer; resolves when the work they returned is done, whatever its outcome. */
  tell(event: TaskEvent, task: Task, owner?: string, trace?: Context): Promise<void> {
    const work: Promise<unknown>[] = [];
    for (const observer of this.all) {
      try {
        const done = observer(event, task, owner, trace);
        if (done !== undefined) work.push(done.catch(() => undefined));
      } catch {
        // An observer's failure is its own; the task goes on.
      }
    }
    return Promise.all(work).then(() => undefined);
  }
}
