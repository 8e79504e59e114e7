// The `a2a-lite` command: finds the subcommand, loads only its module (the CLI is spawned
// once per chat message, so start-up must stay close to Node's own), runs it, maps errors.

import { readFileSync } from 'node:fs';
import { ERROR_TABLE, LiteError } from '../errors.js';
import type { Command, Context } from './context.js';
import { entryOf } from './group.js';
import { printLine, reportError } from './output.js';

const COMMANDS: Readonly<Record<string, { summary: string; load: () => Promise<{ command: Command }> }>> = {
  parse: { summary: 'read a chat message as A2A-Lite JSON', load: () => import('./commands/parse.js') },
  format: { summary: 'write a protocol message from a type, params and a body', load: () => import('./commands/format.js') },
  validate: { summary: 'check a message against the per-type rules', load: () => import('./commands/validate.js') },
  card: { summary: "create, check and show this agent's Agent Card", load: () => import('./commands/card.js') },
  agents: { summary: 'the known-agents cache: add, list, show, remove', load: () => import('./commands/agents.js') },
  tasks: { summary: 'the task ledger: new, record, list, show; get, cancel a task sent with send', load: () => import('./commands/tasks.js') },
  discover: { summary: "fetch an A2A agent's card and cache it as a known agent", load: () => import('./commands/discover.js') },
  send: { summary: 'give a task to any A2A agent and follow it as A2A-Lite text', load: () => import('./commands/send.js') },
  run: { summary: 'run a plan of steps across A2A agents: serial, parallel, conditional, fan-out', load: () => import('./commands/run.js') },
  runs: { summary: 'the plan runs: list them, show one with its steps', load: () => import('./commands/runs.js') },
  serve: { summary: 'serve this agent over A2A (1.0 JSON-RPC and HTTP+JSON, 0.3, SSE)', load: () => import('./commands/serve.js') },
  hub: { summary: 'run a hub: registry, relay for agents behind NAT, routing, A2A endpoint per agent', load: () => import('./commands/hub.js') },
  demo: { summary: 'play the protocol example: two agents collaborating over HTTP', load: () => import('./commands/demo.js') },
};

/** The package's version, read from its package.json (two folders up from both src/cli and dist/cli) when asked. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** Runs the CLI with `argv` (without node and the script) and returns the exit code. */
export async function run(argv: string[], context: Context): Promise<number> {
  const [name, ...args] = hoistGlobalOptions(argv);
  const json = args.includes('--json');
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      if (name === 'help' && args[0] !== undefined) return await run([args[0], '--help'], context);
      printLine(context, mainHelp());
      return 0;
    }
    if (name === '--version' || name === '-V') {
      printLine(context, packageVersion());
      return 0;
    }
    const entry = entryOf(COMMANDS, name);
    if (entry === undefined) {
      throw new LiteError('USAGE', `unknown command ${JSON.stringify(name)}; the commands are ${Object.keys(COMMANDS).join(', ')} (see a2a-lite --help)`);
    }
    const { command } = await entry.load();
    if (args.includes('--help') || args.includes('-h')) {
      const sub = args[0] === undefined || command.subcommands === undefined ? undefined : entryOf(command.subcommands, args[0]);
      const { usage, help } = sub ?? command;
      printLine(context, `usage: ${usage}\n\n${help}`);
      return 0;
    }
    // Loaded only when asked: most commands run once per chat message, and start-up counts.
    if (context.env.A2A_LITE_TLS_CA || args.some((arg) => arg.startsWith('--tls-ca'))) (await import('./tls-flags.js')).trustFromArgs(args, context);
    return await command.run(args, context);
  } catch (error) {
    return reportError(context, error, json);
  }
}

/**
 * Moves `--home DIR` and `--json` written before the command (`a2a-lite --home X card show`)
 * behind it, where each command reads them.
 */
function hoistGlobalOptions(argv: readonly string[]): string[] {
  const globals: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === '--json' || arg.startsWith('--home=')) globals.push(arg);
    else if (arg === '--home' && i + 1 < argv.length) globals.push(arg, argv[++i] as string);
    else break;
    i += 1;
  }
  return globals.length === 0 ? [...argv] : [...argv.slice(i), ...globals];
}

function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const commands = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`);
  const exits = new Map<number, string[]>();
  for (const [code, row] of Object.entries(ERROR_TABLE)) exits.set(row.exit, [...(exits.get(row.exit) ?? []), code]);
  const exitLines = [...exits.entries()].sort(([a], [b]) => a - b).map(([exit, codes]) => `  ${exit}  ${codes.join(', ')}`);
  return [
    'usage: a2a-lite <command> [options]',
    '',
    'A2A-Lite: tagged natural-language messages between agents, Agent Cards and a task ledger.',
    '',
    'commands:',
    ...commands,
    '',
    'options for every command:',
    '  --home DIR   where the card, known-agents/ and tasks/ live (else $A2A_LITE_HOME,',
    '               else ./.a2a-lite in an OpenClaw workspace, else ~/.a2a-lite)',
    '  --json       print results as JSON (errors become JSON on stderr)',
    '  --tls-ca FILE  trust the certificate authority in FILE (PEM) besides the system\'s, for',
    '               every HTTPS and WSS connection (repeatable; or $A2A_LITE_TLS_CA)',
    '  -h, --help   help for a command, with an example',
    '',
    'exit codes:',
    '  0  success',
    ...exitLines,
    '',
    'example:',
    '  a2a-lite format task id=research-001 skill=research --body "帮我调研一下 AI Agent 生态"',
  ].join('\n');
}
