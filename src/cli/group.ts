// A command made of subcommands (`card init`, `tasks list`, …): its help lists them, and it
// hands the arguments to the one named.

import { LiteError } from '../errors.js';
import type { Command, Context } from './context.js';

export interface Subcommand {
  usage: string;
  help: string;
  run(args: string[], context: Context): Promise<number> | number;
}

/**
 * The entry `key` names in `table`, if the table itself has it: a name such as `constructor` or
 * `__proto__`, which every object inherits, names no command.
 */
export function entryOf<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Builds the command `name` from its subcommands, in the order given. */
export function commandGroup(name: string, summary: string, subcommands: Readonly<Record<string, Subcommand>>): Command {
  const names = Object.keys(subcommands);
  const list = Object.values(subcommands)
    .map((s) => `  ${s.usage}`)
    .join('\n');
  return {
    usage: `a2a-lite ${name} ${names.join('|')} …`,
    help: `${summary}\n\nsubcommands:\n${list}\n\nSee a2a-lite ${name} <subcommand> --help.`,
    subcommands,
    run(args, context) {
      const [sub, ...rest] = args;
      const chosen = sub === undefined ? undefined : entryOf(subcommands, sub);
      if (chosen === undefined) {
        const expected = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
        throw new LiteError('USAGE', `${name}: expected ${expected}${sub ? `, got ${JSON.stringify(sub)}` : ''}`);
      }
      return chosen.run(rest, context);
    },
  };
}
