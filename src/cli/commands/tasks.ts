// `a2a-lite tasks`: the task ledger: new, record, list, show; get and cancel for a task sent to
// an A2A agent with `send` (loaded only when used).

import { LiteError } from '../../errors.js';
import { isTaskState } from '../../protocol/states.js';
import type { Applied, TaskSummary } from '../../home/task-record.js';
import { atMost, parseOptions, required } from '../args.js';
import type { Command, Context } from '../context.js';
import { commandGroup, type Subcommand } from '../group.js';
import { note, printJson, printLine, table } from '../output.js';
import { openStores } from '../stores.js';
import { bodyFrom } from './format.js';
import { newTask, recordMessages } from '../../home/ledger-actions.js';
import { messageText } from './message-input.js';

const SUBCOMMANDS = {
  new: {
    run: newTaskCommand,
    usage: 'a2a-lite tasks new --to AGENT [--skill S] [--priority P] [--body TEXT | -] [--attach NAME …] [--id ID]',
    help: `Starts a task for a peer: allocates a readable id (<skill>-001, …), records the task in
the ledger and prints the [A2A:task] message to send to AGENT.

example:
  a2a-lite tasks new --to mexico --skill email --body "帮我把这份调研报告发给鲁伊科斯塔。" --attach report.md`,
  },
  record: {
    run: recordCommand,
    usage: 'a2a-lite tasks record [TEXT] [--from PEER | --to PEER]',
    help: `Records protocol messages sent or received (every one in TEXT, or stdin) in the ledger.
A new task needs its peer: --from for a task you received, --to for one you sent. Later
messages find their task by id. An illegal state change (e.g. completed → working) is
refused (exit 5) and leaves the task as it was; when TEXT holds several messages, the ones
before a refused message stay recorded and are listed first. The same message recorded
twice in a row is reported as already recorded. Messages that concern no task (discover,
card, plain text) are skipped.

examples:
  a2a-lite tasks record --from jiajia "$MESSAGE_FROM_JIAJIA"
  a2a-lite tasks record '[A2A:status task=email-001 state=accepted]'`,
  },
  list: {
    run: list,
    usage: 'a2a-lite tasks list [--state S] [--peer P]',
    help: `Lists tasks, most recently changed first.

example:
  a2a-lite tasks list --state working`,
  },
  show: {
    run: show,
    usage: 'a2a-lite tasks show ID [--peer P]',
    help: `Shows one task: its state, result and whole history. --peer is needed only when two
peers used the same task id.

example:
  a2a-lite tasks show email-001`,
  },
  get: {
    run: async (args, context) => (await import('./tasks-remote.js')).remote('get', args, context),
    usage: 'a2a-lite tasks get ID [--peer P] [--token-env NAME] [--transport grpc|jsonrpc|rest] [--json]',
    help: `Asks the A2A agent a task was sent to (with a2a-lite send) where it stands, prints it as
A2A-Lite text, records any change in the ledger and saves returned files. The exit code is
the task's, as for send (0 completed, 10 failed, 11 rejected, 12 cancelled, 13 input
required, 14 credentials wanted).

example:
  a2a-lite tasks get 019aa6a8-5c3e-7d1f-9a2b-4c6d8e0f1a2b`,
  },
  cancel: {
    run: async (args, context) => (await import('./tasks-remote.js')).remote('cancel', args, context),
    usage: 'a2a-lite tasks cancel ID [--peer P] [--token-env NAME] [--transport grpc|jsonrpc|rest] [--json]',
    help: `Cancels a task at the A2A agent it was sent to (with a2a-lite send) and records the
outcome. A task that has already ended cannot be cancelled (exit 5).

example:
  a2a-lite tasks cancel 019aa6a8-5c3e-7d1f-9a2b-4c6d8e0f1a2b`,
  },
} satisfies Record<string, Subcommand>;

export const command: Command = commandGroup('tasks', 'The task ledger (tasks/ in the home): every task sent or received, its state and history.', SUBCOMMANDS);

async function newTaskCommand(args: string[], context: Context): Promise<number> {
  const { values, positionals } = parseOptions('tasks new', args, {
    to: { type: 'string' },
    skill: { type: 'string' },
    priority: { type: 'string' },
    body: { type: 'string' },
    attach: { type: 'string', multiple: true },
    id: { type: 'string' },
  });
  atMost('tasks new', positionals, 0);
  const peer = required('tasks new', values.to, '--to AGENT');
  const stores = openStores(values, context);
  const made = newTask(stores, { to: peer, skill: values.skill, priority: values.priority, body: await bodyFrom(values.body, context), attach: values.attach, id: values.id });
  if (values.json) {
    printJson(context, { id: made.id, peer, text: made.text, task: made.task });
    return 0;
  }
  for (const line of made.notes) note(context, line);
  const text = made.text;
  printLine(context, text);
  return 0;
}

async function recordCommand(args: string[], context: Context): Promise<number> {
  const { values, positionals } = parseOptions('tasks record', args, { from: { type: 'string' }, to: { type: 'string' } });
  if (values.from !== undefined && values.to !== undefined) throw new LiteError('USAGE', 'tasks record: give --from or --to, not both');
  const text = await messageText('tasks record', positionals, context);
  const { results, skipped, redacted, stopped } = recordMessages(openStores(values, context), text, { from: values.from, to: values.to });
  if (redacted) note(context, 'a credential in the message was stored as [redacted: …]; credentials never belong in messages');
  if (values.json) {
    printJson(
      context,
      results.map(({ summary: r, change, from }) => ({ id: r.id, peer: r.peer, change, from: from ?? null, state: r.state })),
    );
  } else {
    for (const message of skipped) {
      note(context, `skipped a ${message.type === 'plain' ? 'plain-text' : `[A2A:${message.type}]`} message: it concerns no task`);
    }
    if (results.length === 0 && stopped === undefined) printLine(context, 'nothing to record');
    for (const { summary: r, change, from } of results) printLine(context, describeChange(r, change, from));
  }
  if (stopped !== undefined) throw stopped;
  return 0;
}

function describeChange(r: TaskSummary, change: Applied['change'], from: string | undefined): string {
  const side = r.role === 'requester' ? `for ${r.peer}` : `from ${r.peer}`;
  if (change === 'created') return `${r.id} (${side}): recorded, ${r.state}`;
  if (change === 'duplicate') return `${r.id} (${side}): already recorded, ${r.state}`;
  if (from === r.state) return `${r.id} (${side}): message recorded, still ${r.state}`;
  return `${r.id} (${side}): ${from} → ${r.state}`;
}

function list(args: string[], context: Context): number {
  const { values, positionals } = parseOptions('tasks list', args, { state: { type: 'string' }, peer: { type: 'string' } });
  atMost('tasks list', positionals, 0);
  if (values.state !== undefined && !isTaskState(values.state)) {
    throw new LiteError('USAGE', `tasks list: --state ${JSON.stringify(values.state)} is not a task state`);
  }
  const filter = { ...(values.state ? { state: values.state as TaskSummary['state'] } : {}), ...(values.peer ? { peer: values.peer } : {}) };
  const records = openStores(values, context).tasks.list(filter);
  if (values.json) {
    printJson(context, records);
    return 0;
  }
  if (records.length === 0) {
    printLine(context, 'no tasks');
    return 0;
  }
  const rows = [['ID', 'PEER', 'ROLE', 'STATE', 'PROGRESS', 'UPDATED', 'ABOUT']];
  for (const r of records) {
    rows.push([r.id, r.peer, r.role, r.state, r.progress === undefined ? '-' : `${r.progress}%`, r.updatedAt.slice(0, 19), shorten(r.subject)]);
  }
  for (const line of table(rows)) printLine(context, line);
  return 0;
}

function show(args: string[], context: Context): number {
  const { values, positionals } = parseOptions('tasks show', args, { peer: { type: 'string' } });
  atMost('tasks show', positionals, 1);
  const r = openStores(values, context).tasks.get(required('tasks show', positionals[0], 'ID'), values.peer);
  if (values.json) {
    printJson(context, r);
    return 0;
  }
  const asked = r.role === 'requester' ? `we asked ${r.peer}` : `${r.peer} asked us`;
  printLine(context, `${r.id}: ${asked}${r.skill ? `, skill ${r.skill}` : ''}${r.priority ? `, priority ${r.priority}` : ''}`);
  const facts = [`state ${r.state}`, r.progress === undefined ? '' : `progress ${r.progress}%`, r.eta ? `eta ${r.eta}` : '', r.cancelRequested ? 'cancel requested' : ''];
  printLine(context, facts.filter(Boolean).join(', '));
  if (r.reason) printLine(context, `reason: ${r.reason}`);
  if (r.result) {
    printLine(context, `result: ${r.result.text.split('\n')[0] ?? ''}`);
    for (const name of r.result.attachments) printLine(context, `  attachment: ${name}`);
  }
  printLine(context, 'history:');
  const rows = r.history.map((e) => [e.at.slice(0, 19), e.direction === 'out' ? 'sent' : 'received', e.type, e.state, firstLine(e.body)]);
  for (const line of table(rows)) printLine(context, `  ${line}`);
  return 0;
}

function firstLine(text: string): string {
  return shorten(text.split('\n')[0] ?? '');
}

function shorten(line: string): string {
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}
