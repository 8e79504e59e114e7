// What a command receives: its arguments and the process streams, so that tests can run
// commands in-process and the binary can run them for real.

import type { Readable, Writable } from 'node:stream';

export interface Context {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: Readable & { isTTY?: boolean; fd?: number };
  stdout: Writable;
  stderr: Writable;
}

/** A command module: its help text and what it does. Returns the exit code. */
export interface Command {
  usage: string;
  help: string;
  /** Help for each subcommand (`card init`, `tasks new`, …) where the command has them. */
  subcommands?: Readonly<Record<string, { usage: string; help: string }>>;
  run(args: string[], context: Context): Promise<number> | number;
}
