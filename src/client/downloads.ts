// Files a remote agent returned, written under the task's download folder with safe names (or
// listed by URL, never fetched).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeName } from '../home/file-names.js';
import { safeFileName, UniqueNames } from '../home/safe-names.js';
import type { Artifact, Part } from '../model/task.js';

/** A file the agent returned, and where it now is (undefined when it could not be saved). */
export interface SavedFile {
  name: string;
  path?: string;
  url?: string;
  mediaType?: string;
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
  // A result's files are written afresh each time the task is fetched: only its own names count.
  const names = new UniqueNames([], 2);
  const saved: SavedFile[] = [];
  for (const part of parts) {
    const name = names.take(safeFileName(part.name ?? 'file'));
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
