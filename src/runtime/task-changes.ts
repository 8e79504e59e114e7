// How a change reaches a running task: the state machine says whether it may happen, the task's
// listeners and the agent's observers hear of it, and the task is saved (live-task.ts).

import { LiteError } from '../errors.js';
import { isTerminal, mayChange, type WireState } from '../protocol/states.js';
import { cloneTask, textOf, type Artifact, type TaskEvent, type TaskMessage } from '../model/task.js';
import type { LiveTask } from './live-task.js';
import type { Observers } from './observers.js';
import type { ArtifactChunk, TaskActions } from './task-context.js';

/** The agent's TaskActions: what `ctx.status`, `ctx.artifact` and the ends of a task do. */
export class TaskChanges implements TaskActions {
  constructor(
    /** The time of a status change, as ISO text. */
    private readonly clock: () => string,
    private readonly makeId: () => string,
    private readonly observers: Observers,
  ) {}

  newId(): string {
    return this.makeId();
  }

  /** Moves the task to `state` if the state machine allows it, then tells everyone and saves. */
  setStatus(live: LiveTask, state: WireState, message?: TaskMessage): void {
    const from = live.task.status.state;
    if (!mayChange(from, state)) {
      throw new LiteError('ILLEGAL_TRANSITION', `task "${live.task.id}" cannot go from ${from} to ${state}`, { task: live.task.id, from, to: state });
    }
    live.task.status = message === undefined ? { state, timestamp: this.clock() } : { state, message, timestamp: this.clock() };
    // The agent's words join the conversation; a bare progress figure does not.
    if (message !== undefined && textOf(message) !== '') live.task.history.push(message);
    // A status is replaced on every change, never edited, so listeners can share it.
    this.emit(live, { kind: 'status', taskId: live.task.id, contextId: live.task.contextId, status: live.task.status });
    live.persist();
    live.wakeIfPaused();
  }

  /**
   * Adds an artifact, or with `append` more parts of one already sent; tells everyone and logs it
   * (a copy as it is now, when anyone will read it; its parts are never changed), and saves.
   */
  addArtifact(live: LiveTask, artifact: Artifact, chunk: ArtifactChunk = {}): void {
    const known = chunk.append ? live.task.artifacts.find((a) => a.artifactId === artifact.artifactId) : undefined;
    if (known !== undefined) known.parts.push(...artifact.parts);
    else live.task.artifacts.push(artifact);
    const seen = live.logging || this.observers.size > 0 ? { ...artifact, parts: [...artifact.parts] } : artifact;
    this.emit(live, { kind: 'artifact', taskId: live.task.id, contextId: live.task.contextId, append: known !== undefined, lastChunk: chunk.lastChunk ?? true, artifact: seen });
    if (!isTerminal(live.task.status.state)) live.persist();
  }

  /** Tells the task's listeners (once saved) and every observer (whose work its saves wait for). */
  emit(live: LiveTask, event: TaskEvent): void {
    live.record(event);
    if (this.observers.size === 0) return;
    live.waitFor(this.observers.tell(event, cloneTask(live.task), live.owner, live.trace));
  }
}
