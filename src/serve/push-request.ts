// What a webhook receives for a task event: the body in the A2A version its config was made
// with, and the headers that carry the config's token and credentials.

import { taskToV03 } from '../a2a/wire/v03.js';
import { A2A_JSON } from '../media-types.js';
import { eventToV1 } from '../a2a/wire/v1.js';
import type { PushConfig } from '../model/push-config.js';
import type { Task, TaskEvent } from '../model/task.js';

/**
 * What a webhook receives for an event. A 1.0 config gets the event as a StreamResponse; a 0.3
 * config gets the whole task for every event, as the 0.3 spec's example and the SDK's 0.3
 * sender do.
 */
export function bodyOf(config: Pick<PushConfig, 'version'>, event: TaskEvent, task: Task): string {
  return JSON.stringify(config.version === '1.0' ? eventToV1(event) : taskToV03(task));
}

/** The request headers for a config; the only place its token and credentials are read. */
export function headersOf(config: PushConfig): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': config.version === '1.0' ? A2A_JSON : 'application/json',
    'user-agent': 'a2a-lite',
  };
  if (config.authentication?.credentials !== undefined) headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
  if (config.token !== undefined) headers['x-a2a-notification-token'] = config.token;
  return headers;
}
