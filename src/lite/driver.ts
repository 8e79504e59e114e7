// Drives an agent from A2A-Lite chat text: each protocol message in a chat message becomes a
// runtime call, and what the task then does comes back as lite replies. Never throws.
//
//   [A2A:discover]          ──► the [A2A:card] reply
//   [A2A:task id=X]         ──► agent.stream ──► status accepted · status … · result completed
//                                                 (failed, rejected, cancelled: a status)
//   [A2A:task id=X] again   ──► the reply to input-required: resumes the same runtime task
//   [A2A:cancel task=X]     ──► agent.cancel ──► status cancelled
//   status · result · ack   ──► the ledger only
//
// Which runtime task serves which lite task is remembered per agent (lite-tasks.ts).

import { render } from '../card/render.js';
import { format } from '../protocol/format.js';
import { messageOf } from '../protocol/message.js';
import { parseAll } from '../protocol/parse.js';
import { isTerminal, type TaskState } from '../protocol/states.js';
import type { Message, ParsedMessage, Problem } from '../protocol/types.js';
import { isValid, TASK_ID, validate } from '../protocol/validate.js';
import { redactCredentials } from '../secrets.js';
import type { Direction } from '../home/task-record.js';
import type { Agent } from '../runtime/agent.js';
import { fileNames, liteState, resultMessage, statusMessage } from './task-text.js';
import type { LiteLedger, LiteReceiveOptions } from './driver-options.js';
import { requestOf } from './request.js';
import { liteTasksOf, type LiteTask, type LiteTasks } from './lite-tasks.js';
import { WORDS, type Words } from './words.js';
import { textOf, type Artifact, type TaskEvent, type TaskStatus } from '../model/task.js';

/** A problem quoted in a refusal is cut here: it may echo a hostile value. */
const MAX_PROBLEM = 300;

/**
 * Handles the A2A-Lite messages in `text` from peer `options.from`, in order, and resolves with
 * every reply once each task it started or resumed has ended or asks for input. Replies are
 * formatted A2A-Lite text (or plain text for a refusal), also passed to `onReply` as they happen.
 *
 * @example
 * const replies = await receiveLite(agent, '[A2A:task id=email-001 skill=email]\n发邮件…', { from: 'jiajia' });
 * // ['[A2A:status task=email-001 state=accepted]\n收到，开始处理。', '[A2A:result task=email-001 state=completed]\n…']
 */
export async function receiveLite(agent: Agent, text: string, options: LiteReceiveOptions): Promise<string[]> {
  const exchange = new Exchange(agent, options);
  // Each message starts in order; a task runs on while the next is handled, so that a cancel
  // later in the same text reaches it.
  const running: Promise<void>[] = [];
  for (const message of parseAll(text)) {
    try {
      const run = await exchange.handle(message);
      if (run !== undefined) running.push(run.rest.catch((error: unknown) => exchange.report(error)));
    } catch (error) {
      exchange.report(error);
    }
  }
  await Promise.all(running);
  return exchange.replies;
}

/** The rest of a task's run, once it has started (wrapped: a promise would be awaited away). */
interface Running {
  rest: Promise<void>;
}

class Exchange {
  readonly replies: string[] = [];
  private readonly agent: Agent;
  private readonly options: LiteReceiveOptions;
  private readonly from: string;
  private readonly words: Words;
  private readonly tasks: LiteTasks;

  constructor(agent: Agent, options: LiteReceiveOptions) {
    this.agent = agent;
    this.options = options;
    this.from = options.from;
    this.words = WORDS[options.lang ?? 'zh'];
    this.tasks = liteTasksOf(agent);
  }

  /** Handles one message; for a task, resolves once it has started and returns the rest of its run. */
  async handle(message: ParsedMessage): Promise<Running | undefined> {
    if (message.type === 'plain') return undefined;
    const problems = validate(message);
    if (!isValid(problems)) {
      this.refuse(message, problems);
      return undefined;
    }
    switch (message.type) {
      case 'discover':
        this.send(render(this.agent.card, this.options.lang));
        return undefined;
      case 'task':
        return this.task(message);
      case 'cancel':
        await this.cancel(message);
        return undefined;
      case 'status':
      case 'result':
      case 'ack':
        this.record(messageOf(message), 'in');
        return undefined;
      default:
        // A card, or a type from a later version: nothing to answer.
        return undefined;
    }
  }

  report(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // The caller's error hook failed too; there is no one left to tell.
    }
  }

  /** An invalid task with a usable id fails; anything else gets a plain-text explanation. */
  private refuse(message: ParsedMessage, problems: readonly Problem[]): void {
    const errors = problems.filter((p) => p.level === 'error').map((p) => clip(p.message));
    const explanation = this.words.invalid(clip(message.type), errors);
    const id = message.type === 'task' ? message.params.id : undefined;
    // A reused id belongs to a task that is still under way: failing it would end that one.
    if (id !== undefined && TASK_ID.test(id) && !this.tasks.has(this.from, id)) {
      // Not recorded: the ledger never took the task, so it has nothing to fail.
      this.say(liteMessage('status', { task: id, state: 'failed' }, explanation), false);
    } else {
      this.sendPlain(explanation);
    }
  }

  private async task(message: ParsedMessage): Promise<Running | undefined> {
    const id = message.params.id as string;
    const known = this.tasks.get(this.from, id);
    if (known !== undefined) return this.reply(id, known, message);
    if (this.answeredFromLedger(id, message)) return undefined;
    const entry: LiteTask = {};
    this.tasks.remember(this.from, id, entry);
    this.record(messageOf(message), 'in');
    let events: AsyncIterable<TaskEvent>;
    try {
      const options: { from: string; skill?: string } = { from: this.from };
      if (message.params.skill) options.skill = message.params.skill;
      events = await this.agent.stream(requestOf(message, id, this.from), options);
    } catch (error) {
      entry.ended = true;
      this.say(liteMessage('status', { task: id, state: 'failed' }, this.words.couldNotStart(errorText(error))));
      return undefined;
    }
    return this.follow(id, entry, events, false);
  }

  /** A task message for a task we know: the answer to its question, or a clear refusal. */
  private async reply(id: string, entry: LiteTask, message: ParsedMessage): Promise<Running | undefined> {
    const state = await this.stateOf(entry);
    if (isTerminal(state)) {
      this.sendPlain(this.words.ended(id, state));
      return undefined;
    }
    if (state !== 'input-required' || entry.runtimeId === undefined) {
      this.sendPlain(this.words.notWaiting(id, state));
      return undefined;
    }
    this.record(messageOf(message), 'in');
    let events: AsyncIterable<TaskEvent>;
    try {
      events = await this.agent.stream({ ...requestOf(message, id, this.from), taskId: entry.runtimeId }, { from: this.from });
    } catch {
      // A cancel or another reply came first.
      this.sendPlain(this.words.notWaiting(id, (await this.agent.getTask(entry.runtimeId)).status.state));
      return undefined;
    }
    return this.follow(id, entry, events, true);
  }

  /**
   * A task id that the ledger holds for this peer but this process never saw: a task from
   * before a restart (its run is gone), or an id already used the other way round.
   */
  private answeredFromLedger(id: string, message: ParsedMessage): boolean {
    const ledger = this.options.ledger;
    let known: ReturnType<LiteLedger['get']> | undefined;
    try {
      known = ledger?.has(id, this.from) ? ledger.get(id, this.from) : undefined;
    } catch (error) {
      this.report(error);
    }
    if (known === undefined) return false;
    if (known.role === 'worker' && !isTerminal(known.state)) {
      this.record(messageOf(message), 'in');
      this.say(liteMessage('status', { task: id, state: 'failed' }, this.words.lost(id)));
    } else {
      this.sendPlain(this.words.idTaken(id, known.state));
    }
    return true;
  }

  /**
   * Answers at once (accepted for a new task, working for a resumed one), then returns the run
   * that says each later update.
   */
  private async follow(id: string, entry: LiteTask, events: AsyncIterable<TaskEvent>, resumed: boolean): Promise<Running | undefined> {
    const iterator = events[Symbol.asyncIterator]();
    // The stream starts with the task as it is now: answered before the next message is handled.
    const first = await iterator.next();
    if (first.done || first.value.kind !== 'task') return undefined;
    const { task } = first.value;
    entry.runtimeId = task.id;
    const artifacts: Artifact[] = [...task.artifacts];
    if (!resumed) {
      this.sayState(id, entry, task.status, artifacts, this.words.accepted);
    } else {
      // The runtime moved the task to working on the reply; a quick handler may already have
      // gone further before this stream began, and then the task as it is now says so.
      this.say(liteMessage('status', { task: id, state: 'working' }, this.words.resumed));
      if (task.status.state !== 'working' || task.status.message !== undefined) this.sayState(id, entry, task.status, artifacts);
    }
    const rest = async (): Promise<void> => {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        const event = next.value;
        if (event.kind === 'artifact') artifacts.push(event.artifact);
        else if (event.kind === 'status') this.sayState(id, entry, event.status, artifacts);
      }
    };
    return { rest: rest() };
  }

  private async cancel(message: ParsedMessage): Promise<void> {
    const id = message.params.task as string;
    const entry = this.tasks.get(this.from, id);
    if (entry === undefined) return this.sendPlain(this.words.noTask(id));
    const state = await this.stateOf(entry);
    if (isTerminal(state)) return this.sendPlain(this.words.cannotCancel(id, state));
    // Still being made by a concurrent call: rare enough to answer as unknown.
    if (entry.runtimeId === undefined) return this.sendPlain(this.words.noTask(id));
    this.record(messageOf(message), 'in');
    entry.cancelled = true;
    try {
      await this.agent.cancel(entry.runtimeId);
    } catch {
      // It ended on its own meanwhile, and its follower said how.
      entry.cancelled = false;
      return this.sendPlain(this.words.cannotCancel(id, (await this.agent.getTask(entry.runtimeId)).status.state));
    }
    entry.ended = true;
    this.say(liteMessage('status', { task: id, state: 'cancelled' }, this.words.cancelled));
  }

  /** A task that never got a runtime task either failed to start or is being made. */
  private async stateOf(entry: LiteTask): Promise<TaskState> {
    if (entry.runtimeId !== undefined) return (await this.agent.getTask(entry.runtimeId)).status.state;
    return entry.ended ? 'failed' : 'submitted';
  }

  /** Says one state of a task: a status, or the result when it completed. */
  private sayState(id: string, entry: LiteTask, status: TaskStatus, artifacts: readonly Artifact[], fallback = ''): void {
    // The runtime's first state; lite has no `submitted` on the wire and answers `accepted`.
    const state = liteState(status.state);
    if (state === 'cancelled' && entry.cancelled) return;
    if (isTerminal(state)) entry.ended = true;
    if (state === 'completed') {
      this.say(resultMessage(id, status, artifacts, fileNames(artifacts), this.words.done));
      return;
    }
    this.say(statusMessage(id, status, textOf(status.message) || fallback || this.words.ending(state)));
  }

  /** Sends a protocol reply and records it in the ledger (unless `record` is false). */
  private say(message: Message, record = true): void {
    const safe: Message = {
      type: message.type,
      params: Object.fromEntries(Object.entries(message.params).map(([k, v]) => [k, redactCredentials(v)])),
      body: bodyText(message.body),
      attachments: message.attachments.map((name) => redactCredentials(name)),
    };
    if (record) this.record(safe, 'out');
    this.send(format(safe));
  }

  private sendPlain(text: string): void {
    this.send(format(liteMessage('plain', {}, bodyText(text))));
  }

  private send(reply: string): void {
    this.replies.push(reply);
    try {
      this.options.onReply?.(reply);
    } catch (error) {
      this.report(error);
    }
  }

  /** The ledger is a record, not a gate: its refusals are reported and never stop a task. */
  private record(message: Message, direction: Direction): void {
    try {
      this.options.ledger?.record(message, { direction, peer: this.from });
    } catch (error) {
      this.report(error);
    }
  }
}

function liteMessage(type: string, params: Record<string, string>, body: string, attachments: string[] = []): Message {
  return { type, params, body, attachments };
}

/** Text as a reply body: one kind of line break, and no credential. */
const bodyText = (text: string): string => redactCredentials(text.replace(/\r\n?/g, '\n'));
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
const clip = (text: string): string => (text.length > MAX_PROBLEM ? `${text.slice(0, MAX_PROBLEM)}…` : text);
const errorText = (error: unknown): string => oneLine(error instanceof Error ? error.message : String(error));
