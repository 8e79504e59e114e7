// The audit trail as a file (`serve --audit FILE`, `hub --audit FILE`): one JSON line per
// event, appended through a buffered stream so that a request never waits for the disk.
// `reopen` (on SIGHUP) starts a new file at the same path, so that logrotate's move-then-HUP
// works: lines written before go to the moved file, lines after to the new one. `close`
// resolves once every line is written.

import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import { LiteError } from '../errors.js';
import type { AuditEvent } from '../a2a/server/audit.js';

export interface AuditFile {
  readonly path: string;
  write(event: AuditEvent): void;
  /** Opens the path again (after it was moved away); the previous file gets what was written to it. */
  reopen(): void;
  close(): Promise<void>;
}

/**
 * Opens `path` for appending (made with mode 0600 when new); USAGE when it cannot be. Failures
 * to write later are told to `log`, once for each file opened.
 */
export function openAuditFile(path: string, log: (line: string) => void): AuditFile {
  let stream = streamAt(path, log, true) as WriteStream;
  const closing: Promise<void>[] = [];
  return {
    path,
    write(event) {
      stream.write(`${lineOf(event)}\n`);
    },
    reopen() {
      const next = streamAt(path, log, false);
      if (next === undefined) return;
      closing.push(ended(stream));
      stream = next;
    },
    async close() {
      closing.push(ended(stream));
      await Promise.all(closing);
    },
  };
}

/** The event as one line of JSON, its fields always in one order. */
export function lineOf(event: AuditEvent): string {
  const { time, action, principal, address, agent, task, outcome, detail } = event;
  return JSON.stringify({ time, action, principal, address, agent, task, outcome, detail });
}

function streamAt(path: string, log: (line: string) => void, first: boolean): WriteStream | undefined {
  let fd: number;
  try {
    // Opened here, at once, so that a path that cannot be written is said when it is given.
    fd = openSync(path, 'a', 0o600);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    if (first) throw new LiteError('USAGE', `--audit ${path}: the file cannot be opened for appending (${why})`);
    log(`a2a-lite: the audit file ${path} could not be opened again (${why}); lines go on to the file it was`);
    return undefined;
  }
  const stream = createWriteStream('', { fd, flags: 'a' });
  let told = false;
  stream.on('error', (error) => {
    if (told) return;
    told = true;
    // The stream closes its file itself on an error.
    log(`a2a-lite: writing the audit file ${path}: ${error.message}`);
  });
  return stream;
}

function ended(stream: WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.closed) return resolve();
    stream.end(() => resolve());
    stream.once('error', () => resolve());
  });
}
