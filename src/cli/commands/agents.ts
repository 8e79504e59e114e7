// `a2a-lite agents`: the known-agents cache (known-agents/<id>.json): add, list, show, remove.

import { addAgent } from '../../home/ledger-actions.js';
import { atMost, parseOptions, required } from '../args.js';
import type { Command, Context } from '../context.js';
import { commandGroup, type Subcommand } from '../group.js';
import { readInput } from '../input.js';
import { note, printJson, printLine, table } from '../output.js';
import { openStores } from '../stores.js';

const SUBCOMMANDS = {
  add: {
    run: add,
    usage: 'a2a-lite agents add FILE|- [--id ID] [--channel C …]',
    help: `Caches a peer's card as known-agents/<id>.json. The input is a JSON card, or the text of
an [A2A:card] reply as received in chat (the card is rebuilt from it: name, framework,
skills, file transfer, streaming). Re-adding an agent updates it. A card carrying a
credential is refused (exit 6).

options:
  --id ID       the agent id, when a chat reply does not give one
  --channel C   where this peer was reached, e.g. discord:mexico (repeat)

examples:
  a2a-lite agents add ./mexico-card.json
  printf '%s' "$REPLY" | a2a-lite agents add - --channel discord:mexico`,
  },
  list: {
    run: list,
    usage: 'a2a-lite agents list [--skill S]',
    help: `Lists cached agents; with --skill, only those offering S (by skill id, name or tag).

example:
  a2a-lite agents list --skill email`,
  },
  show: { run: show, usage: 'a2a-lite agents show ID', help: `Prints a cached card as JSON.\n\nexample:\n  a2a-lite agents show mexico` },
  remove: { run: remove, usage: 'a2a-lite agents remove ID', help: `Deletes a cached card.\n\nexample:\n  a2a-lite agents remove mexico` },
} satisfies Record<string, Subcommand>;

export const command: Command = commandGroup('agents', 'The cards of peers this agent knows (known-agents/ in the home).', SUBCOMMANDS);

async function add(args: string[], context: Context): Promise<number> {
  const { values, positionals } = parseOptions('agents add', args, { id: { type: 'string' }, channel: { type: 'string', multiple: true } });
  atMost('agents add', positionals, 1);
  const source = required('agents add', positionals[0], 'FILE (or - for stdin)');
  const text = await readInput(context, source, 'agents add');
  const { agent, replaced, found } = addAgent(openStores(values, context), text, {
    id: values.id,
    channels: values.channel,
    source: source === '-' ? 'stdin' : source,
    idHint: '; pass --id',
  });
  if (found !== undefined && !values.json) note(context, `read from the reply: ${found.join(', ')}`);
  if (values.json) printJson(context, { ...agent, replaced });
  else {
    const skills = agent.card.skills.map((s) => s.id).join(', ') || 'no skills';
    printLine(context, `${replaced ? 'updated' : 'added'} ${agent.card.agent.id} (${agent.card.agent.name}; ${skills}) in ${agent.path}`);
  }
  return 0;
}

function list(args: string[], context: Context): number {
  const { values, positionals } = parseOptions('agents list', args, { skill: { type: 'string' } });
  atMost('agents list', positionals, 0);
  const found = openStores(values, context).agents.list(values.skill === undefined ? {} : { skill: values.skill }, (path, problem) =>
    note(context, `left out: ${problem.message}`),
  );
  if (values.json) {
    printJson(context, found);
    return 0;
  }
  if (found.length === 0) {
    printLine(context, values.skill ? `no known agent offers "${values.skill}"` : 'no known agents yet (add one with: a2a-lite agents add FILE)');
    return 0;
  }
  const rows = [['ID', 'NAME', 'FRAMEWORK', 'SKILLS', 'CHANNELS']];
  for (const { card } of found) {
    rows.push([card.agent.id, card.agent.name, card.agent.framework, card.skills.map((s) => s.id).join(',') || '-', (card.channels ?? []).join(',') || '-']);
  }
  for (const line of table(rows)) printLine(context, line);
  return 0;
}

function show(args: string[], context: Context): number {
  const { values, positionals } = parseOptions('agents show', args, {});
  atMost('agents show', positionals, 1);
  const agent = openStores(values, context).agents.get(required('agents show', positionals[0], 'ID'));
  printJson(context, values.json ? agent : agent.card);
  return 0;
}

function remove(args: string[], context: Context): number {
  const { values, positionals } = parseOptions('agents remove', args, {});
  atMost('agents remove', positionals, 1);
  const id = required('agents remove', positionals[0], 'ID');
  openStores(values, context).agents.remove(id);
  if (values.json) printJson(context, { removed: id });
  else printLine(context, `removed ${id}`);
  return 0;
}
