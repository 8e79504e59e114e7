// What a subtask's answer gives later steps: its text (the result's words, as `send` prints
// them) and its data (the first data part of its artifacts, else the text when it is a JSON
// object or list, so that a plain exec program can hand on data by printing JSON).

import type { SendResult } from '../client/send-task.js';
import type { Task } from '../model/task.js';
import { artifactText, wordsOf } from '../lite/task-text.js';

export interface Answer {
  text: string;
  data: unknown;
}

/** The text and data of `task` (as `result` saw it, when there is a result). */
export function answerOf(result: SendResult | undefined, task: Task | undefined): Answer {
  const last = result?.record.messages.at(-1);
  let text: string;
  if (last !== undefined && (last.type === 'result' || last.type === 'plain' || task === undefined)) text = last.body;
  else if (task !== undefined) text = artifactText(task.artifacts) || wordsOf(task.status.message);
  else text = '';
  const part = task?.artifacts.flatMap((a) => a.parts).find((p) => p.kind === 'data');
  return { text, data: part?.kind === 'data' ? part.data : jsonIn(text) };
}

function jsonIn(text: string): unknown {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') && trimmed.endsWith('}')) && !(trimmed.startsWith('[') && trimmed.endsWith(']'))) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}
