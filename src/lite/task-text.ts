// A remote task's events as A2A-Lite messages: a status line with the agent's words while it
// works or waits, and a result with the artifacts' text and one attachment line per file once it
// ends. Files the agent returns are written under the task's download folder with safe names.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTerminal, type TaskState, type WireState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import { textOf, type Artifact, type Part, type Task, type TaskEvent } from '../model/task.js';
import { safeFileName } from '../home/safe-names.js';
import { encodeName } from '../home/file-names.js';

/** A file the agent returned, and where it now is (undefined when it could not be saved). */
export interface SavedFile {
  name: string;
  path?: string;
  url?: string;
  mediaType?: string;
}

/** The lite state for an A2A one: A2A's submitted means the agent has the task (accepted). */
export function liteState(state: TaskState): WireState {
  return state === 'submitted' ? 'accepted' : state;
}

/** The status message for a task that is working or waiting. */
export function statusMessage(task: Task, event?: TaskEvent): Message {
  const status = event?.kind === 'status' ? event.status : task.status;
  const params: Record<string, string> = { task: task.id, state: liteState(status.state) };
  const lite = status.message?.metadata?.a2aLite as { progress?: unknown; eta?: unknown } | undefined;
  if (typeof lite?.progress === 'number' && Number.isFinite(lite.progress)) params.progress = String(Math.max(0, Math.min(100, Math.round(lite.progress))));
  if (typeof lite?.eta === 'string' && lite.eta !== '' && !/[\r\n]/.test(lite.eta)) params.eta = lite.eta;
  const body = event?.kind === 'message' ? textOf(event.message) : textOf(status.message);
  return { type: 'status', params, body, attachments: [] };
}

/** The result message for an ended task, naming the files saved for it. */
export function resultMessage(task: Task, files: readonly SavedFile[]): Message {
  const state = liteState(task.status.state);
  // An artifact's text parts are one text (a streamed one arrives in chunks); artifacts are
  // separated by a blank line.
  const texts = task.artifacts
    .map((a) => a.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join(''))
    .filter((text) => text !== '');
  const words = textOf(task.status.message);
  // A failure's reason is the agent's status message; a success speaks through its artifacts.
  const body = state === 'completed' ? (texts.length > 0 ? texts.join('\n\n') : words) : words || texts.join('\n\n');
  return { type: 'result', params: { task: task.id, state }, body, attachments: files.map((f) => f.name) };
}

/** The file parts of a task's artifacts. */
export function fileParts(artifacts: readonly Artifact[]): Extract<Part, { kind: 'file' }>[] {
  return artifacts.flatMap((a) => a.parts.filter((p): p is Extract<Part, { kind: 'file' }> => p.kind === 'file'));
}

/**
 * Writes the inline files of `parts` into `<downloads>/<task>/`, each under a safe name (two files
 * of one result never share one; fetching the task again rewrites them). Files given by URL are
 * listed, not fetched: the user decides whether to download them.
 */
export function saveFiles(downloads: string, taskId: string, parts: readonly Extract<Part, { kind: 'file' }>[]): SavedFile[] {
  const folder = join(downloads, encodeName(taskId));
  const used = new Set<string>();
  const saved: SavedFile[] = [];
  for (const part of parts) {
    const name = uniqueName(safeFileName(part.name ?? 'file'), used);
    const file: SavedFile = { name };
    if (part.mediaType) file.mediaType = part.mediaType;
    if (part.bytes !== undefined) {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const path = join(folder, name);
      writeFileSync(path, Buffer.from(part.bytes, 'base64'), { mode: 0o600 });
      file.path = path;
    } else if (part.url !== undefined) {
      file.url = part.url;
    }
    saved.push(file);
  }
  return saved;
}

function uniqueName(name: string, used: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  let candidate = name;
  for (let n = 2; used.has(candidate); n += 1) candidate = `${stem}-${n}${extension}`;
  used.add(candidate);
  return candidate;
}

/** True when the task will change no more. */
export function hasEnded(task: Task): boolean {
  return isTerminal(task.status.state);
}
