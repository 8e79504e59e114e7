// What replicas of one agent that share a store (`serve --store postgres://… --cluster nats://…`)
// agree on through it: which replicas are alive, which one runs each task, who claimed a send's
// idempotency key, which replica sends a push delivery, and which one does a once-per-cluster job
// (retention, ending a dead replica's tasks). The database is the truth; the bus (cluster/) only
// makes things prompt. A store that one process uses alone needs none of this.

import type { Task } from '../model/task.js';
import type { PendingDelivery } from './push-store.js';

/** The outcome of claiming a send's idempotency key for a new task. */
export type KeyClaim =
  /** The key is this send's: start the task. */
  | { won: true }
  /** Another send (on this or another replica) holds it, for task `taskId` (fingerprint as stored). */
  | { won: false; taskId: string | undefined; fingerprint: string };

export interface ClusterStore {
  /**
   * Records that `replica` is alive until `leaseMs` from now (a first call joins, later calls
   * renew). A replica that stops renewing is dead once its lease has passed.
   */
  heartbeat(replica: string, leaseMs: number): Promise<void>;
  /** Replicas whose lease has passed and whose tasks no survivor has ended yet. */
  deadReplicas(): Promise<string[]>;
  /**
   * Ends, as failed with `reason`, every task `replica` was running and had not ended, and
   * forgets the replica; returns those tasks (with their new status). Done by one survivor only:
   * a second call for the same replica returns nothing. Each failure joins the task's event log,
   * as `recoverInterrupted`'s do. The keys `replica` claimed for tasks it never saved are given
   * back too (as `releaseKey` does): a retry of such a send makes its task after all.
   */
  failTasksOf(replica: string, reason: string): Promise<Task[]>;
  /** The replica running task `taskId` (recorded by `save` with `SaveExtras.runner`), if any. */
  runnerOf(taskId: string): Promise<string | undefined>;
  /**
   * Claims `key` in `owner`'s scope for the task `taskId` that `replica` is about to make, before
   * its handler starts: of two replicas claiming the same key at the same instant, exactly one
   * wins. The claim names `replica` until the task's first save (with the key) is stored, so that
   * if `replica` dies before then, `failTasksOf` gives the key back instead of leaving it held.
   */
  claimKey(key: string, owner: string | undefined, fingerprint: string, taskId: string, replica: string): Promise<KeyClaim>;
  /** Gives back a claim whose task was never made (refused before it started). */
  releaseKey(key: string, owner: string | undefined, taskId: string): Promise<void>;
  /**
   * Takes up to `limit` outbox deliveries for `replica` to send, by `seq`: none that another
   * replica holds under an unexpired claim (its own claims come back to it, renewed). Every claim
   * `replica` holds is renewed, also those past the first `limit`, which are not handed back: a
   * replica with a long queue keeps it. A claim lasts `leaseMs`; a replica that dies with
   * deliveries claimed gives them back by letting the claim run out.
   */
  claimDeliveries(replica: string, limit: number, leaseMs: number): Promise<PendingDelivery[]>;
  /**
   * Whether `replica` leads `role` (e.g. "retention") for the next `leaseMs`: it becomes the
   * leader when there is none or the leader's lease has passed, and renews its own lease.
   */
  lead(role: string, replica: string, leaseMs: number): Promise<boolean>;
}

/** True for a store that can coordinate replicas. */
export function isClusterStore(store: object): store is ClusterStore {
  const methods: (keyof ClusterStore)[] = ['heartbeat', 'deadReplicas', 'failTasksOf', 'runnerOf', 'claimKey', 'releaseKey', 'claimDeliveries', 'lead'];
  return methods.every((name) => typeof (store as Partial<ClusterStore>)[name] === 'function');
}
