// The SQLite TaskStore, PushStore and RetentionStore, the default store of `a2a-lite serve`: tasks,
// push configs and the push outbox in one file in WAL mode (open.ts opens it, schema.ts shapes it,
// listing.ts lists, retention.ts deletes). Saves made in one turn of the event loop share one
// commit; the WAL is checkpointed on a thread of its own.

import { INITIAL_STATE, WIRE_STATES, isTerminal, type TaskState } from '../../protocol/states.js';
import type { PushConfig } from '../../model/push-config.js';
import type { RetentionRules } from '../../model/retention.js';
import type { Task, TaskChange, TaskMessage } from '../../model/task.js';
import type { NewDelivery, PendingDelivery, PushStore } from '../push-store.js';
import { Checkpointer } from './checkpointer.js';
import type { Driver, DriverName, SqliteDatabase, SqliteStatement } from './driver.js';
import { SqliteListing } from './listing.js';
import { BUSY_TIMEOUT_MS, openDatabase, storeError } from './open.js';
import { SqlitePushStore } from './push-store.js';
import { SqliteRetention } from './retention.js';
import { key, ownerKey, rowOf, walPagesOf, type Row } from './rows.js';
import { addLogRows, SqliteTaskLog, type LogRows } from './task-log.js';
import type { IdempotentAnswer, SaveExtras } from '../task-log.js';
import type { RetentionStore } from '../retention-store.js';
import { failInterrupted, statusChange, type TaskPage, type TaskQuery, type TaskStore, type TaskStoreOptions } from '../task-store.js';

type Database = SqliteDatabase;
type Statement = SqliteStatement;

/** WAL pages (estimated) written between checkpoints made by the checkpointer thread. */
const CHECKPOINT_AFTER_PAGES = 4_500;
/** SQLite's own checkpoint interval, in pages: what the main connection uses on its own. */
const DEFAULT_AUTOCHECKPOINT = 1_000;
/**
 * The main connection's interval while the checkpointer thread does the work: only reached if
 * the thread falls far behind.
 */
const FALLBACK_AUTOCHECKPOINT = 20_000;

export interface SqliteTaskStoreOptions extends TaskStoreOptions {
  /** @internal WAL pages between checkpoints on the checkpointer thread (tests make it small). */
  checkpointAfterPages?: number;
}

const TERMINAL_STATES = ([INITIAL_STATE, ...WIRE_STATES] as readonly TaskState[]).filter(isTerminal);

/**
 * Opens (creating if needed) the SQLite task store at `path`, with its parent folders.
 * Throws IO_ERROR when no SQLite driver loads (see driver.ts) or the file cannot be opened, and
 * LEDGER_CORRUPT when the file is not a task store this version can read.
 *
 * @example
 * const store = await openSqliteTaskStore(join(home, 'tasks.db'));
 * await store.recoverInterrupted('the agent restarted while this task was running');
 */
export async function openSqliteTaskStore(path: string, options: SqliteTaskStoreOptions = {}): Promise<SqliteTaskStore> {
  const { db, driver } = await openDatabase(path);
  try {
    return new SqliteTaskStore(db, path, options.now ?? (() => new Date()), options.checkpointAfterPages ?? CHECKPOINT_AFTER_PAGES, driver);
  } catch (err) {
    db.close();
    throw storeError(err, path, 'be opened');
  }
}

/** Tasks and push configs in a SQLite file; they survive restarts. Open one with `openSqliteTaskStore`. */
export class SqliteTaskStore implements TaskStore, PushStore, RetentionStore {
  private readonly upsert: Statement;
  private readonly selectOne: Statement;
  private readonly selectOwned: Statement;
  private readonly selectUnfinished: Statement;
  /** Push configs and the outbox, in the same file. */
  private readonly pushes: SqlitePushStore;
  /** Each task's events and the idempotency keys, in the same file. */
  private readonly log: SqliteTaskLog;
  private readonly listing: SqliteListing;
  /** Counting and deleting tasks, and the retention rules remembered in the file. */
  private readonly retention: SqliteRetention;

  /** Checkpoints the WAL off the event loop once writes pile up; none for a file in memory. */
  private readonly checkpointer: Checkpointer | undefined;
  /** Which SQLite driver the store runs on. */
  readonly driver: DriverName;

  /** @internal Use `openSqliteTaskStore`, which configures and migrates `db` first. */
  constructor(
    private readonly db: Database,
    private readonly path: string,
    private readonly now: () => Date,
    checkpointAfterPages = CHECKPOINT_AFTER_PAGES,
    driver?: Driver,
  ) {
    this.driver = driver?.name ?? 'better-sqlite3';
    this.upsert = db.prepare(
      // Positional parameters (see `Row`): binding them is cheaper than binding by name.
      `INSERT INTO tasks (id, context_id, state, status_timestamp, json, owner, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
         status_timestamp = excluded.status_timestamp, json = excluded.json`,
    );
    this.selectOne = db.prepare('SELECT json FROM tasks WHERE id = ?').pluck();
    this.selectOwned = db.prepare('SELECT json FROM tasks WHERE id = ? AND owner = ?').pluck();
    this.selectUnfinished = db
      // By id: the order newestFirst gives them once they all share the recovery timestamp.
      .prepare(`SELECT json FROM tasks WHERE state NOT IN (${TERMINAL_STATES.map(() => '?').join(', ')}) ORDER BY id`)
      .pluck();
    this.pushes = new SqlitePushStore(db, (doing, run) => this.guard(doing, run));
    this.log = new SqliteTaskLog(db);
    this.listing = new SqliteListing(db);
    this.retention = new SqliteRetention(db, (doing, run) => this.guard(doing, run), () => this.settled(), (pages) => this.checkpointer?.wrote(pages));
    if (db.memory) return;
    let raised = false;
    this.checkpointer = new Checkpointer({
      path,
      driver: driver?.module,
      busyTimeoutMs: BUSY_TIMEOUT_MS,
      afterPages: checkpointAfterPages,
      onCheckpoint: () => {
        if (!this.db.open) return;
        // The thread works: the main connection need not checkpoint itself any more.
        if (!raised) this.db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT}`);
        raised = true;
        // What was committed while the thread worked: a few commits' worth, copied here so
        // that the WAL is wholly in the database file and the next commit starts it over.
        // Nothing writes meanwhile on this thread, which the checkpointer cannot count on.
        this.catchUp();
      },
      onFailure: () => {
        if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
      },
    });
  }

  /**
   * Snapshots the task now; saves made in the same turn of the event loop are committed
   * together in one transaction (a group commit), and each promise settles after that commit.
   * A busy server thus pays one commit per batch instead of one per change.
   */
  save(task: Task, owner?: string, extras?: SaveExtras): Promise<void> {
    // A task saved twice in one turn is written once, with the owner of its first save.
    const earlier = this.pending.get(task.id);
    this.pending.set(task.id, rowOf(task, earlier === undefined ? ownerKey(owner) : earlier[5]));
    if (extras !== undefined && (extras.events?.length || extras.idempotency)) this.pendingLog.set(task.id, addLogRows(this.pendingLog.get(task.id), extras, owner));
    this.committing ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        const rows = [...this.pending.values()];
        const logs = [...this.pendingLog.entries()];
        this.pending.clear();
        this.pendingLog.clear();
        this.committing = undefined;
        try {
          // One clock reading per batch: created_at is the time of the commit that made the row.
          this.guard('save tasks', () => this.writeAll(rows, logs, this.now().toISOString()));
          resolve();
          this.checkpointer?.wrote(walPagesOf(rows));
        } catch (error) {
          reject(error);
        }
      });
    });
    return this.committing;
  }

  async get(id: string, owner?: string): Promise<Task | undefined> {
    await this.settled();
    const json = this.guard('read a task', () =>
      (owner === undefined ? this.selectOne.get(key(id)) : this.selectOwned.get(key(id), key(owner))) as string | undefined,
    );
    return json === undefined ? undefined : (JSON.parse(json) as Task);
  }

  async events(taskId: string, after: number): Promise<{ events: TaskChange[]; last: number }> {
    await this.settled();
    // One read transaction: the events and the last number from the same snapshot.
    return this.guard('read task events', () => this.db.transaction(() => this.log.events(taskId, after))());
  }

  async findIdempotent(given: string, owner?: string): Promise<IdempotentAnswer | undefined> {
    // No wait for a commit in flight: a key not yet committed is still held by the agent that
    // is saving it (runtime/idempotency.ts), which answers for it until the commit is done.
    return this.guard('read an idempotency key', () => this.log.find(given, owner));
  }

  async saveIdempotentAnswer(given: string, owner: string | undefined, answer: { fingerprint: string; message?: TaskMessage; createdAt: string }): Promise<void> {
    this.guard('save an idempotency key', () => this.log.answer(given, owner, answer));
  }

  /** Filters and orders in SQL; the page token is the memory store's, a keyset cursor. */
  async list(query: TaskQuery = {}): Promise<TaskPage> {
    await this.settled();
    return this.guard('list tasks', () => this.listing.page(query));
  }


  async recoverInterrupted(reason: string): Promise<Task[]> {
    const timestamp = this.now().toISOString();
    return this.guard('recover interrupted tasks', () =>
      this.db
        .transaction(() => {
          const unfinished = this.selectUnfinished.all(...TERMINAL_STATES) as string[];
          const failed = unfinished.map((json) => failInterrupted(JSON.parse(json) as Task, reason, timestamp));
          // The rows exist: the upsert keeps their owners.
          for (const task of failed) {
            this.write(task, timestamp);
            this.log.write(key(task.id), { events: [statusChange(task, this.log.last(task.id) + 1)] }, timestamp);
          }
          return failed;
        })
        .immediate(),
    );
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

  async close(): Promise<void> {
    await this.settled();
    await this.checkpointer?.close();
    this.db.close();
  }

  /** @internal Checkpoints made on the checkpointer thread so far (for tests). */
  get backgroundCheckpoints(): number {
    return this.checkpointer?.done ?? 0;
  }

  private catchUp(): void {
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // As SQLite's own checkpoints after a commit: a failure here loses nothing, and the
      // next one tries again.
    }
  }

  private write(task: Task, createdAt: string): void {
    this.upsert.run(...rowOf(task, null), createdAt);
  }

  /** Saves queued in this turn, keyed by id: a task saved twice keeps only its newest row. */
  private readonly pending = new Map<string, Row>();
  /** What saves queued in this turn add to the log, by task id. */
  private readonly pendingLog = new Map<string, LogRows>();
  private committing: Promise<void> | undefined;
  private writeAllRows: ((rows: Row[], logs: [string, LogRows][], createdAt: string) => void) | undefined;

  /** Reads wait for a batch in flight, so a reader sees every save made before it. */
  private async settled(): Promise<void> {
    if (this.committing !== undefined) await this.committing.catch(() => {});
  }

  private writeAll(rows: Row[], logs: [string, LogRows][], createdAt: string): void {
    this.writeAllRows ??= this.db.transaction((batch: Row[], added: [string, LogRows][], at: string) => {
      for (const row of batch) this.upsert.run(...row, at);
      for (const [id, log] of added) this.log.write(key(id), log, at);
    });
    this.writeAllRows(rows, logs, createdAt);
  }


  private guard<T>(doing: string, run: () => T): T {
    try {
      return run();
    } catch (err) {
      throw storeError(err, this.path, doing);
    }
  }
}
