// The retention rules as a card declares them: an extension in capabilities.extensions whose
// params tell a client how long its ended tasks stay readable, how long a question waits for its
// answer, and how many tasks the agent keeps.

import type { RetentionRules } from '../../model/retention.js';
import type { CardExtension } from './agent-card.js';

export const RETENTION_EXTENSION = 'https://a2a-lite.dev/extensions/retention/v1';

/**
 * The extension that declares `rules`. Its params hold only the rules in force:
 * `taskTtlSeconds` (an ended task is deleted this long after its last status, and is then not
 * found), `inputTimeoutSeconds` (a task waiting this long in input-required or auth-required ends
 * as failed) and `maxTasks` (beyond it the oldest ended tasks are deleted; when none has ended, a
 * new task is refused).
 *
 * @example
 * retentionExtension({ taskTtlMs: 604_800_000 })
 * // { uri: RETENTION_EXTENSION, description: '…', required: false, params: { taskTtlSeconds: 604800 } }
 */
export function retentionExtension(rules: RetentionRules): CardExtension {
  const params: Record<string, number> = {};
  if (rules.taskTtlMs !== undefined) params.taskTtlSeconds = rules.taskTtlMs / 1000;
  if (rules.inputTimeoutMs !== undefined) params.inputTimeoutSeconds = rules.inputTimeoutMs / 1000;
  if (rules.maxTasks !== undefined) params.maxTasks = rules.maxTasks;
  return {
    uri: RETENTION_EXTENSION,
    description: 'How long this agent keeps tasks: ended tasks are deleted after taskTtlSeconds, a task waiting for input or auth longer than inputTimeoutSeconds fails, and at most maxTasks are kept',
    required: false,
    params,
  };
}
