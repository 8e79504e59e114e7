// What a peer's executor keeps across requests: the record tests assert on (messages received,
// tasks cancelled) and an abort switch for each task whose turn is still running.
import { PeerUser, type PeerStreams } from './streams.js';

export class AgentRuns {
  /** Every user message the executor received, as the SDK handed it over. */
  readonly received: unknown[] = [];
  /** Ids of the tasks the SDK asked the executor to cancel. */
  readonly cancelled: string[] = [];
  private readonly running = new Map<string, AbortController>();
  /** The context of every task seen, since the SDKs pass only the task id to cancel. */
  private readonly contexts = new Map<string, string>();

  constructor(private readonly streams: PeerStreams) {}

  /** Starts a turn of `taskId`; its signal aborts on cancel or shutdown. */
  start(taskId: string, contextId: string): AbortSignal {
    const controller = new AbortController();
    this.contexts.set(taskId, contextId);
    this.running.set(taskId, controller);
    return controller.signal;
  }

  end(taskId: string, signal: AbortSignal): void {
    if (this.running.get(taskId)?.signal === signal) this.running.delete(taskId);
  }

  /** Stops the task's running turn, if any, and returns the task's context id. */
  cancel(taskId: string): string {
    this.cancelled.push(taskId);
    this.running.get(taskId)?.abort();
    this.running.delete(taskId);
    return this.contexts.get(taskId) ?? '';
  }

  /** Stops every running turn, so that no step timer outlives the peer. */
  stopAll(): void {
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
  }

  /** See {@link PeerStreams.cutAfter}; `user` is the SDK call context's user. */
  cutStreamAfter(user: unknown, marker: string): void {
    if (user instanceof PeerUser) this.streams.cutAfter(user.request, marker);
  }
}
