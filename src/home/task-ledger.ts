// The CLI's task ledger: plain JSON files, safe for many processes at once, no native module.
//
//   <home>/tasks/<peer>/<task id>/v00000001.json   one file per message: the task's summary
//                                 v00000002.json   after it, and that message's history entry
//   <home>/tasks/.claims/<task id>/                ids this agent allocated
//
// A writer reads the newest version N, computes the next summary, and publishes N+1 with
// link(2), which fails if N+1 already exists. On that failure another process won the race:
// re-read and apply again. Nothing is locked, so a killed process blocks nobody, and a
// version appears whole or not at all. Storage grows with the messages, not their square.
// Names are percent-encoded (file-names.ts).

import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LiteError } from '../errors.js';
import type { TaskState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import { createFileAtomic, ioError, readJsonFile, safeUnlink } from './atomic-file.js';
import { decodeName, encodeName } from './file-names.js';
import { applyMessage, taskIdOf, type Applied, type Direction, type HistoryEntry, type TaskRecord, type TaskSummary } from './task-record.js';

const VERSION_FILE = /^v(\d{8})\.json$/;
const MAX_ATTEMPTS = 500;
const STALE_TEMP_MS = 60 * 60 * 1000;

export interface RecordOptions {
  /** `in` for a message received from `peer`, `out` for one sent to `peer`. */
  direction?: Direction;
  peer?: string;
  at?: string;
}

export interface ListFilter {
  state?: TaskState;
  peer?: string;
}

export class FileTaskLedger {
  readonly dir: string;
  private readonly now: () => Date;
  private readonly durable: boolean;
  /**
   * The newest version this ledger wrote of each task folder, so that its next event tries N+1
   * without reading N back; link(2) still refuses N+1 if another process wrote it meanwhile,
   * and the write then reads as usual. Only the latest few hundred tasks are remembered.
   */
  private readonly written = new Map<string, { version: number; summary: TaskSummary }>();

  /** `durable: false`: versions are not flushed to disk one by one (see WriteOptions). */
  constructor(dir: string, options: { now?: () => Date; durable?: boolean } = {}) {
    this.dir = dir;
    this.now = options.now ?? (() => new Date());
    this.durable = options.durable ?? true;
  }

  /**
   * Records a protocol message about a task and returns what changed. For a new task the
   * peer and direction are required; for later messages they are found from the task id.
   */
  record(message: Message, options: RecordOptions = {}): Applied {
    const id = taskIdOf(message);
    if (id === undefined) throw new LiteError('INVALID_MESSAGE', `a ${message.type} message names no task`);
    const at = options.at ?? this.now().toISOString();
    const peer = options.peer ?? this.findPeer(id, message.type);
    const direction = options.direction ?? inferDirection(this.latest(peer, id)?.summary, message);
    return this.update(peer, id, (current) => applyMessage(current, message, { direction, peer, at }));
  }

  /**
   * Allocates a readable id `<prefix>-NNN` unique in this ledger (`research-001`, …) and
   * reserves it, so concurrent processes never hand out the same id.
   */
  allocateId(prefix: string): string {
    const base = prefix.replace(/[^\p{L}\p{N}_.:-]+/gu, '-').replace(/^[^\p{L}\p{N}]+/u, '').slice(0, 100) || 'task';
    const pattern = new RegExp(`^${escapeRegExp(base)}-(\\d+)$`);
    let next = 1;
    for (const id of this.allIds()) {
      const match = pattern.exec(id);
      if (match) next = Math.max(next, Number(match[1]) + 1);
    }
    const claims = join(this.dir, '.claims');
    makeDir(claims);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1, next += 1) {
      const id = `${base}-${String(next).padStart(3, '0')}`;
      try {
        mkdirSync(join(claims, encodeName(id)));
        return id;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('write', join(claims, encodeName(id)), error);
      }
    }
    throw new LiteError('LEDGER_BUSY', `could not reserve a new id with prefix "${base}"`);
  }

  /** True when the ledger holds a task with this id and peer. */
  has(id: string, peer: string): boolean {
    return versionsIn(this.folder(peer, id)).length > 0;
  }

  /** The task with this id and its whole history; `peer` is needed only when several peers used the id. */
  get(id: string, peer?: string): TaskRecord {
    const owner = peer ?? this.findPeer(id, 'show');
    const folder = this.folder(owner, id);
    const versions = versionsIn(folder);
    if (versions.length === 0) throw new LiteError('TASK_NOT_FOUND', `no task "${id}" with ${owner} in the ledger`, { task: id });
    const history: HistoryEntry[] = [];
    let summary: TaskSummary | undefined;
    for (const version of versions) {
      const stored = readVersion(folder, version);
      history.push(stored.entry);
      summary = stored.summary;
    }
    return { ...(summary as TaskSummary), history };
  }

  /** Every task's summary, most recently changed first, optionally only one state or peer. */
  list(filter: ListFilter = {}): TaskSummary[] {
    const summaries: TaskSummary[] = [];
    for (const peer of this.peers()) {
      if (filter.peer !== undefined && peer !== filter.peer) continue;
      for (const id of this.idsOf(peer)) {
        const found = this.latest(peer, id);
        if (found === undefined) continue;
        if (filter.state !== undefined && found.summary.state !== filter.state) continue;
        summaries.push(found.summary);
      }
    }
    return summaries.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  }

  /** Reads, applies `change`, and publishes the next version; retries when another writer won. */
  private update(peer: string, id: string, change: (current: TaskSummary | undefined) => Applied): Applied {
    const folder = this.folder(peer, id);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const mine = attempt === 0 ? this.written.get(folder) : undefined;
      const current = mine === undefined ? this.latest(peer, id) : { version: mine.version, summary: structuredClone(mine.summary) };
      const applied = change(current?.summary);
      if (applied.entry === undefined) return applied;
      const version = (current?.version ?? 0) + 1;
      // A task with a version has its folder already (one mkdir less per event of a busy run).
      if (current === undefined) makeDir(folder);
      const stored: StoredVersion = { summary: applied.summary, entry: applied.entry };
      const text = `${JSON.stringify(stored)}\n`;
      if (createFileAtomic(join(folder, versionFile(version)), text, { durable: this.durable })) {
        this.remember(folder, version, (JSON.parse(text) as StoredVersion).summary);
        if (version === 1 || version % 64 === 0) this.sweepTemps(folder);
        return applied;
      }
      this.written.delete(folder);
      // Another process wrote since this one did: read and try again at once, no race to back off from.
      if (mine === undefined) backoff(attempt);
    }
    throw new LiteError('LEDGER_BUSY', `task "${id}" kept changing under us; try again`, { task: id });
  }

  private remember(folder: string, version: number, summary: TaskSummary): void {
    this.written.delete(folder);
    this.written.set(folder, { version, summary });
    if (this.written.size > 256) this.written.delete(this.written.keys().next().value as string);
  }

  private latest(peer: string, id: string): { version: number; summary: TaskSummary } | undefined {
    const folder = this.folder(peer, id);
    const versions = versionsIn(folder);
    const version = versions.at(-1);
    if (version === undefined) return undefined;
    return { version, summary: readVersion(folder, version).summary };
  }

  /** Which peer a task id belongs to; fails when none or several do. */
  private findPeer(id: string, purpose: string): string {
    const owners = this.peers().filter((peer) => versionsIn(this.folder(peer, id)).length > 0);
    if (owners.length === 1) return owners[0] as string;
    if (owners.length === 0) {
      const hint = purpose === 'task' ? '; say who it is from or for with --from or --to' : '';
      throw new LiteError(purpose === 'task' ? 'PEER_REQUIRED' : 'TASK_NOT_FOUND', `no task "${id}" in the ledger${hint}`, { task: id });
    }
    throw new LiteError('TASK_AMBIGUOUS', `task id "${id}" is used with ${owners.join(', ')}; name one with --peer (or --from/--to)`, {
      task: id,
      peers: owners,
    });
  }

  private folder(peer: string, id: string): string {
    return join(this.dir, encodeName(peer), encodeName(id));
  }

  private peers(): string[] {
    return ownNames(listDir(this.dir));
  }

  private idsOf(peer: string): string[] {
    return ownNames(listDir(join(this.dir, encodeName(peer))));
  }

  private allIds(): string[] {
    const claimed = ownNames(listDir(join(this.dir, '.claims')));
    return [...claimed, ...this.peers().flatMap((peer) => this.idsOf(peer))];
  }

  /** Removes temporary files left by processes that died mid-write. */
  private sweepTemps(folder: string): void {
    const cutoff = Date.now() - STALE_TEMP_MS;
    for (const name of listDir(folder)) {
      if (!name.startsWith('.tmp-')) continue;
      const path = join(folder, name);
      try {
        if (statSync(path).mtimeMs < cutoff) safeUnlink(path);
      } catch {
        // Swept by someone else.
      }
    }
  }
}

/** One version file: the summary after a message, and that message's history entry. */
interface StoredVersion {
  summary: TaskSummary;
  entry: HistoryEntry;
}

/** Without --from/--to: a worker's messages about our request arrive; our own go out. */
function inferDirection(summary: TaskSummary | undefined, message: Message): Direction {
  if (summary === undefined) {
    throw new LiteError('PEER_REQUIRED', `a new task needs its peer: record it with --from PEER (received) or --to PEER (sent)`);
  }
  if (message.type === 'ack') return 'in';
  const fromWorker = message.type === 'status' || message.type === 'result';
  return (summary.role === 'worker') === fromWorker ? 'out' : 'in';
}

/** The version numbers present in a task folder, in order. */
function versionsIn(folder: string): number[] {
  const versions: number[] = [];
  for (const name of listDir(folder)) {
    const match = VERSION_FILE.exec(name);
    if (match) versions.push(Number(match[1]));
  }
  return versions.sort((a, b) => a - b);
}

function readVersion(folder: string, version: number): StoredVersion {
  const path = join(folder, versionFile(version));
  const stored = readJsonFile(path) as Partial<StoredVersion> | undefined;
  if (typeof stored?.summary?.state !== 'string' || typeof stored.entry?.type !== 'string') {
    throw new LiteError('LEDGER_CORRUPT', `${path} does not hold a task version; move it aside to continue`, { path });
  }
  return stored as StoredVersion;
}

function versionFile(version: number): string {
  return `v${String(version).padStart(8, '0')}.json`;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw ioError('read', dir, error);
  }
}

/** The ids behind folder names this ledger wrote; anything else in the folder is not ours. */
function ownNames(names: readonly string[]): string[] {
  const ids: string[] = [];
  for (const name of names) {
    const id = name.startsWith('.') ? undefined : decodeName(name);
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

function makeDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw ioError('write', dir, error);
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Sleeps a few random milliseconds, growing with the attempt, so racing writers spread out. */
function backoff(attempt: number): void {
  Atomics.wait(sleeper, 0, 0, Math.random() * Math.min(50, 1 + attempt * 2));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

