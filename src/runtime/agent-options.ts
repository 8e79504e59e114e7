// What an agent is made with and what its callers pass: the handler and store it runs on, what it
// keeps and for how long, the replicas it shares its store with, who is asking for a task, how a
// send waits, and the observers told of every task event.

import type { Context } from '@opentelemetry/api';
import type { Bus } from '../cluster/bus.js';
import type { DirectReply, IncomingMessage } from './direct-answer.js';
import type { LiteCard } from '../card/types.js';
import type { RetentionRules } from '../model/retention.js';
import type { Task, TaskEvent } from '../model/task.js';
import type { TaskStore } from '../store/task-store.js';
import type { IncomingTask, TaskContext } from './task-context.js';

export interface AgentOptions {
  card: LiteCard;
  store?: TaskStore;
  onTask(task: IncomingTask, context: TaskContext): unknown;
  /**
   * Optional: answers a new message at once, with a Message and no task (A2A §3.1.1), when it
   * returns words or a reply; returning undefined lets the message start a task for `onTask`.
   */
  onMessage?(message: IncomingMessage): DirectReply | undefined | Promise<DirectReply | undefined>;
  now?: () => Date;
  /** Makes task, context, message and artifact ids (default: UUIDv7, time-ordered). */
  newId?: () => string;
  /** Told about failures the agent survives, such as a save that will be retried (default: stderr). */
  onError?: (error: unknown, what: string) => void;
  /**
   * What the agent keeps and for how long: ended tasks deleted after `taskTtlMs`, tasks waiting
   * for an answer longer than `inputTimeoutMs` failed, at most `maxTasks` kept. Applied when the
   * agent starts and then every minute or so (more often for short durations), from the stored
   * status timestamps; the store must be a RetentionStore. None applies when left out.
   */
  retention?: RetentionRules;
  /**
   * This agent is one replica of several that share `store`, which must then be a ClusterStore
   * (MemoryTaskStore in one process, PostgreSQL across machines), and reach each other on `bus`:
   * any replica answers for any task, whichever runs it. Left out: one process, as always.
   */
  cluster?: ClusterOptions;
}

export interface ClusterOptions {
  /**
   * This replica's name, unique among the replicas (a host name and process id, a pod name).
   * A replica that starts under the name of a dead one ends the tasks that one left unfinished.
   */
  replica: string;
  /** Where the replicas reach each other; the agent does not close it. */
  bus: Bus;
  /** How long after its last heartbeat a replica counts as alive; its tasks end as failed after that (default 15 s). */
  leaseMs?: number;
  /** How often a follower of a task running on another replica reads the store when no notice came (default 5 s). */
  checkMs?: number;
  /** How long a cancel or a reply forwarded to the replica running the task waits for its answer (default 10 s). */
  requestTimeoutMs?: number;
}

/** Where the agent tells the failures it survives: `onError`, or else stderr. */
export function errorReporter(onError: AgentOptions['onError']): (error: unknown, what: string) => void {
  return onError ?? ((error, what) => process.stderr.write(`a2a-lite: ${what}: ${error instanceof Error ? error.message : String(error)}\n`));
}

/**
 * Who is asking, for the calls that reach a task. With an owner, only that owner's tasks are
 * reached: a task of anyone else's is answered exactly as a task that does not exist
 * (TASK_NOT_FOUND), so that its id is not confirmed. Without one, every task is.
 */
export interface TaskAccess {
  /** The principal asking (with `serve`, the name of the credential it presented). */
  owner?: string;
}

export interface SendOptions extends TaskAccess {
  /**
   * The client's key for this send (an `Idempotency-Key`): the same key again, from the same
   * owner, gets the first send's answer instead of new work.
   */
  idempotencyKey?: string;
  /**
   * Without an `idempotencyKey`, the message id is the key, and a reply already taken (same
   * message id) is not taken again. For clients that ask for it: many reuse message ids.
   */
  messageIdKeys?: boolean;
  /** Return as soon as the task exists instead of waiting for it to end or ask for input. */
  returnImmediately?: boolean;
  from?: string;
  skill?: string;
  /**
   * Runs once the task exists (a new one, or the one a reply continues) and before any of its
   * updates is sent, so that a push config registered here sees them all. If it throws, the
   * message is refused and no new task is made.
   */
  beforeStart?: (task: Task) => Promise<void>;
  /**
   * The trace context of the request that sends (its server span), while tracing is on: the
   * parent of the spans the task's handler makes (TaskContext.trace) and of its pushes.
   */
  trace?: Context;
}

/**
 * Told of every event of every task, with the task as it is after the event (shared by all
 * observers: do not change it) and the principal that made it, when one did. A returned promise
 * is waited for as the agent waits for its own saves, so use it for local, durable work only,
 * and make it never reject. `trace` is the task's trace context (LiveTask.trace), if any.
 */
export type TaskObserver = (event: TaskEvent, task: Task, owner: string | undefined, trace?: Context) => void | Promise<void>;
