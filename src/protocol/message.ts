// Building plain `Message` values: from parts, or from a parse result without its warnings.

import type { Message, ParsedMessage } from './types.js';

/**
 * Returns the message part of a parse result (type, params, body, attachments), or builds a
 * message from parts when given a type.
 *
 * @example
 * messageOf('status', { task: 'email-001', state: 'accepted' }, '收到')
 */
export function messageOf(parsed: ParsedMessage): Message;
export function messageOf(type: string, params?: Record<string, string>, body?: string, attachments?: string[]): Message;
export function messageOf(
  source: ParsedMessage | string,
  params: Record<string, string> = {},
  body = '',
  attachments: string[] = [],
): Message {
  if (typeof source === 'string') return { type: source, params: { ...params }, body, attachments: [...attachments] };
  return { type: source.type, params: source.params, body: source.body, attachments: source.attachments };
}
