// What an agent does with its ledger and its known agents, whoever asks: the CLI (`tasks new`,
// `tasks record`, `agents add`) and the OpenClaw plugin's tools and inbound hook.

import { parseCardReply } from '../card/parse-reply.js';
import { LiteError } from '../errors.js';
import { parseJson } from '../json-text.js';
import { format } from '../protocol/format.js';
import { parseAll } from '../protocol/parse.js';
import type { Message } from '../protocol/types.js';
import { isValid, refusal, TASK_ID, validate } from '../protocol/validate.js';
import { offers, type KnownAgent } from './known-agents.js';
import type { Stores } from './stores.js';
import { isTaskMessage, type Applied, type TaskSummary } from './task-record.js';

export interface NewTask {
  to: string;
  skill?: string | undefined;
  priority?: string | undefined;
  body: string;
  attach?: readonly string[] | undefined;
  /** A readable id is allocated (`<skill>-001`, …) unless one is given. */
  id?: string | undefined;
}

export interface NewTaskResult {
  id: string;
  peer: string;
  /** The [A2A:task] message to send. */
  text: string;
  task: TaskSummary;
  /** Things worth telling: an unknown peer, a skill its card does not list. */
  notes: string[];
}

/** Starts a task for a peer: allocates its id, records it, and gives the message to send. */
export function newTask(stores: Stores, request: NewTask): NewTaskResult {
  const peer = request.to;
  if (request.id !== undefined) {
    if (!TASK_ID.test(request.id)) throw new LiteError('USAGE', `tasks new: the id ${JSON.stringify(request.id)} is not a valid task id`);
    if (stores.tasks.has(request.id, peer)) throw new LiteError('TASK_EXISTS', `task "${request.id}" with ${peer} is already in the ledger`);
  }
  const params: Record<string, string> = { id: request.id ?? '' };
  if (request.skill) params.skill = request.skill;
  if (request.priority) params.priority = request.priority;
  const message: Message = { type: 'task', params, body: request.body, attachments: [...(request.attach ?? [])] };
  // Validate before allocating, so a refused task burns no id.
  const problems = validate({ ...message, params: { ...params, id: params.id || 'x' } });
  if (!isValid(problems)) throw refusal(problems);
  params.id = request.id ?? stores.tasks.allocateId(request.skill ?? 'task');
  const { summary } = stores.tasks.record(message, { direction: 'out', peer });
  const notes: string[] = [];
  const known = stores.agents.find(peer);
  if (known === undefined) notes.push(`"${peer}" is not in known-agents; the task is recorded anyway`);
  else if (request.skill && !offers(known.card, request.skill)) notes.push(`${peer}'s card lists no skill "${request.skill}"`);
  return { id: summary.id, peer, text: format(message), task: summary, notes };
}

export interface Recorded {
  /** What each task message did to its task, in order. */
  results: Applied[];
  /** Messages that concern no task (discover, card, plain text). */
  skipped: Message[];
  /** A credential in a message was stored as `[redacted: …]`. */
  redacted: boolean;
  /** The refusal that stopped the recording (the messages before it stay recorded). */
  stopped?: unknown;
}

/**
 * Records every protocol message in `text`. A new task needs its peer: `from` for one received,
 * `to` for one sent; later messages find their task by id. Messages are recorded in order; when
 * one is refused, those before it stay recorded and `stopped` names where it stopped.
 */
export function recordMessages(stores: Stores, text: string, who: { from?: string | undefined; to?: string | undefined } = {}): Recorded {
  if (who.from !== undefined && who.to !== undefined) throw new LiteError('USAGE', 'tasks record: give the peer it came from or the peer it went to, not both');
  const messages = parseAll(text);
  const relevant = messages.filter(isTaskMessage);
  let redacted = false;
  for (const message of relevant) {
    // A credential in a message is not a reason to lose the message: the ledger redacts it.
    const all = validate(message);
    if (all.some((p) => p.code === 'CREDENTIAL_IN_MESSAGE')) redacted = true;
    const problems = all.filter((p) => p.code !== 'CREDENTIAL_IN_MESSAGE');
    if (!isValid(problems)) throw refusal(problems, `[A2A:${message.type}] refused`);
  }
  const peer = who.from ?? who.to;
  const direction = who.from !== undefined ? 'in' : who.to !== undefined ? 'out' : undefined;
  const recorded: Recorded = { results: [], skipped: messages.filter((m) => !isTaskMessage(m)), redacted };
  for (const [index, message] of relevant.entries()) {
    try {
      recorded.results.push(stores.tasks.record(message, { ...(peer === undefined ? {} : { peer }), ...(direction === undefined ? {} : { direction }) }));
    } catch (error) {
      recorded.stopped = relevant.length > 1 && error instanceof LiteError ? new LiteError(error.code, `message ${index + 1} of ${relevant.length}: ${error.message}`, error.details) : error;
      break;
    }
  }
  return recorded;
}

export interface AddedAgent {
  agent: KnownAgent;
  replaced: boolean;
  /** For a chat reply: the fields read from it. */
  found?: string[];
}

/**
 * Caches a peer's card, given as a JSON card or as the [A2A:card] reply received in chat (the
 * card is rebuilt from it); `id` names the agent when a reply does not.
 */
export function addAgent(stores: Stores, text: string, options: { id?: string | undefined; channels?: readonly string[] | undefined; source?: string; idHint?: string } = {}): AddedAgent {
  let card: Record<string, unknown>;
  let origin: string;
  let found: string[] | undefined;
  if (text.trimStart().startsWith('{')) {
    const parsed = parseJson(text, options.source ?? 'the card');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new LiteError('INVALID_CARD', 'a card is a JSON object');
    card = { ...(parsed as Record<string, unknown>) };
    origin = 'file';
  } else {
    const reply = parseCardReply(text);
    if (reply.type !== 'card' && reply.type !== 'plain') {
      throw new LiteError('CARD_REPLY_INCOMPLETE', `this is an [A2A:${reply.type}] message, not a card: give an [A2A:card] reply or a JSON card`);
    }
    if (options.id) reply.card.agent.id = options.id;
    const missing = reply.missing.filter((field) => !(field === 'agent.id' && options.id));
    if (missing.length > 0) {
      const hint = missing.includes('agent.id') && !missing.includes('agent.name') ? (options.idHint ?? '; name its id') : '';
      throw new LiteError('CARD_REPLY_INCOMPLETE', `the reply does not say ${missing.join(' or ')}${hint}`, { found: reply.found });
    }
    card = reply.card;
    origin = 'chat';
    found = reply.found;
  }
  if (options.channels && options.channels.length > 0) {
    const channels = Array.isArray(card.channels) ? (card.channels as unknown[]) : [];
    card.channels = [...new Set([...channels, ...options.channels])];
  }
  const { agent, replaced } = stores.agents.add(card, origin);
  return found === undefined ? { agent, replaced } : { agent, replaced, found };
}
