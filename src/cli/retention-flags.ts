// serve's retention flags (--task-ttl, --input-timeout, --max-tasks): read with errors that name
// the flag, merged with the rules the store remembers from the last run (a flag given overrides
// its rule, `off` drops it), and told in serve's startup lines.

import { LiteError } from '../errors.js';
import { formatDuration, parseDuration, type RetentionRules } from '../model/retention.js';
import type { RetentionStore } from '../store/retention-store.js';

export const RETENTION_OPTIONS = {
  'task-ttl': { type: 'string' },
  'input-timeout': { type: 'string' },
  'max-tasks': { type: 'string' },
} as const;

/** A rule as the command line gives it: a value, `off`, or nothing said. */
type Given = number | 'off' | undefined;
type Flags = Record<keyof RetentionRules, Given>;

const FLAG_OF: Readonly<Record<keyof RetentionRules, string>> = { taskTtlMs: '--task-ttl', inputTimeoutMs: '--input-timeout', maxTasks: '--max-tasks' };
const LONGEST = '3650d';
const MAX_TASKS = 1_000_000_000;

/** The rules the flags give, each checked: USAGE errors name the flag and what it takes. */
export function retentionFlags(values: { 'task-ttl'?: string; 'input-timeout'?: string; 'max-tasks'?: string }): Flags {
  return {
    taskTtlMs: duration('--task-ttl', values['task-ttl']),
    inputTimeoutMs: duration('--input-timeout', values['input-timeout']),
    maxTasks: whole('--max-tasks', values['max-tasks']),
  };
}

/**
 * The rules in force: each flag given, else the rule the store remembers; then remembered in
 * turn, so that the next start without flags keeps them. Also says which rules came from memory.
 */
export async function rulesInForce(store: RetentionStore, flags: Flags): Promise<{ rules: RetentionRules; remembered: string[] }> {
  const before = (await store.retentionRules()) ?? {};
  const rules: RetentionRules = {};
  const remembered: string[] = [];
  for (const name of Object.keys(FLAG_OF) as (keyof RetentionRules)[]) {
    const given = flags[name];
    const value = given === undefined ? before[name] : given === 'off' ? undefined : given;
    if (value !== undefined) rules[name] = value;
    if (given === undefined && value !== undefined) remembered.push(FLAG_OF[name]);
  }
  if (JSON.stringify(rules) !== JSON.stringify(before)) await store.saveRetentionRules(rules);
  return { rules, remembered };
}

/** The rules as serve's startup line tells them. */
export function describeRules(rules: RetentionRules, remembered: readonly string[]): string {
  const parts: string[] = [];
  if (rules.taskTtlMs !== undefined) parts.push(`ended tasks deleted after ${formatDuration(rules.taskTtlMs)}`);
  if (rules.inputTimeoutMs !== undefined) parts.push(`unanswered tasks failed after ${formatDuration(rules.inputTimeoutMs)}`);
  if (rules.maxTasks !== undefined) parts.push(`at most ${rules.maxTasks} tasks`);
  if (parts.length === 0) return 'none (tasks are kept for good)';
  return parts.join(', ') + (remembered.length === 0 ? '' : ` (${remembered.join(', ')} remembered from the last run)`);
}

function duration(flag: string, text: string | undefined): Given {
  if (text === undefined || text === 'off') return text;
  const ms = parseDuration(text);
  if (ms === undefined) throw new LiteError('USAGE', `serve: ${flag} is a duration such as 90s, 15m, 1h30m or 7d, or off; not ${JSON.stringify(text.slice(0, 40))}`);
  if (ms < 1000) throw new LiteError('USAGE', `serve: ${flag} is at least 1s; give off for none`);
  if (ms > (parseDuration(LONGEST) as number)) throw new LiteError('USAGE', `serve: ${flag} is at most ${LONGEST}`);
  return ms;
}

function whole(flag: string, text: string | undefined): Given {
  if (text === undefined || text === 'off') return text;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_TASKS) {
    throw new LiteError('USAGE', `serve: ${flag} is a whole number from 1 to ${MAX_TASKS}, or off; not ${JSON.stringify(text.slice(0, 40))}`);
  }
  return Number(text);
}
