// Group commit for the PostgreSQL store: saves made in one turn of the event loop, and those made
// while the previous batch is on its way, go to the database together as one statement (one
// round trip, one commit). One batch is in flight at a time, so a task's saves land in order.
//
//   save ─► pending ─► (end of turn, no batch in flight) ─► writeBatch ─► settle every save in it
//                 ▲                                              │
//                 └──────── saves made meanwhile wait ◄──────────┘

import type { Task } from '../../model/task.js';
import type { SaveExtras } from '../task-log.js';
import type { PgDatabase, Statement } from './connection.js';
import { addLogRows, ownerKey, rowOf, writeBatch, type LogRows, type TaskRow } from './writes.js';

interface Batch {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // Each save's caller handles the failure; this copy must not count as unhandled.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

export class SaveQueue {
  /** Saves waiting for the next batch, keyed by id: a task saved twice keeps only its newest row. */
  private readonly rows = new Map<string, TaskRow>();
  /** What those saves add to the log, by task id. */
  private readonly logs = new Map<string, LogRows>();
  /** The batch the next save joins; settles after the batch in flight. */
  private next: Batch | undefined;
  private inFlight: Promise<void> | undefined;
  private scheduled = false;

  constructor(
    private readonly db: PgDatabase,
    private readonly statement: Statement,
    private readonly now: () => Date,
  ) {}

  /** Snapshots the task now; settles once the batch holding it is committed. */
  save(task: Task, owner?: string, extras?: SaveExtras): Promise<void> {
    const earlier = this.rows.get(task.id);
    let row: TaskRow;
    try {
      // A task saved twice in one batch is written once, with the owner of its first save.
      row = rowOf(task, earlier === undefined ? ownerKey(owner) : earlier.owner, earlier === undefined ? (extras?.runner ?? null) : earlier.runner);
    } catch (error) {
      // An id or runner the store cannot keep fails this save alone, not the batch.
      return Promise.reject(error);
    }
    this.rows.set(task.id, row);
    if (extras !== undefined && (extras.events?.length || extras.idempotency)) this.logs.set(task.id, addLogRows(this.logs.get(task.id), extras, owner));
    this.next ??= newBatch();
    this.schedule();
    return this.next.promise;
  }

  /** Resolves once every save made so far is committed or has failed. */
  async settled(): Promise<void> {
    await (this.next?.promise ?? this.inFlight)?.catch(() => {});
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight !== undefined) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const batch = this.next;
    if (batch === undefined) return;
    const rows = [...this.rows.values()];
    const logs = [...this.logs].map(([id, log]) => [rowsKey(this.rows, id), log] as const);
    this.rows.clear();
    this.logs.clear();
    this.next = undefined;
    // One clock reading per batch: created_at is the time of the batch that made the row.
    this.inFlight = writeBatch((statement, values) => this.db.query('save tasks', statement, values), this.statement, rows, logs, this.now().toISOString()).then(
      () => this.done(batch, undefined),
      (error: unknown) => this.done(batch, error ?? new Error('save failed')),
    );
  }

  private done(batch: Batch, error: unknown): void {
    this.inFlight = undefined;
    if (error === undefined) batch.resolve();
    else batch.reject(error);
    if (this.next !== undefined) this.schedule();
  }
}

/** The id column of the task `id` in this batch (its row is always there: a log comes with a save). */
function rowsKey(rows: Map<string, TaskRow>, id: string): Buffer {
  return rows.get(id)!.id;
}
