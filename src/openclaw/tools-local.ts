// The plugin's tools that work on this agent's own files and on message text: parse, format,
// the card, the known agents and the ledger. Each is what the skill does with `a2a-lite …` in a
// shell, in the form OpenClaw gives the model.

import { render, type Lang } from '../card/render.js';
import type { Skill } from '../card/types.js';
import { LiteError } from '../errors.js';
import { addAgent, newTask, recordMessages } from '../home/ledger-actions.js';
import { newCard, readOwnCard, writeOwnCard } from '../home/own-card.js';
import type { Stores } from '../home/stores.js';
import { format } from '../protocol/format.js';
import { parseAll } from '../protocol/parse.js';
import { isTaskState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import { isValid, refusal, validate } from '../protocol/validate.js';
import { bool, str, strings, type ToolSpec } from './tool-kit.js';
import { traceTextIn } from '../telemetry/carrier.js';

/** Opens the stores of the home the tool works in (per call: the workspace comes with the run). */
export type OpenStores = () => Stores;

const lang = str('Language of the card reply: zh or en (default en)', { enum: ['zh', 'en'] });
const home = 'The files live in the agent\'s a2a-lite home (<workspace>/.a2a-lite).';

export function localTools(open: OpenStores): ToolSpec[] {
  return [
    {
      name: 'a2a_lite_parse',
      label: 'A2A-Lite: parse',
      description: 'Parse chat text holding A2A-Lite messages ([A2A:type key=value …] headers) into type, params, body and attachments, with the protocol problems of each.',
      properties: { text: str('The chat text to parse') },
      required: ['text'],
      run(args) {
        const messages = parseAll(args.required('text')).map((m) => ({ type: m.type, params: { ...m.params }, body: m.body, attachments: m.attachments, warnings: m.warnings, problems: validate(m) }));
        return { text: JSON.stringify(messages, null, 2), details: { messages } };
      },
    },
    {
      name: 'a2a_lite_format',
      label: 'A2A-Lite: format',
      description: 'Write one A2A-Lite message (task, status, result, cancel, ack, discover, card) as the exact text to send, checked against the protocol: e.g. type status with params {task, state, progress}.',
      properties: {
        type: str('Message type: discover, card, task, status, result, cancel or ack'),
        params: { type: 'object', additionalProperties: { type: 'string' }, description: 'Header parameters, e.g. {"task":"research-001","state":"working","progress":"50%"}' },
        body: str('The message body'),
        attachments: strings('File names listed as attachments'),
      },
      required: ['type'],
      run(args, _signal, _progress, parent) {
        const params = args.object('params') ?? {};
        for (const [key, value] of Object.entries(params)) if (typeof value !== 'string') throw new LiteError('USAGE', `a2a_lite_format: param ${key} is a string`);
        const message: Message = { type: args.required('type'), params: params as Record<string, string>, body: args.string('body') ?? '', attachments: args.strings('attachments') ?? [] };
        // Chat has no headers: a task carries the trace on in its own (docs/observability.md).
        const trace = message.type === 'task' && message.params.traceparent === undefined ? traceTextIn(parent) : undefined;
        if (trace !== undefined) message.params = { ...message.params, ...trace };
        const problems = validate(message);
        if (!isValid(problems)) throw refusal(problems);
        const text = format(message);
        return { text, details: { message: text, problems } };
      },
    },
    {
      name: 'a2a_lite_card_show',
      label: 'A2A-Lite: show my card',
      description: `Show this agent's Agent Card as the [A2A:card] reply to send when a peer asks [A2A:discover]. ${home}`,
      properties: { lang },
      run(args) {
        const card = readOwnCard(open());
        return { text: render(card, langOf(args.string('lang'))), details: { card } };
      },
    },
    {
      name: 'a2a_lite_card_init',
      label: 'A2A-Lite: create my card',
      description: `Create this agent's Agent Card: its id, name and skills (validated; a card holding a credential is refused). An existing card is kept unless force. ${home}`,
      properties: {
        id: str('Agent id, e.g. jiajia'),
        name: str('Display name'),
        description: str('What the agent does'),
        framework: str('openclaw (default), clawdbot or other'),
        skills: {
          type: 'array',
          description: 'The skills offered',
          items: { type: 'object', properties: { id: str('Skill id'), name: str('Skill name'), description: str('What it does'), tags: strings('Tags') }, required: ['id', 'name'] },
        },
        channels: strings('Where peers reach this agent, e.g. discord:jiajia'),
        fileTransfer: bool('Can send and receive files'),
        streaming: bool('Sends progress while working'),
        force: bool('Replace an existing card'),
      },
      required: ['id', 'name'],
      run(args) {
        // The card's own validation names any field of a skill that is wrong.
        const skills = (args.objects('skills') ?? []).map((skill) => ({ description: '', ...skill }) as Skill);
        const card = newCard({
          id: args.required('id'),
          name: args.required('name'),
          description: args.string('description'),
          framework: args.string('framework'),
          skills,
          channels: args.strings('channels'),
          capabilities: { fileTransfer: args.boolean('fileTransfer') ?? false, streaming: args.boolean('streaming') ?? false },
        });
        const path = writeOwnCard(open(), card, args.boolean('force') === true);
        return { text: `wrote ${path} (${card.agent.name}, ${card.skills.length} skill${card.skills.length === 1 ? '' : 's'})\n\n${render(card, 'en')}`, details: { path, card } };
      },
    },
    {
      name: 'a2a_lite_agents_add',
      label: 'A2A-Lite: remember a peer',
      description: "Cache a peer's Agent Card: the [A2A:card] reply it sent in chat (or its JSON card). Re-adding updates it. A card holding a credential is refused.",
      properties: { card: str('The [A2A:card] reply as received, or a JSON card'), id: str('The agent id, when the reply does not give one'), channels: strings('Where this peer was reached, e.g. discord:mexico') },
      required: ['card'],
      run(args) {
        const { agent, replaced, found } = addAgent(open(), args.required('card'), { id: args.string('id'), channels: args.strings('channels') });
        const skills = agent.card.skills.map((s) => s.id).join(', ') || 'no skills';
        return { text: `${replaced ? 'updated' : 'added'} ${agent.card.agent.id} (${agent.card.agent.name}; ${skills})`, details: { id: agent.card.agent.id, replaced, card: agent.card, ...(found ? { found } : {}) } };
      },
    },
    {
      name: 'a2a_lite_agents_list',
      label: 'A2A-Lite: list known peers',
      description: 'List the peers this agent knows (from chat or discovered over A2A), optionally only those offering a skill.',
      properties: { skill: str('Only peers offering this skill (id, tag or name)') },
      run(args) {
        const skill = args.string('skill');
        const agents = open()
          .agents.list(skill === undefined ? {} : { skill })
          .map((a) => ({ id: a.card.agent.id, name: a.card.agent.name, framework: a.card.agent.framework, skills: a.card.skills.map((s) => s.id), channels: a.card.channels ?? [], a2a: a.cache.a2a?.interfaces[0]?.url ?? null }));
        const text = agents.length === 0 ? (skill ? `no known agent offers "${skill}"` : 'no known agents yet') : agents.map((a) => `${a.id} (${a.name}): ${a.skills.join(', ') || 'no skills'}${a.a2a ? ` · ${a.a2a}` : ''}`).join('\n');
        return { text, details: { agents } };
      },
    },
    {
      name: 'a2a_lite_agents_show',
      label: 'A2A-Lite: show a peer',
      description: "Show a known peer's cached card and how to call it.",
      properties: { id: str('The agent id') },
      required: ['id'],
      run(args) {
        const agent = open().agents.get(args.required('id'));
        return { text: render(agent.card, 'en'), details: { card: agent.card, cache: agent.cache } };
      },
    },
    {
      name: 'a2a_lite_tasks_new',
      label: 'A2A-Lite: start a task',
      description: 'Start a task for a peer over chat: allocates a readable id (research-001 …), records it in the ledger, and returns the [A2A:task] message to send to the peer.',
      properties: { to: str('The peer the task is for'), body: str('What to do'), skill: str('The skill asked for'), priority: str('low, normal, high or urgent'), attachments: strings('File names to list as attachments'), id: str('A task id of your own') },
      required: ['to', 'body'],
      run(args) {
        const made = newTask(open(), { to: args.required('to'), body: args.required('body'), skill: args.string('skill'), priority: args.string('priority'), attach: args.strings('attachments'), id: args.string('id') });
        return { text: [made.text, ...made.notes.map((n) => `(${n})`)].join('\n\n'), details: { id: made.id, peer: made.peer, message: made.text, notes: made.notes } };
      },
    },
    {
      name: 'a2a_lite_tasks_record',
      label: 'A2A-Lite: record messages',
      description: 'Record A2A-Lite messages sent or received in the ledger (incoming ones are recorded by the plugin already). A new task needs its peer: from for a task received, to for one sent. An illegal state change is refused and changes nothing.',
      properties: { text: str('The message text (may hold several messages)'), from: str('The peer it came from'), to: str('The peer it went to') },
      required: ['text'],
      run(args) {
        const { results, skipped, redacted, stopped } = recordMessages(open(), args.required('text'), { from: args.string('from'), to: args.string('to') });
        const lines = results.map(({ summary, change, from }) => `${summary.id} with ${summary.peer}: ${change}${from && from !== summary.state ? ` ${from} → ${summary.state}` : ` (${summary.state})`}`);
        if (redacted) lines.push('a credential in the message was stored redacted; credentials never belong in messages');
        if (skipped.length > 0) lines.push(`skipped ${skipped.length} message${skipped.length === 1 ? '' : 's'} that concern no task`);
        if (stopped !== undefined) throw stopped;
        return { text: lines.join('\n') || 'nothing to record', details: { recorded: results.map(({ summary, change, from }) => ({ id: summary.id, peer: summary.peer, change, from: from ?? null, state: summary.state })), skipped: skipped.length, redacted } };
      },
    },
    {
      name: 'a2a_lite_tasks_list',
      label: 'A2A-Lite: list tasks',
      description: 'List the tasks in the ledger (sent and received), newest first, optionally by state or peer.',
      properties: { state: str('Only tasks in this state (working, input-required, completed, …)'), peer: str('Only tasks with this peer') },
      run(args) {
        const state = args.string('state');
        if (state !== undefined && !isTaskState(state)) throw new LiteError('USAGE', `a2a_lite_tasks_list: "${state}" is not a task state`);
        const peer = args.string('peer');
        const tasks = open().tasks.list({ ...(state ? { state } : {}), ...(peer ? { peer } : {}) });
        const text = tasks.length === 0 ? 'no tasks' : tasks.map((t) => `${t.id} ${t.role === 'requester' ? '→' : '←'} ${t.peer} ${t.state}${t.progress !== undefined ? ` ${t.progress}%` : ''}: ${t.subject}`).join('\n');
        return { text, details: { tasks } };
      },
    },
    {
      name: 'a2a_lite_tasks_show',
      label: 'A2A-Lite: show a task',
      description: 'Show one task of the ledger with its whole history of messages.',
      properties: { id: str('The task id'), peer: str('The peer, when two peers used the same id') },
      required: ['id'],
      run(args) {
        const record = open().tasks.get(args.required('id'), args.string('peer'));
        const history = record.history.map((h) => `${h.direction === 'out' ? 'sent' : 'received'} ${format({ type: h.type, params: h.params, body: h.body, attachments: h.attachments })}`);
        return { text: [`${record.id} with ${record.peer}: ${record.state}`, ...history].join('\n\n'), details: { task: record } };
      },
    },
  ];
}

function langOf(value: string | undefined): Lang {
  if (value === undefined || value === 'en') return 'en';
  if (value === 'zh') return 'zh';
  throw new LiteError('USAGE', `lang is zh or en, not ${JSON.stringify(value)}`);
}
