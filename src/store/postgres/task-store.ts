// The PostgreSQL TaskStore, PushStore, RetentionStore and ClusterStore, for agents whose replicas
// share one database (`serve --store postgres://…`): the SQLite store's behaviour, table for
// table, plus what replicas agree on (cluster.ts). Saves are grouped into one statement per batch
// (save-queue.ts); schema.ts shapes the tables, migrate.ts keeps them current.

import type { PushConfig } from '../../model/push-config.js';
import type { RetentionRules } from '../../model/retention.js';
import type { Task, TaskChange, TaskMessage } from '../../model/task.js';
import type { ClusterStore, KeyClaim } from '../cluster-store.js';
import type { NewDelivery, PendingDelivery, PushStore } from '../push-store.js';
import type { RetentionStore } from '../retention-store.js';
import type { IdempotentAnswer, SaveExtras } from '../task-log.js';
import type { TaskPage, TaskQuery, TaskStore, TaskStoreOptions } from '../task-store.js';
import { PgCluster } from './cluster.js';
import { openPool, type PgDatabase, type PoolOptions, type Statement } from './connection.js';
import { failUnfinished } from './interrupted.js';
import { key, indexKey } from './keys.js';
import { PgListing } from './listing.js';
import { DEFAULT_TASK_SCHEMA, postgresLocation, schemaOf } from './location.js';
import { migrate } from './migrate.js';
import { PgPushStore } from './push-store.js';
import { PgRetention } from './retention.js';
import { SaveQueue } from './save-queue.js';
import { MIGRATIONS } from './schema.js';
import { PgTaskLog } from './task-log.js';
import { batchStatement } from './writes.js';

export interface PostgresTaskStoreOptions extends TaskStoreOptions, PoolOptions {
  /** The schema of the store's tables (default: the URL's `?schema=`, else `a2a_lite`). */
  schema?: string;
  /** Where the password is read when the URL has none (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** The variable of `env` holding the password when the URL has none (default PGPASSWORD). */
  passwordVariable?: string;
}

/**
 * Opens the task store in the PostgreSQL database at `url` (postgres://user@host:port/db),
 * creating or migrating its schema. `pg` is loaded now, and only now. The password is the URL's,
 * else `PGPASSWORD` (see `postgresLocation`). Throws USAGE for a URL that is not one, IO_ERROR
 * when the database cannot be reached (the message shows the URL without its password), and
 * LEDGER_CORRUPT when a newer a2a-lite has migrated the schema past what this one reads.
 *
 * @example
 * const store = await openPostgresTaskStore(process.env.A2A_LITE_STORE!);
 */
export async function openPostgresTaskStore(url: string, options: PostgresTaskStoreOptions = {}): Promise<PostgresTaskStore> {
  const location = postgresLocation(url, options.env, options.passwordVariable);
  const schema = schemaOf(location, options.schema, DEFAULT_TASK_SCHEMA);
  const db = await openPool(location, 'the task store', options);
  try {
    await migrate(db, schema, MIGRATIONS);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return new PostgresTaskStore(db, schema, options.now ?? (() => new Date()));
}

/** Tasks, push configs and the coordination of replicas in PostgreSQL. Open one with `openPostgresTaskStore`. */
export class PostgresTaskStore implements TaskStore, PushStore, RetentionStore, ClusterStore {
  private readonly saves: SaveQueue;
  private readonly log: PgTaskLog;
  private readonly listing: PgListing;
  private readonly pushes: PgPushStore;
  private readonly retention: PgRetention;
  private readonly cluster: PgCluster;
  private readonly write: Statement;

  /** @internal Use `openPostgresTaskStore`, which migrates the schema first. */
  constructor(
    private readonly db: PgDatabase,
    readonly schema: string,
    private readonly now: () => Date,
  ) {
    this.write = batchStatement(schema);
    this.saves = new SaveQueue(db, this.write, now);
    this.log = new PgTaskLog(db, schema);
    this.listing = new PgListing(db, schema);
    this.pushes = new PgPushStore(db, schema);
    this.retention = new PgRetention(db, schema, () => this.saves.settled());
    this.cluster = new PgCluster(db, schema, this.write, now);
  }

  /** Statements sent to the database so far, each one round trip (for tests and the benchmark). */
  get roundTrips(): number {
    return this.db.roundTrips;
  }

  /**
   * Snapshots the task now; saves made in the same turn of the event loop (and those made while
   * the previous batch is on its way) are written together in one statement, and each promise
   * settles after that commit.
   */
  save(task: Task, owner?: string, extras?: SaveExtras): Promise<void> {
    return this.saves.save(task, owner, extras);
  }

  async get(id: string, owner?: string): Promise<Task | undefined> {
    await this.saves.settled();
    const rows =
      owner === undefined
        ? await this.db.query<{ json: string }>('read a task', { name: 'a2a_lite_get', text: `SELECT json FROM ${this.schema}.tasks WHERE id = $1` }, [key(id)])
        : await this.db.query<{ json: string }>('read a task', { name: 'a2a_lite_get_owned', text: `SELECT json FROM ${this.schema}.tasks WHERE id = $1 AND owner = $2` }, [key(id), indexKey(owner)]);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].json) as Task);
  }

  async events(taskId: string, after: number): Promise<{ events: TaskChange[]; last: number }> {
    await this.saves.settled();
    return this.log.events(taskId, after);
  }

  findIdempotent(given: string, owner?: string): Promise<IdempotentAnswer | undefined> {
    // No wait for a batch in flight: a key not yet committed is still held by the agent that
    // is saving it (runtime/idempotency.ts), which answers for it until the commit is done.
    return this.log.find(given, owner);
  }

  saveIdempotentAnswer(given: string, owner: string | undefined, answer: { fingerprint: string; message?: TaskMessage; createdAt: string }): Promise<void> {
    return this.log.answer(given, owner, answer);
  }

  async list(query: TaskQuery = {}): Promise<TaskPage> {
    await this.saves.settled();
    return this.listing.page(query);
  }

  /**
   * Fails every task of the database that has not ended. With replicas sharing the database that
   * includes the tasks of the live ones: a cluster ends only a dead replica's (`failTasksOf`).
   */
  async recoverInterrupted(reason: string): Promise<Task[]> {
    await this.saves.settled();
    const timestamp = this.now().toISOString();
    return this.db.transaction('recover interrupted tasks', (query) => failUnfinished(query, this.schema, this.write, { where: 'true', values: [] }, reason, timestamp));
  }

  savePushConfig(config: PushConfig): Promise<void> {
    return this.pushes.savePushConfig(config);
  }
  getPushConfig(taskId: string, id: string): Promise<PushConfig | undefined> {
    return this.pushes.getPushConfig(taskId, id);
  }
  listPushConfigs(taskId: string): Promise<PushConfig[]> {
    return this.pushes.listPushConfigs(taskId);
  }
  deletePushConfig(taskId: string, id: string): Promise<boolean> {
    return this.pushes.deletePushConfig(taskId, id);
  }
  addDeliveries(deliveries: readonly NewDelivery[]): Promise<PendingDelivery[]> {
    return this.pushes.addDeliveries(deliveries);
  }
  pendingDeliveries(): Promise<PendingDelivery[]> {
    return this.pushes.pendingDeliveries();
  }
  recordAttempt(seq: number, attempts: number): Promise<void> {
    return this.pushes.recordAttempt(seq, attempts);
  }
  removeDelivery(seq: number): Promise<void> {
    return this.pushes.removeDelivery(seq);
  }

  countTasks(): Promise<number> {
    return this.retention.countTasks();
  }
  deleteEnded(limit: number, before?: string): Promise<string[]> {
    return this.retention.deleteEnded(limit, before);
  }
  waitingSince(before: string, limit: number): Promise<Task[]> {
    return this.retention.waitingSince(before, limit);
  }
  retentionRules(): Promise<RetentionRules | undefined> {
    return this.retention.retentionRules();
  }
  saveRetentionRules(rules: RetentionRules): Promise<void> {
    return this.retention.saveRetentionRules(rules);
  }

  heartbeat(replica: string, leaseMs: number): Promise<void> {
    return this.cluster.heartbeat(replica, leaseMs);
  }
  deadReplicas(): Promise<string[]> {
    return this.cluster.deadReplicas();
  }
  async failTasksOf(replica: string, reason: string): Promise<Task[]> {
    await this.saves.settled();
    return this.cluster.failTasksOf(replica, reason);
  }
  async runnerOf(taskId: string): Promise<string | undefined> {
    await this.saves.settled();
    return this.cluster.runnerOf(taskId);
  }
  claimKey(given: string, owner: string | undefined, fingerprint: string, taskId: string, replica: string): Promise<KeyClaim> {
    return this.cluster.claimKey(given, owner, fingerprint, taskId, replica);
  }
  releaseKey(given: string, owner: string | undefined, taskId: string): Promise<void> {
    return this.cluster.releaseKey(given, owner, taskId);
  }
  claimDeliveries(replica: string, limit: number, leaseMs: number): Promise<PendingDelivery[]> {
    return this.pushes.claimDeliveries(replica, limit, leaseMs);
  }
  lead(role: string, replica: string, leaseMs: number): Promise<boolean> {
    return this.cluster.lead(role, replica, leaseMs);
  }

  /** Waits for saves and lookups in flight, then closes the pool. */
  async close(): Promise<void> {
    await this.saves.settled();
    await this.log.settled();
    await this.db.close();
  }
}
