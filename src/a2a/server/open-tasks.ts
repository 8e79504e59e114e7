// The tasks each principal has made that have not ended, for the cap on tasks per caller
// (`serve --max-tasks-per-caller`). A task is counted from the moment it is made (before its
// first update, so two sends at once cannot both take the last place) until it ends.

import { LiteError } from '../../errors.js';
import { isTerminal } from '../../protocol/states.js';
import type { Agent } from '../../runtime/agent.js';
import type { Task } from '../../model/task.js';
import { CAP_RETRY_SECONDS, type CallerLimits } from './caller-limits.js';

export class OpenTasks {
  private readonly byOwner = new Map<string, Set<string>>();

  constructor(
    agent: Agent,
    private readonly max: number,
    private readonly limits: CallerLimits,
  ) {
    agent.observe((_event, task, owner) => {
      if (owner !== undefined && isTerminal(task.status.state)) this.forget(owner, task.id);
    });
  }

  count(owner: string): number {
    return this.byOwner.get(owner)?.size ?? 0;
  }

  /**
   * Counts `task` as `owner`'s, or refuses it (RATE_LIMITED) when `owner` has `max` tasks open
   * already. A reply (to a task that exists already, so is past `submitted`) is always taken.
   */
  admit(task: Task, owner: string, address: string | undefined): void {
    const open = this.byOwner.get(owner) ?? new Set<string>();
    if (open.has(task.id) || isTerminal(task.status.state)) return;
    if (open.size >= this.max && task.status.state === 'submitted') {
      this.limits.hit('tasks', owner, address, { task: task.id });
      throw new LiteError('RATE_LIMITED', `this caller has ${this.max} task${this.max === 1 ? '' : 's'} open, the most it may; wait for one to end`, { retryAfter: CAP_RETRY_SECONDS });
    }
    open.add(task.id);
    this.byOwner.set(owner, open);
  }

  private forget(owner: string, id: string): void {
    const open = this.byOwner.get(owner);
    if (open === undefined) return;
    open.delete(id);
    if (open.size === 0) this.byOwner.delete(owner);
  }
}
