// What a remote task's events amount to in A2A-Lite: each event becomes the lite message it
// means (a status line, the result, or the agent's own lite answer), is recorded in the ledger,
// and the files of the result are saved under <home>/downloads/<task>/. `send`, `tasks get` and
// the OpenClaw plugin's tools all go through this one record.

import { join } from 'node:path';
import { LiteError } from '../errors.js';
import type { Stores } from '../home/stores.js';
import { liteAnswerOf, liteStateOf } from '../lite/answer.js';
import { resultMessage, statusMessage, wordsOf } from '../lite/task-text.js';
import type { Task, TaskEvent } from '../model/task.js';
import { isTerminal, type TaskState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import { fileParts, saveFiles, type SavedFile } from './downloads.js';

/** One event as A2A-Lite: the message it amounts to, and any files it brought that were saved now. */
export interface Taken {
  message: Message | undefined;
  saved: SavedFile[];
}

export class RemoteRecord {
  /** Set once the ledger refused something, so the note is given once. */
  private ledgerTrouble = false;
  /** The state the agent's own A2A-Lite header gave the task, which its A2A state may hide. */
  private liteState: TaskState | undefined;
  /** Every lite message the events amounted to, in order. */
  readonly messages: Message[] = [];
  files: SavedFile[] = [];

  constructor(
    private readonly stores: Pick<Stores, 'home' | 'tasks'>,
    readonly peer: string,
    private readonly onNote: (text: string) => void = () => {},
  ) {}

  /**
   * Takes one event (`task` is the task as the events so far describe it): records it in the
   * ledger as the lite message it amounts to and returns that message. A direct message (no
   * task) is returned as plain text and not recorded; an artifact is shown with the result.
   */
  take(event: TaskEvent, task: Task | undefined): Taken {
    if (task === undefined) {
      if (event.kind !== 'message') return { message: undefined, saved: [] };
      const plain: Message = { type: 'plain', params: {}, body: wordsOf(event.message), attachments: [] };
      this.messages.push(plain);
      return { message: plain, saved: [] };
    }
    if (event.kind === 'artifact') return { message: undefined, saved: [] };
    const before = this.files.length;
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
      message = statusMessage(task.id, status, event.kind === 'message' ? wordsOf(event.message) : undefined);
    }
    this.record(message);
    this.messages.push(message);
    return { message, saved: this.files.slice(before) };
  }

  /** Where the task stands: as its agent's lite header says, else as A2A says. */
  stateOf(task: Task): TaskState {
    return this.liteState ?? task.status.state;
  }

  /** Records a message in the ledger; a refusal is noted once, never fatal. */
  record(message: Message, direction: 'in' | 'out' = 'in'): void {
    try {
      this.stores.tasks.record(message, { direction, peer: this.peer });
    } catch (error) {
      if (this.ledgerTrouble) return;
      this.ledgerTrouble = true;
      this.onNote(`the ledger did not take [A2A:${message.type}] for task ${message.params.task ?? message.params.id}: ${error instanceof LiteError ? error.message : String(error)}`);
    }
  }

  private saveFiles(task: Task): void {
    if (this.files.length > 0) return;
    const parts = fileParts(task.artifacts);
    if (parts.length === 0) return;
    this.files = saveFiles(join(this.stores.home.dir, 'downloads'), task.id, parts);
  }
}
