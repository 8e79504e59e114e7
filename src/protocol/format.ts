// Writes a message as canonical A2A-Lite text: the header on one line, the body, then one
// attachment line per file. `parse(format(m))` gives back `m` for every valid message.

import { LiteError } from '../errors.js';
import { canonicalBody, escapeBody, formatName } from './body.js';
import { PARAM_NAME, TYPE_NAME } from './validate.js';
import type { Message } from './types.js';

export interface FormatOptions {
  /** The word on attachment lines: `附件` (the protocol's own, default) or `attachment`. */
  attachmentLabel?: '附件' | 'attachment';
}


/**
 * Formats `message` as canonical text. Throws `INVALID_MESSAGE` only for what text cannot
 * carry (a bad type or parameter name, a line break in a value or a file name); the per-type
 * rules are `validate`'s job.
 *
 * @example
 * format({ type: 'status', params: { task: 'email-001', state: 'accepted' }, body: '收到', attachments: [] })
 * // '[A2A:status task=email-001 state=accepted]\n收到'
 */
export function format(message: Message, options: FormatOptions = {}): string {
  const label = options.attachmentLabel ?? '附件';
  const lines: string[] = [];
  if (message.type === 'plain') {
    if (Object.keys(message.params).length > 0) {
      throw new LiteError('INVALID_MESSAGE', 'a plain message has no header, so it cannot carry parameters');
    }
  } else {
    lines.push(formatHeader(message.type, message.params));
  }
  for (const line of escapeBody(canonicalBody(message.body))) lines.push(line);
  for (const name of message.attachments) lines.push(`[${label}: ${formatName(name)}]`);
  return lines.join('\n');
}

function formatHeader(type: string, params: Record<string, string>): string {
  if (!TYPE_NAME.test(type)) {
    throw new LiteError('INVALID_MESSAGE', `message type ${JSON.stringify(type)} must be lower-case letters, digits, "-" or "_"`);
  }
  let header = `[A2A:${type}`;
  for (const [key, value] of Object.entries(params)) {
    if (!PARAM_NAME.test(key)) {
      throw new LiteError('INVALID_MESSAGE', `parameter name ${JSON.stringify(key)} must start with a letter and hold only letters, digits, ".", "-" or "_"`);
    }
    if (/[\r\n]/.test(value)) {
      throw new LiteError('INVALID_MESSAGE', `parameter "${key}" holds a line break; a header is one line`);
    }
    header += ` ${key}=${formatValue(value)}`;
  }
  return `${header}]`;
}

/** Quotes a value when it is empty, holds whitespace or a closing bracket, or starts with a quote. */
function formatValue(value: string): string {
  if (value !== '' && !/[\s\]］]/.test(value) && !/^["“”「]/.test(value)) return value;
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
