// Showing a remote task's events to the user as A2A-Lite text (or JSON lines with --json), and
// turning the outcome into an exit code. What the events mean and what goes into the ledger is
// client/remote-record.ts; this is only the printing. Shared by `send` and `tasks get|cancel`.

import type { SavedFile } from '../client/downloads.js';
import type { Taken } from '../client/remote-record.js';
import { liteState } from '../lite/task-text.js';
import { format } from '../protocol/format.js';
import { isSettled, type TaskState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import type { Task, TaskEvent } from '../model/task.js';
import type { Context } from './context.js';
import { note, printLine } from './output.js';

/** Exit codes of `send` and `tasks get|cancel` by the state the task is left in. */
export const OUTCOME_EXIT: Readonly<Record<TaskState, number>> = {
  completed: 0,
  submitted: 0,
  accepted: 0,
  working: 0,
  failed: 10,
  rejected: 11,
  cancelled: 12,
  'input-required': 13,
  'auth-required': 14,
};

export class RemoteOutput {
  private printed = 0;

  constructor(
    private readonly context: Context,
    private readonly json: boolean,
  ) {}

  /** Shows one event: its JSON line with --json, else the lite message it amounts to. */
  show(event: TaskEvent, taken: Taken): void {
    if (this.json) {
      this.jsonLine(event);
      return;
    }
    if (taken.message !== undefined) this.print(taken.message);
    for (const file of taken.saved) {
      if (file.path !== undefined) note(this.context, `saved ${file.name} to ${file.path}`);
      else if (file.url !== undefined) note(this.context, `${file.name} is at ${file.url} (not downloaded)`);
    }
  }

  /** Prints the final JSON line of a `--json` run. */
  finish(peer: string, task: Task | undefined, state: TaskState | undefined, files: readonly SavedFile[]): void {
    if (!this.json) return;
    this.context.stdout.write(
      `${JSON.stringify({ outcome: task && state ? liteState(state) : 'message', task: task?.id ?? null, contextId: task?.contextId ?? null, peer, files })}\n`,
    );
  }

  /** The exit code for how the task was left, with a hint on stderr for the states that need one. */
  exitCode(task: Task | undefined, state: TaskState | undefined): number {
    if (task === undefined || state === undefined) return 0;
    if (!this.json && state === 'input-required') note(this.context, `the agent asks for input; answer with: a2a-lite send --reply TEXT --task ${task.id}`);
    if (!this.json && state === 'auth-required') note(this.context, `the agent needs credentials for task ${task.id}; see its instructions above`);
    if (!this.json && !isSettled(state)) note(this.context, `task ${task.id} is still ${state}; follow it with: a2a-lite tasks get ${task.id}`);
    return OUTCOME_EXIT[state];
  }

  private print(message: Message): void {
    if (this.printed > 0) printLine(this.context);
    this.printed += 1;
    printLine(this.context, format(message));
  }

  private jsonLine(event: TaskEvent): void {
    // File bytes stay out of the lines: the files are saved and listed at the end.
    this.context.stdout.write(`${JSON.stringify(event, (key, value: unknown) => (key === 'bytes' && typeof value === 'string' ? `<${Math.floor((value.length * 3) / 4)} bytes>` : value))}\n`);
  }
}
