// One replica of an agent whose replicas share a store (ClusterStore) and a bus. It heartbeats;
// it names itself the runner of what it saves and publishes a notice after each save, which the
// followers on other replicas read the log on (remote-follow.ts); and the replica that leads
// "recovery" ends the tasks of the replicas that died. What crosses to the replica running a task
// (a cancel, a reply, a timeout, a claimed key) is in forwarded.ts.
//
//   save ──► store (runner: me) ──► notice on task.<id> ──► followers elsewhere read the log
//   every lease/3 ──► heartbeat ──► leading "recovery"? ──► each dead replica's tasks failed, notices

import { LiteError } from '../errors.js';
import { subjectToken, type Bus, type BusResponder } from '../cluster/bus.js';
import { isTerminal } from '../protocol/states.js';
import type { ClusterStore } from '../store/cluster-store.js';
import type { SaveExtras } from '../store/task-log.js';
import type { TaskStore } from '../store/task-store.js';
import type { Task, TaskEvent, TaskMessage } from '../model/task.js';
import type { ClusterOptions, SendOptions } from './agent-options.js';
import { ElsewhereTask } from './elsewhere-task.js';
import type { LiveTask, SaveContext } from './live-task.js';
import { followElsewhere, noticeSubject, type FollowHost } from './remote-follow.js';
import { eventsAfter } from './resume.js';
import { taskNotFound } from './stored-end.js';
import type { TaskActions } from './task-context.js';

/** The status message of a task whose replica died, as a survivor ends it. */
export const REPLICA_STOPPED = 'the server replica running this task stopped before the task ended';
/** The status message of a task a replica finds it left unfinished in an earlier life (same name). */
export const REPLICA_RESTARTED = 'the server stopped before this task ended';

/** What the agent lends its replica. */
export interface ReplicaHost {
  store: TaskStore & ClusterStore;
  saves: SaveContext;
  actions: TaskActions;
  now(): Date;
  /** The task `id` if it runs here. */
  live(id: string): LiveTask | undefined;
  /** Cancels task `id`, running here. */
  cancel(id: string, owner: string | undefined): Promise<unknown>;
  /** Takes a reply for a task running here. */
  followUp(message: TaskMessage, options: SendOptions): Promise<LiveTask>;
  /** The task `id` as `owner` reaches it: running here, or as stored. */
  reopen(id: string, owner: string | undefined): Promise<LiveTask | undefined>;
  /** Tells the agent's observers of a change made to a task nothing runs here. */
  tell(event: TaskEvent, task: Task, owner?: string): Promise<void>;
  reportError(error: unknown, what: string): void;
}

export class Replica {
  readonly name: string;
  readonly bus: Bus;
  readonly store: TaskStore & ClusterStore;
  /** How long this replica counts as alive after each heartbeat. */
  readonly leaseMs: number;
  /** How long a request to another replica waits for its answer. */
  readonly requestTimeoutMs: number;
  /** What a follower of a task running elsewhere reads and listens on. */
  readonly follows: FollowHost;
  /** Resolves once this replica has joined (never rejects: a failure is reported, and retried). */
  readonly joined: Promise<void>;
  readonly host: ReplicaHost;
  private readonly timer: NodeJS.Timeout;
  private beating: Promise<void> = Promise.resolve();
  private stopResponding: () => void = () => undefined;
  private closed = false;

  /** `answering` makes what this replica answers the requests of the others with (forwarded.ts). */
  constructor(options: ClusterOptions, host: ReplicaHost, answering: (replica: Replica) => BusResponder) {
    this.name = checkName(options.replica);
    if (typeof options.bus?.request !== 'function') throw new LiteError('USAGE', 'cluster.bus must be a Bus (openBus, MemoryBus)');
    this.bus = options.bus;
    this.store = host.store;
    this.host = host;
    this.leaseMs = duration('leaseMs', options.leaseMs, 15_000);
    this.requestTimeoutMs = duration('requestTimeoutMs', options.requestTimeoutMs, 10_000);
    this.follows = { store: host.store, bus: options.bus, checkMs: duration('checkMs', options.checkMs, 5_000), reportError: host.reportError };
    this.joined = this.join(answering(this));
    this.timer = setInterval(() => void this.beat(), Math.max(10, Math.floor(this.leaseMs / 3))).unref();
  }

  /** The subject of requests to replica `name`. */
  static subject(name: string): string {
    return `replica.${subjectToken(name)}`;
  }

  /** Saves a task this replica runs, as its runner, then tells the followers elsewhere. */
  readonly save = async (task: Task, owner: string | undefined, extras: SaveExtras): Promise<void> => {
    await this.joined;
    await this.store.save(task, owner, { ...extras, runner: this.name });
    this.notify(task.id, extras.events?.at(-1)?.seq);
  };

  /** Tells the followers of task `id` on every replica that its log has grown (up to `seq`). */
  notify(id: string, seq?: number): void {
    this.bus.publish(noticeSubject(id), seq === undefined ? {} : { seq });
  }

  /** Whether this replica leads `role` (a once-per-cluster job) now; false when the store cannot say. */
  async lead(role: string): Promise<boolean> {
    try {
      return await this.store.lead(role, this.name, this.leaseMs);
    } catch (error) {
      this.host.reportError(error, `asking who leads ${role}`);
      return false;
    }
  }

  /**
   * The events of task `id`, which runs elsewhere or nowhere: the task now (or the events after
   * `after`), then each event until it ends, from the store.
   */
  async subscribe(id: string, owner: string | undefined, after: number | undefined): Promise<AsyncIterable<TaskEvent>> {
    const task = await this.store.get(id, owner);
    if (task === undefined) throw taskNotFound(id);
    if (isTerminal(task.status.state)) {
      if (after !== undefined) return eventsAfter(this.store, id, owner, after, undefined);
      throw new LiteError('UNSUPPORTED_OPERATION', `task "${id}" is ${task.status.state}; there is nothing to follow`, { task: id });
    }
    return followElsewhere(this.follows, id, owner, after === undefined ? { snapshot: true } : { after }, isTerminal);
  }

  /** A task running on another replica, to answer a send with (see ElsewhereTask). */
  elsewhere(task: Task, owner: string | undefined): LiveTask {
    return new ElsewhereTask(task, this.host.saves, owner, this.follows);
  }

  /** Stops heartbeating and answering; the bus stays open (whoever made it closes it). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.joined;
    this.stopResponding();
    await this.beating;
  }

  /**
   * Ends what an earlier life of this replica (same name) left unfinished, heartbeats, and starts
   * answering the requests of the other replicas.
   */
  private async join(answer: BusResponder): Promise<void> {
    try {
      await this.endTasksOf(this.name, REPLICA_RESTARTED);
      await this.store.heartbeat(this.name, this.leaseMs);
      const stop = await this.bus.respond(Replica.subject(this.name), answer);
      if (this.closed) stop();
      else this.stopResponding = stop;
    } catch (error) {
      this.host.reportError(error, `joining the cluster as replica ${this.name}`);
    }
  }

  /** Renews this replica's lease; the leader of "recovery" then ends the dead replicas' tasks. */
  private beat(): Promise<void> {
    const beat = this.beating.then(async () => {
      if (this.closed) return;
      try {
        await this.store.heartbeat(this.name, this.leaseMs);
        if (!(await this.lead('recovery'))) return;
        for (const dead of await this.store.deadReplicas()) if (dead !== this.name) await this.endTasksOf(dead, REPLICA_STOPPED);
      } catch (error) {
        this.host.reportError(error, `heartbeat of replica ${this.name}`);
      }
    });
    this.beating = beat;
    return beat;
  }

  /** Fails the unfinished tasks of replica `name` and tells every follower and observer. */
  private async endTasksOf(name: string, reason: string): Promise<void> {
    for (const task of await this.store.failTasksOf(name, reason)) {
      this.notify(task.id);
      await this.host.tell({ kind: 'status', taskId: task.id, contextId: task.contextId, status: task.status }, task);
    }
  }
}

/** A replica's name: 1 to 200 characters, none of them a control character. */
function checkName(name: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > 200 || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new LiteError('USAGE', 'cluster.replica must be a name of 1 to 200 characters, unique among the replicas');
  }
  return name;
}

function duration(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1 || value > 3_600_000) throw new LiteError('USAGE', `cluster.${name} is a whole number of milliseconds from 1 to 3600000, not ${String(value)}`);
  return value;
}
