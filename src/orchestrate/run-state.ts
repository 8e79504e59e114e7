// A plan run's state on disk, written as it goes so that a run killed at any moment can be
// resumed: <home>/runs/<run id>/run.json (the plan, its inputs, the context id, how it stands)
// and steps/<key>.json, one per subtask, each replaced atomically. A subtask's record says
// "sending" with its message id BEFORE the message goes out, and "running" with the task id as
// soon as the agent names one; resume.ts reads these to send nothing twice.

import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LiteError, isLiteError } from '../errors.js';
import { readJsonFile, replaceFileSoon, writeFileAtomic } from '../home/atomic-file.js';
import { redactCredentials } from '../secrets.js';
import type { Plan, StepEnd } from './plan.js';

/** How a whole run stands. */
export type RunState = 'running' | 'completed' | 'failed' | 'cancelled';

/** Where one subtask stands: not yet sent, being sent, followed at its agent, or ended. */
export type SubtaskState = 'waiting' | 'sending' | 'running' | StepEnd;

export interface SavedFileRef {
  name: string;
  path?: string;
  url?: string;
}

/** One subtask: a step, or one item of a fan-out step (`key` is `id` or `id.N`). */
export interface SubtaskRecord {
  key: string;
  step: string;
  index?: number;
  state: SubtaskState;
  /** Attempts made so far (1 for the first send); `fallback` once the fallback target is used. */
  attempt: number;
  fallback?: boolean;
  /** The message id of the current attempt, also its Idempotency-Key. */
  messageId?: string;
  agent?: string;
  taskId?: string;
  /** Every task this subtask made, across attempts, oldest first. */
  tasks: string[];
  /** For a fan-out step: the items it runs over, fixed when it starts so that a resume runs the same. */
  items?: unknown[];
  progress?: number;
  text?: string;
  data?: unknown;
  files?: SavedFileRef[];
  error?: string;
  startedAt?: string;
  endedAt?: string;
}

export interface RunRecord {
  version: 1;
  id: string;
  name: string;
  /** Where the plan was read from, when it was a file. */
  source?: string;
  /** The folder local attachments are read from (and must lie inside). */
  root: string;
  plan: Plan;
  inputs: Record<string, string>;
  contextId: string;
  maxParallel: number;
  state: RunState;
  createdAt: string;
  updatedAt: string;
  /** The process running it, so that `runs list` can tell a live run from one left behind. */
  pid?: number;
  output?: { text: string; files: SavedFileRef[] };
  error?: string;
}

/** The runs kept in one home. */
export class RunStore {
  /** The last write of each subtask file still going: the next waits for it, so they land in order. */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(readonly dir: string) {}

  /** A new run id: its start time (sortable), then random letters. */
  static newId(now = new Date()): string {
    const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '').replace('T', '-');
    return `${stamp}-${Math.random().toString(36).slice(2, 8).padEnd(6, '0')}`;
  }

  folder(id: string): string {
    if (!/^[0-9]{8}-[0-9]{6}-[a-z0-9]{6}$/.test(id)) throw new LiteError('RUN_NOT_FOUND', `no run ${JSON.stringify(id.slice(0, 40))}: a run id looks like 20260101-120000-abc123 (a2a-lite runs list)`, { run: id.slice(0, 40) });
    return join(this.dir, id);
  }

  saveRun(run: RunRecord): void {
    run.updatedAt = new Date().toISOString();
    writeFileAtomic(join(this.folder(run.id), 'run.json'), `${JSON.stringify(run, redacted, 2)}\n`);
  }

  /**
   * Saves the subtask as it stands now; resolves once the file is replaced. Writes of one subtask
   * land in the order they were asked for, and many subtasks write at once without blocking the
   * run. Not flushed to disk: a killed process leaves each file whole (the rename is atomic); a
   * power cut may lose the newest write, which the send's Idempotency-Key covers.
   */
  saveSubtask(runId: string, record: SubtaskRecord): Promise<void> {
    const path = join(this.folder(runId), 'steps', `${record.key}.json`);
    const text = `${JSON.stringify(record, redacted)}\n`;
    const written = (this.writes.get(path) ?? Promise.resolve()).then(() => replaceFileSoon(path, text));
    const settled = written.catch(() => undefined);
    this.writes.set(path, settled);
    void settled.then(() => {
      if (this.writes.get(path) === settled) this.writes.delete(path);
    });
    return written;
  }

  /** Resolves once every subtask write asked for so far has landed. */
  async flush(): Promise<void> {
    await Promise.all([...this.writes.values()]);
  }

  /** The run with its subtasks; RUN_NOT_FOUND when there is none. */
  load(id: string): { run: RunRecord; subtasks: Map<string, SubtaskRecord> } {
    const folder = this.folder(id);
    const run = readJsonFile(join(folder, 'run.json')) as RunRecord | undefined;
    if (run === undefined || typeof run !== 'object' || run.version !== 1) throw new LiteError('RUN_NOT_FOUND', `no run ${id} in ${this.dir} (a2a-lite runs list)`, { run: id });
    const subtasks = new Map<string, SubtaskRecord>();
    for (const name of listFiles(join(folder, 'steps'))) {
      if (!name.endsWith('.json')) continue;
      const record = readJsonFile(join(folder, 'steps', name)) as SubtaskRecord | undefined;
      if (record !== undefined && typeof record.key === 'string') subtasks.set(record.key, record);
    }
    return { run, subtasks };
  }

  /** Every run, newest first; a run whose files cannot be read is left out. */
  list(): RunRecord[] {
    const runs: RunRecord[] = [];
    for (const name of listFiles(this.dir).sort().reverse()) {
      try {
        runs.push(this.load(name).run);
      } catch (error) {
        if (!isLiteError(error)) throw error;
      }
    }
    return runs;
  }

  create(run: RunRecord): void {
    mkdirSync(join(this.folder(run.id), 'steps'), { recursive: true });
    this.saveRun(run);
  }
}

/**
 * Every text saved with credential shapes blanked out: an agent's answer may carry a token, and
 * the run's files must not (the answer itself is kept in memory for the steps after it).
 */
function redacted(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? redactCredentials(value) : value;
}

function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** True when the process `pid` is alive (a run it holds is not to be resumed from elsewhere). */
export function isAlive(pid: number | undefined): boolean {
  if (pid === undefined || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
