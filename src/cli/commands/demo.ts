// `a2a-lite demo`: the protocol's complete example between 佳佳 and Mexico. Every message is
// written with `format`, read back with `parse` by the other agent, and recorded in each
// agent's own ledger and known-agents cache, in temporary homes.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCardReply } from '../../card/parse-reply.js';
import { render } from '../../card/render.js';
import { jiajiaCard, mexicoCard } from '../../card/examples.js';
import type { LiteCard } from '../../card/types.js';
import { assertCard } from '../../card/validate.js';
import { LiteError } from '../../errors.js';
import { format } from '../../protocol/format.js';
import { parse } from '../../protocol/parse.js';
import type { Message, ParsedMessage } from '../../protocol/types.js';
import { isValid, validate } from '../../protocol/validate.js';
import { AgentDirectory, offers } from '../../home/known-agents.js';
import { writeFileAtomic } from '../../home/atomic-file.js';
import { homePaths } from '../../home/home.js';
import { FileTaskLedger } from '../../home/task-ledger.js';
import { atMost, parseOptions } from '../args.js';
import type { Command, Context } from '../context.js';
import { printJson, printLine } from '../output.js';
import type { TaskRecord } from '../../home/task-record.js';

export const command: Command = {
  usage: 'a2a-lite demo [--chat] [--keep] [--json]',
  help: `Plays the protocol's complete example. By default over real HTTP: 佳佳 (Clawdbot, research)
and Mexico (OpenClaw, email) each run \`a2a-lite serve\` on a loopback port with a small
deterministic program and a SQLite home of their own. You ask 佳佳 for a research report;
佳佳's program writes it, discovers Mexico and has it e-mail the report (with a2a-lite
discover and send); the report comes back to you as a file. Every event prints as A2A-Lite.
Last, a plan (a2a-lite run) sends the report to three people at once through Mexico, a
parallel fan-out, then has Mexico confirm.

With --chat, the same example as chat text instead: 佳佳 discovers Mexico, caches its card,
sends it an e-mail task with an attachment, and Mexico accepts and completes it; each message
is written with format and read back with parse, and recorded in both ledgers.

options:
  --chat   the chat-text version (no servers)
  --keep   keep the homes afterwards and print where they are
  --json   print the exchange and the final task records as JSON

example:
  a2a-lite demo --keep`,
  async run(args, context) {
    const { values, positionals } = parseOptions('demo', args, { keep: { type: 'boolean' }, chat: { type: 'boolean' } });
    atMost('demo', positionals, 0);
    const root = mkdtempSync(join(tmpdir(), 'a2a-lite-demo-'));
    try {
      const json = values.json === true;
      const report = values.chat ? play(root, context, json) : await (await import('./demo-http.js')).playOverHttp(root, context, json);
      if (json) printJson(context, values.keep ? { ...report, homes: root } : report);
      else if (values.keep) printLine(context, `\nThe homes are kept in ${root}`);
      return 0;
    } finally {
      if (!values.keep) rmSync(root, { recursive: true, force: true });
    }
  },
};

interface Agent {
  card: LiteCard;
  agents: AgentDirectory;
  tasks: FileTaskLedger;
}

function makeAgent(root: string, card: LiteCard): Agent {
  const dir = join(root, card.agent.id);
  mkdirSync(dir, { recursive: true });
  const paths = homePaths(dir);
  writeFileAtomic(paths.card, `${JSON.stringify(assertCard(card), null, 2)}\n`);
  return { card, agents: new AgentDirectory(paths.knownAgents), tasks: new FileTaskLedger(paths.tasks) };
}

/** What `--json` prints: every message sent, in order, and both agents' final records. */
interface DemoReport {
  transcript: { from: string; to: string; text: string }[];
  ledgers: { jiajia: TaskRecord; mexico: TaskRecord };
}

function play(root: string, context: Context, json: boolean): DemoReport {
  const transcript: DemoReport['transcript'] = [];
  const jiajia = makeAgent(root, jiajiaCard());
  const mexico = makeAgent(root, mexicoCard());
  const say = (line = ''): void => {
    if (!json) printLine(context, line);
  };
  const aside = (line: string): void => say(`   · ${line}`);

  /** Sends `message` from one agent to the other: formatted, then parsed by the receiver. */
  const send = (from: Agent, to: Agent, message: Message): ParsedMessage => {
    const text = format(message);
    transcript.push({ from: from.card.agent.id, to: to.card.agent.id, text });
    say(`── ${from.card.agent.name} → ${to.card.agent.name} ${'─'.repeat(40)}`);
    say(text);
    const received = parse(text);
    if (!isValid(validate(received)) || received.warnings.length > 0) {
      throw new LiteError('INTERNAL', `the demo sent a message that does not read back cleanly: ${text}`);
    }
    return received;
  };
  const recordBoth = (sender: Agent, receiver: Agent, message: ParsedMessage): void => {
    sender.tasks.record(message, { direction: 'out', peer: receiver.card.agent.id });
    const { summary, from } = receiver.tasks.record(message, { direction: 'in', peer: sender.card.agent.id });
    aside(`${receiver.card.agent.name}'s ledger: ${summary.id} ${from === undefined ? `recorded as ${summary.state}` : `${from} → ${summary.state}`}`);
  };

  say('A2A-Lite demo: 佳佳 (Clawdbot) and Mexico (OpenClaw) work together through the protocol.');
  say('Each agent has its own card, known-agents/ cache and task ledger.');
  say();

  // 1. Discovery: 佳佳 asks, Mexico answers with its card, 佳佳 caches it.
  const discover = send(jiajia, mexico, { type: 'discover', params: {}, body: '你好！我想了解一下你的能力，看看我们能不能协作完成一个任务。', attachments: [] });
  if (discover.type !== 'discover') throw new LiteError('INTERNAL', 'Mexico did not read a discover message');
  say();
  const cardReply = parse(render(mexico.card, 'zh'));
  send(mexico, jiajia, cardReply);
  const learned = parseCardReply(format(cardReply)).card;
  learned.channels = ['discord:mexico'];
  const { agent } = jiajia.agents.add(learned, 'chat');
  aside(`佳佳 cached Mexico's card: skills ${agent.card.skills.map((s) => s.id).join(', ')} → known-agents/mexico.json`);
  say();

  // 2. The task: 佳佳 picks Mexico for e-mail, allocates an id and sends the task.
  const chosen = jiajia.agents.list({ skill: 'email' })[0];
  if (chosen === undefined) throw new LiteError('INTERNAL', '佳佳 found no agent for e-mail');
  aside(`佳佳 looks up who offers "email": ${chosen.card.agent.name}`);
  const id = jiajia.tasks.allocateId('email');
  const task = send(jiajia, mexico, {
    type: 'task',
    params: { id, skill: 'email' },
    body: ['帮我把这份调研报告发给鲁伊科斯塔。', '收件人：ruicosta@example.com', '主题：AI Agent 调研报告', '正文：请查收附件中的调研报告。'].join('\n'),
    attachments: ['ai-agent-research.md'],
  });
  recordBoth(jiajia, mexico, task);
  if (!offers(mexico.card, task.params.skill ?? '')) throw new LiteError('INTERNAL', 'Mexico cannot do this task');
  say();

  // 3. Mexico accepts, then reports the result.
  const accepted = send(mexico, jiajia, { type: 'status', params: { task: id, state: 'accepted' }, body: '收到，正在发送邮件。', attachments: [] });
  recordBoth(mexico, jiajia, accepted);
  say();
  const result = send(mexico, jiajia, {
    type: 'result',
    params: { task: id, state: 'completed' },
    body: '邮件已成功发送到 ruicosta@example.com。',
    attachments: [],
  });
  recordBoth(mexico, jiajia, result);
  say();

  // 4. Both ledgers must tell the same story.
  const mine = jiajia.tasks.get(id, 'mexico');
  const theirs = mexico.tasks.get(id, 'jiajia');
  if (mine.state !== 'completed' || theirs.state !== 'completed' || mine.history.length !== theirs.history.length) {
    throw new LiteError('INTERNAL', `the two ledgers disagree: 佳佳 has ${mine.state}, Mexico has ${theirs.state}`);
  }
  say('Ledgers at the end:');
  say(`  佳佳   ${mine.id}  asked ${mine.peer}   ${mine.state}  ${mine.history.length} messages  result: ${mine.result?.text ?? ''}`);
  say(`  Mexico ${theirs.id}  for ${theirs.peer}    ${theirs.state}  ${theirs.history.length} messages`);
  say();
  say('佳佳 answers the result with REPLY_SKIP (on a shared gateway) so the exchange ends there.');
  return { transcript, ledgers: { jiajia: mine, mexico: theirs } };
}
