// Checkpoints of the SQLite task store's WAL on a thread of their own. SQLite checkpoints on the
// committing connection: every ~1,000 pages a commit also copies the WAL into the database file
// and syncs both, holding up the event loop for milliseconds each time. Under load the store
// counts what it writes and asks this thread, with its own connection, for a PASSIVE checkpoint
// (the same work and the same syncs, durability unchanged) instead; the main connection then
// copies only what was committed meanwhile, so that the next commit can restart the WAL.

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The thread: opens the database and checkpoints when asked. Run with `eval`, which reads the
 * code as CommonJS or as an ES module depending on the main program, so it uses neither
 * `require` nor `import` statements: only `import()`, which both have.
 */
const THREAD = `
(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  let db;
  if (workerData.driver === 'node:sqlite') {
    const { DatabaseSync } = await import('node:sqlite');
    const connection = new DatabaseSync(workerData.path);
    db = { pragma: (source) => connection.exec('PRAGMA ' + source), close: () => connection.close() };
  } else {
    const { createRequire } = await import('node:module');
    const Driver = createRequire(workerData.driver)(workerData.driver);
    db = new Driver(workerData.path, { fileMustExist: true });
  }
  db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
  db.pragma('synchronous = NORMAL');
  parentPort.on('message', (message) => {
    if (message === 'close') {
      db.close();
      parentPort.close();
      return;
    }
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage(null);
    } catch (error) {
      parentPort.postMessage(String((error && error.message) || error));
    }
  });
})();
`;

export interface CheckpointerOptions {
  path: string;
  /** The driver the thread opens its connection with: a module path, or `node:sqlite` (default: better-sqlite3). */
  driver?: string | undefined;
  busyTimeoutMs: number;
  /** Pages (estimated) written to the WAL between checkpoints. */
  afterPages: number;
  /** A checkpoint finished: the main connection catches up with what came meanwhile. */
  onCheckpoint(): void;
  /** The thread failed or could not start: the main connection checkpoints on its own again. */
  onFailure(): void;
}

export class Checkpointer {
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private pages = 0;
  private busy = false;
  private stopped = false;
  /** Checkpoints the thread has made (for tests). */
  done = 0;

  constructor(private readonly options: CheckpointerOptions) {}

  /** Counts pages written to the WAL, and starts a checkpoint once enough have piled up. */
  wrote(pages: number): void {
    if (this.stopped) return;
    this.pages += pages;
    if (this.busy || this.pages < this.options.afterPages) return;
    this.pages = 0;
    this.busy = true;
    (this.worker ?? this.start())?.postMessage('checkpoint');
  }

  /** Lets a checkpoint in progress finish, then ends the thread. */
  async close(): Promise<void> {
    this.stopped = true;
    // Held now: a program that awaits this close must not end before the thread has closed.
    this.worker?.ref();
    this.worker?.postMessage('close');
    await this.exited;
  }

  private start(): Worker | undefined {
    let worker: Worker;
    try {
      const driver = this.options.driver ?? createRequire(import.meta.url).resolve('better-sqlite3');
      worker = new Worker(THREAD, { eval: true, workerData: { path: this.options.path, driver, busyTimeoutMs: this.options.busyTimeoutMs } });
    } catch {
      this.fail();
      return undefined;
    }
    this.worker = worker;
    // A server that is otherwise done must not stay up for this thread.
    worker.unref();
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (failure: string | null) => {
      this.busy = false;
      if (failure !== null) return this.fail();
      this.done += 1;
      if (!this.stopped) this.options.onCheckpoint();
    });
    worker.once('error', () => this.fail());
    worker.once('exit', () => {
      if (!this.stopped) this.fail();
    });
    return worker;
  }

  private fail(): void {
    if (this.stopped) return;
    this.stopped = true;
    void this.worker?.terminate();
    this.options.onFailure();
  }
}
