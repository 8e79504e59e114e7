// The message a send carries: its text, and each attached file read whole into a file part,
// refused by name when it is missing, not a regular file, or too large; and the check that no
// credential goes out in its words.

import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { LiteError, isLiteError } from '../errors.js';
import { mediaTypeOf } from '../media-types.js';
import { credentialShapes } from '../secrets.js';
import type { Part, TaskMessage } from '../model/task.js';
import { newMessageId } from './transport.js';

/** The most one attached file may hold. */
export const MAX_ATTACHMENT = 32 * 1024 * 1024;

/** The message for `text` and the files `attachments` names (relative to `cwd`), asking for `skill`. */
export function buildMessage(text: string, attachments: readonly string[], cwd: string, skill: string | undefined): TaskMessage {
  const parts: Part[] = [];
  if (text !== '') parts.push({ kind: 'text', text });
  for (const file of attachments) parts.push(filePart(resolve(cwd, file), file));
  const message: TaskMessage = { messageId: newMessageId(), role: 'user', parts };
  if (skill !== undefined) message.metadata = { skill };
  return message;
}

/**
 * Refuses words that hold a known credential shape (an API key, a token, a private key, a
 * password in a URL), in text or data parts: FORBIDDEN, naming the kinds, never the value.
 * `hint` ends the message (how the caller may send it anyway, where it may).
 */
export function refuseCredentials(parts: readonly Part[], hint = ''): void {
  const kinds = new Set<string>();
  for (const part of parts) {
    const words = part.kind === 'text' ? part.text : part.kind === 'data' ? JSON.stringify(part.data) : undefined;
    if (words !== undefined) for (const kind of credentialShapes(words)) kinds.add(kind);
  }
  if (kinds.size === 0) return;
  throw new LiteError('FORBIDDEN', `send: the message holds what looks like a credential (${[...kinds].join(', ')}); credentials never go into messages, so nothing was sent${hint}`, { credential: [...kinds] });
}

function filePart(path: string, given: string): Part {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new LiteError('FILE_NOT_FOUND', `send: the attachment ${given} is not a regular file`);
    size = stat.size;
  } catch (error) {
    if (isLiteError(error)) throw error;
    throw new LiteError('FILE_NOT_FOUND', `send: no file ${given} to attach`, { file: given });
  }
  if (size > MAX_ATTACHMENT) throw new LiteError('INPUT_TOO_LARGE', `send: the attachment ${given} is over ${MAX_ATTACHMENT} bytes`);
  return { kind: 'file', name: basename(path), mediaType: mediaTypeOf(path), bytes: readFileSync(path).toString('base64') };
}
