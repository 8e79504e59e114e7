// Command-line options on node:util's parseArgs, with the options every command shares and
// errors that name the command and point to its help.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { LiteError } from '../errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command accepts. */
export const COMMON_OPTIONS = {
  home: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  // Read before the command runs (tls-flags.ts): authorities trusted for every connection it makes.
  'tls-ca': { type: 'string', multiple: true },
} as const satisfies Options;

type ParsedArgs<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof COMMON_OPTIONS & O; allowPositionals: true; strict: true }>
>;

/**
 * Parses `args` for `command` with its own `options` plus the common ones.
 *
 * @example
 * const { values, positionals } = parseOptions('tasks list', args, { state: { type: 'string' } });
 */
export function parseOptions<const O extends Options>(command: string, args: string[], options: O): ParsedArgs<O> {
  try {
    const { values, positionals } = parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
    return { values, positionals };
  } catch (error) {
    const text = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '').replace(/^Unknown option/, 'unknown option');
    throw new LiteError('USAGE', `${command}: ${text}; see: a2a-lite ${command} --help`);
  }
}

/** Fails with a usage error unless `count` positionals at most were given. */
export function atMost(command: string, positionals: string[], count: number): void {
  if (positionals.length > count) {
    throw new LiteError('USAGE', `${command}: unexpected argument ${JSON.stringify(positionals[count])}; see: a2a-lite ${command} --help`);
  }
}

export function required<T>(command: string, value: T | undefined, what: string): T {
  if (value === undefined || value === '') throw new LiteError('USAGE', `${command}: ${what} is required; see: a2a-lite ${command} --help`);
  return value;
}
