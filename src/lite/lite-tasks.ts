// What the chat driver remembers of the lite tasks each agent received. Lite task ids are chosen
// by the requester, so they are unique per peer only; each is linked to the runtime task that
// serves it. The memory is bounded: past the limit, the oldest ended task is forgotten.

import type { Agent } from '../runtime/agent.js';

/** What the driver remembers of one lite task. */
export interface LiteTask {
  /** Unset while the runtime task is being made. */
  runtimeId?: string;
  /** A lite cancel ended the task: the cancel replies, not the task's follower. */
  cancelled?: boolean;
  ended?: boolean;
}

/** Tasks remembered per agent; past this, the oldest ended one is forgotten as a new one comes. */
const REMEMBERED = 1000;

export class LiteTasks {
  private readonly tasks = new Map<string, LiteTask>();

  has(peer: string, id: string): boolean {
    return this.tasks.has(keyOf(peer, id));
  }

  get(peer: string, id: string): LiteTask | undefined {
    return this.tasks.get(keyOf(peer, id));
  }

  remember(peer: string, id: string, entry: LiteTask): void {
    this.tasks.set(keyOf(peer, id), entry);
    if (this.tasks.size <= REMEMBERED) return;
    // Map order is insertion order. A live task is never forgotten: it can still be cancelled.
    for (const [old, task] of this.tasks) {
      if (!task.ended) continue;
      this.tasks.delete(old);
      return;
    }
  }
}

const byAgent = new WeakMap<Agent, LiteTasks>();

/** The lite tasks `agent` received, remembered for as long as the agent lives. */
export function liteTasksOf(agent: Agent): LiteTasks {
  let tasks = byAgent.get(agent);
  if (tasks === undefined) byAgent.set(agent, (tasks = new LiteTasks()));
  return tasks;
}

const keyOf = (peer: string, id: string): string => JSON.stringify([peer, id]);
