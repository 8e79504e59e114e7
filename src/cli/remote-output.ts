// Showing a remote task's events to the user as A2A-Lite text (or JSON lines with --json),
// recording each in the ledger, saving returned files, and turning the outcome into an exit
// code. Shared by `send` and `tasks get|cancel`.

import { join } from 'node:path';
import { fileParts, saveFiles, type SavedFile } from '../client/downloads.js';
import { liteAnswerOf, liteStateOf } from '../lite/answer.js';
import { liteState, resultMessage, statusMessage } from '../lite/task-text.js';
import { LiteError } from '../errors.js';
import { format } from '../protocol/format.js';
import { isSettled, isTerminal, type TaskState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import { textOf, type Task, type TaskEvent } from '../model/task.js';
import type { Context } from './context.js';
import { note, printLine } from './output.js';
import type { Stores } from './stores.js';

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
  /** Set once the ledger refused something, so the note is given once. */
  private ledgerTrouble = false;
  private printed = 0;
  /** The state the agent's own A2A-Lite header gave the task, which its A2A state may hide. */
  private liteState: TaskState | undefined;
  files: SavedFile[] = [];

  constructor(
    private readonly context: Context,
    private readonly stores: Stores,
    private readonly peer: string,
    private readonly json: boolean,
  ) {}

  /**
   * Shows one event (`task` is the task as the events so far describe it) and records it in the
   * ledger as the A2A-Lite message it amounts to, whether shown as text or as JSON.
   */
  show(event: TaskEvent, task: Task | undefined): void {
    if (this.json) this.jsonLine(event);
    if (task === undefined) {
      if (event.kind === 'message' && !this.json) this.print({ type: 'plain', params: {}, body: messageText(event), attachments: [] });
      return;
    }
    if (event.kind === 'artifact') return; // shown with the result
    let message: Message;
    const answer = event.kind === 'message' ? undefined : liteAnswerOf(task, event);
    if (event.kind !== 'message') this.liteState = answer === undefined ? undefined : liteStateOf(answer);
    if (answer !== undefined) {
      if (isTerminal(task.status.state)) this.saveFiles(task);
      message = answer;
    } else if ((event.kind === 'status' || event.kind === 'task') && isTerminal(task.status.state)) {
      this.saveFiles(task);
      message = resultMessage(task.id, task.status, task.artifacts, this.files.map((f) => f.name));
    } else {
      const status = event.kind === 'status' ? event.status : task.status;
      message = statusMessage(task.id, status, event.kind === 'message' ? textOf(event.message) : undefined);
    }
    if (!this.json) this.print(message);
    this.record(message);
  }

  /** Prints the final JSON line of a `--json` run. */
  finish(task: Task | undefined): void {
    if (!this.json) return;
    this.context.stdout.write(
      `${JSON.stringify({ outcome: task ? liteState(this.stateOf(task)) : 'message', task: task?.id ?? null, contextId: task?.contextId ?? null, peer: this.peer, files: this.files })}\n`,
    );
  }

  /** The exit code for how the task was left, with a hint on stderr for the states that need one. */
  exitCode(task: Task | undefined): number {
    if (task === undefined) return 0;
    const state = this.stateOf(task);
    if (!this.json && state === 'input-required') note(this.context, `the agent asks for input; answer with: a2a-lite send --reply TEXT --task ${task.id}`);
    if (!this.json && state === 'auth-required') note(this.context, `the agent needs credentials for task ${task.id}; see its instructions above`);
    if (!this.json && !isSettled(state)) note(this.context, `task ${task.id} is still ${state}; follow it with: a2a-lite tasks get ${task.id}`);
    return OUTCOME_EXIT[state];
  }

  /** Where the task stands: as its agent's lite header says, else as A2A says. */
  stateOf(task: Task): TaskState {
    return this.liteState ?? task.status.state;
  }

  private print(message: Message): void {
    if (this.printed > 0) printLine(this.context);
    this.printed += 1;
    printLine(this.context, format(message));
  }

  /** Records a message from the agent in the ledger; a refusal is noted, never fatal. */
  record(message: Message, direction: 'in' | 'out' = 'in'): void {
    try {
      this.stores.tasks.record(message, { direction, peer: this.peer });
    } catch (error) {
      if (this.ledgerTrouble) return;
      this.ledgerTrouble = true;
      note(this.context, `the ledger did not take [A2A:${message.type}] for task ${message.params.task ?? message.params.id}: ${error instanceof LiteError ? error.message : String(error)}`);
    }
  }

  private saveFiles(task: Task): void {
    if (this.files.length > 0) return;
    const parts = fileParts(task.artifacts);
    if (parts.length === 0) return;
    this.files = saveFiles(join(this.stores.home.dir, 'downloads'), task.id, parts);
    if (this.json) return;
    for (const file of this.files) {
      if (file.path !== undefined) note(this.context, `saved ${file.name} to ${file.path}`);
      else if (file.url !== undefined) note(this.context, `${file.name} is at ${file.url} (not downloaded)`);
    }
  }

  private jsonLine(event: TaskEvent): void {
    // File bytes stay out of the lines: the files are saved and listed at the end.
    this.context.stdout.write(`${JSON.stringify(event, (key, value: unknown) => (key === 'bytes' && typeof value === 'string' ? `<${Math.floor((value.length * 3) / 4)} bytes>` : value))}\n`);
  }
}

function messageText(event: Extract<TaskEvent, { kind: 'message' }>): string {
  return event.message.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n\n');
}
