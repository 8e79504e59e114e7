// A task as A2A-Lite text, written once for every side that says it: a status with the state,
// progress and eta of the task, and a result with its artifacts' text and one attachment line
// per file. The chat driver, `send` and `tasks get` all print what these return.

import type { TaskState, WireState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import type { Artifact, TaskMessage, TaskStatus } from '../model/task.js';

/** The lite state for a task state: `submitted` is never said on the wire; the agent has the task (accepted). */
export function liteState(state: TaskState): WireState {
  return state === 'submitted' ? 'accepted' : state;
}

/**
 * The status message of a task in `status`: its state, its progress (`progress=50%`) and eta
 * when the agent gave them, and `body`, by default the words of the status message.
 *
 * @example
 * statusMessage('research-001', { state: 'working', timestamp, message }) // params { task, state: 'working', progress: '50%' }
 */
export function statusMessage(taskId: string, status: TaskStatus, body = wordsOf(status.message)): Message {
  const params: Record<string, string> = { task: taskId, state: liteState(status.state) };
  const lite = status.message?.metadata?.a2aLite as { progress?: unknown; eta?: unknown } | undefined;
  const progress = percent(lite?.progress);
  if (progress !== undefined) params.progress = progress;
  const eta = typeof lite?.eta === 'string' ? oneLine(lite.eta) : '';
  if (eta !== '') params.eta = eta;
  return { type: 'status', params, body, attachments: [] };
}

/**
 * The result message of an ended task. A success speaks through its artifacts (their words
 * when it has none); a failure's reason is its status message. `fallback` is said when neither
 * has words; `attachments` names the files that go with it.
 */
export function resultMessage(taskId: string, status: TaskStatus, artifacts: readonly Artifact[], attachments: readonly string[], fallback = ''): Message {
  const state = liteState(status.state);
  const texts = artifactText(artifacts);
  const words = wordsOf(status.message);
  const body = (state === 'completed' ? texts || words : words || texts) || fallback;
  return { type: 'result', params: { task: taskId, state }, body, attachments: [...attachments] };
}

/**
 * What a message says: its text parts, and its data parts as indented JSON (an agent may ask its
 * question as a form in a data part), apart by blank lines.
 */
export function wordsOf(message: TaskMessage | undefined): string {
  if (message === undefined) return '';
  const pieces = message.parts.flatMap((part) => (part.kind === 'text' ? [part.text] : part.kind === 'data' ? [JSON.stringify(part.data, null, 2) ?? ''] : []));
  return pieces.filter((piece) => piece !== '').join('\n\n');
}

/**
 * The text of artifacts: in each, its text parts as one text (a streamed artifact arrives in
 * chunks) and its data parts as indented JSON; artifacts apart by a blank line.
 */
export function artifactText(artifacts: readonly Artifact[]): string {
  const texts: string[] = [];
  for (const artifact of artifacts) {
    const pieces: string[] = [];
    let chunks = '';
    for (const part of artifact.parts) {
      if (part.kind === 'text') chunks += part.text;
      else if (part.kind === 'data') {
        if (chunks !== '') pieces.push(chunks);
        chunks = '';
        pieces.push(JSON.stringify(part.data, null, 2) ?? '');
      }
    }
    if (chunks !== '') pieces.push(chunks);
    const text = pieces.filter((piece) => piece !== '').join('\n\n');
    if (text !== '') texts.push(text);
  }
  return texts.join('\n\n');
}

/** The names of the files in artifacts, as attachment lines can carry them (one line, no control characters). */
export function fileNames(artifacts: readonly Artifact[]): string[] {
  const names: string[] = [];
  for (const part of artifacts.flatMap((a) => a.parts)) {
    if (part.kind !== 'file') continue;
    const name = oneLine(part.name ?? '').replace(/[\u0000-\u001f\u007f]/g, '');
    names.push(name === '' ? `file-${names.length + 1}` : name);
  }
  return names;
}

/** A progress figure as `progress=` writes it, to two decimals; none for a figure outside 0–100 (nothing is made up). */
function percent(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) return undefined;
  return `${Math.round(value * 100) / 100}%`;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
