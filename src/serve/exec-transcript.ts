// What an exec program reads on stdin, turn by turn: the conversation as A2A-Lite text, the task
// message first with the header its requester wrote, and the files each message carried saved in
// the task folder under safe names.

import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { safeFileName, UniqueNames } from '../home/safe-names.js';
import { liftTaskHeader } from '../lite/request.js';
import type { Part, TaskMessage } from '../model/task.js';
import type { Message } from '../protocol/types.js';
import type { IncomingTask } from '../runtime/agent.js';

type FilePart = Extract<Part, { kind: 'file' }>;

/** A task as the program sees it: with what a lite header opening its text said. */
export type ExecTask = IncomingTask & { priority?: string; peerTaskId?: string };

/**
 * A peer that speaks A2A-Lite over A2A opens its text with `[A2A:task id=… skill=…]`: its
 * header is read, not passed on escaped inside the body. The skill the request names itself
 * comes first; the program answers about the task id it is given (`$A2A_TASK_ID`), and finds the
 * peer's own in `$A2A_PEER_TASK_ID`.
 */
export function withLiteHeader(task: IncomingTask): ExecTask {
  const lifted = liftTaskHeader(task.text);
  if (lifted === undefined) return task;
  const lite: ExecTask = { ...task, text: lifted.body, peerTaskId: lifted.id };
  const skill = task.skill ?? lifted.skill;
  if (skill !== undefined) lite.skill = skill;
  if (lifted.priority !== undefined) lite.priority = lifted.priority;
  return lite;
}

export function taskMessage(task: ExecTask, saved: string[]): Message {
  const params: Record<string, string> = { id: task.id };
  if (task.skill) params.skill = task.skill;
  if (task.priority) params.priority = task.priority;
  return { type: 'task', params, body: task.text, attachments: saved };
}

/**
 * Saves the files of a message into the task folder under safe names; returns the names. The
 * folder is read once, for the names it already holds (a dangling link the program left is a
 * taken name, not a free one); each file is then written once under a name no file has, and a
 * file the program makes meanwhile is never overwritten (`wx`): its name is passed over.
 */
export function saveFiles(folder: string, message: TaskMessage): string[] {
  const files = message.parts.filter((part): part is FilePart & { bytes: string } => part.kind === 'file' && part.bytes !== undefined);
  if (files.length === 0) return [];
  const names = new UniqueNames(readdirSync(folder));
  return files.map((part) => saveFile(folder, names, safeFileName(part.name ?? 'file'), Buffer.from(part.bytes, 'base64')));
}

function saveFile(folder: string, names: UniqueNames, wanted: string, bytes: Buffer): string {
  for (;;) {
    const name = names.take(wanted);
    try {
      writeFileSync(join(folder, name), bytes, { flag: 'wx' });
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
