// Giving a task to an A2A agent and following it to its end, as `a2a-lite send` and the OpenClaw
// plugin's `a2a_lite_send` tool both do: pick the agent (a URL, a known id, or a skill), build the
// message (text and attached files), follow the task, record every event in the ledger as
// A2A-Lite, save the files it returns, and cancel it at the agent when the caller aborts.

import type { Context } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import { HUB_EXTENSION, trailFromEnv, type HubTrail } from '../a2a/wire/hub-trail.js';
import { basename } from 'node:path';
import { ERROR_TABLE, LiteError, isLiteError } from '../errors.js';
import type { Stores } from '../home/stores.js';
import type { TaskRecord } from '../home/task-record.js';
import type { Task, TaskEvent, TaskMessage } from '../model/task.js';
import { isTerminal, type TaskState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import type { AddressGuardOptions } from '../net/address-guard.js';
import type { Binding } from '../model/remote-access.js';
import { TASK_ID } from '../protocol/validate.js';
import type { SavedFile } from './downloads.js';
import { chooseBySkill, credentialFor, isUrl, markAnswered, peerOf, resolvePeer, transportFor, type Peer } from './peer.js';
import { RemoteRecord, type Taken } from './remote-record.js';
import type { TokenRules } from './token-rules.js';
import { sendAndFollow } from './remote-task.js';
import type { Outcome } from './transport.js';
import { buildMessage, refuseCredentials } from './outgoing-message.js';

/** How long an abort waits for the agent to answer its cancel before it stops following. */
const CANCEL_WAIT_MS = 10_000;

/** How often a refused cancel is followed by a look at the task. */
const LOOKUPS = 4;

export { MAX_ATTACHMENT } from './outgoing-message.js';

export interface SendRequest {
  /** A URL or a known agent's id; left out, the agent is chosen by `skill`. */
  target?: string;
  skill?: string;
  text?: string;
  /** Files to send, relative to `cwd`. */
  attach?: readonly string[];
  /** The text answers a task that asked for input: `task`, else the newest such task. */
  reply?: boolean;
  task?: string;
  context?: string;
  /** Stream when the agent can (default true). */
  stream?: boolean;
  /** The environment variable holding the agent's token (never the token). */
  tokenEnv?: string;
  /** Send text that holds a credential shape, which is refused otherwise (`send --allow-credential-text`). */
  allowCredentialText?: boolean;
  /** The variables the caller may send, each bound to its origin (the OpenClaw plugin's); default any. */
  tokenRules?: TokenRules;
  /**
   * The hub's loop trail the message carries on (a2a/wire/hub-trail.ts): that of the task being
   * handled when this send is part of it. Default: the one in the environment (A2A_LITE_HUB_TRAIL).
   */
  trail?: HubTrail;
  /** How long to follow the task. */
  waitMs: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Aborting stops following and cancels the task at the agent. */
  signal?: AbortSignal;
  /** The agent, already resolved (a plan resolves each target once); `target` and `skill` then only describe it. */
  peer?: Peer;
  /** The message id, chosen beforehand so that it can be saved before the send (a plan's run state). */
  messageId?: string;
  /**
   * Sent as the `Idempotency-Key` (default: a new random key per send), so that the send may be
   * tried again safely: the agent takes it once.
   */
  idempotencyKey?: string;
  /** How many times a send that failed before the agent named a task is tried again (default 2). */
  sendRetries?: number;
  /** The tasks this one builds on (A2A 1.0 Message.referenceTaskIds). */
  referenceTaskIds?: readonly string[];
  /** More parameters for the task message the ledger records (a plan's run and step). */
  recordParams?: Record<string, string>;
  /** Note in the agent's cache entry that it answered (default true; a plan notes it once per agent). */
  markAnswered?: boolean;
  /** Check the address of every request (the card's, the agent's, each redirect) when it connects. */
  guard?: AddressGuardOptions;
  /** Call the agent's interface of this binding (`send --transport`), not the one a2a-lite prefers. */
  binding?: Binding;
  /** The parent of the calls' spans (a plan step's, a tool's), while tracing is on. */
  trace?: Context;
}

export interface SendListener {
  /** Why an agent was chosen by skill. */
  onChoice?(why: string): void;
  /** Each event, with the task so far and what it amounts to in A2A-Lite. */
  onEvent?(event: TaskEvent, task: Task | undefined, taken: Taken): void;
  /** A stream broke and is being resumed, or the reply went on in the task's context. */
  onNote?(text: string): void;
}

export interface SendResult {
  peer: Peer;
  /** The task as last seen; undefined when the agent answered with a message or none was named. */
  task: Task | undefined;
  /** Where it stands, as the agent's lite header says, else as A2A says; undefined for a message. */
  state: TaskState | undefined;
  record: RemoteRecord;
  files: SavedFile[];
  /** Set when the caller aborted: whether the agent cancelled the task, and why not. */
  interrupted?: { cancelled: boolean; error?: string };
  /** Set when the wait ran out with the task still going at the agent: the error saying so. */
  timedOut?: LiteError;
}

/**
 * Sends `request` and follows the task until it ends, asks for input, or `waitMs` passes.
 *
 * @example
 * const result = await sendTask(stores, { target: 'http://127.0.0.1:7331', text: 'Research A2A', waitMs: 600_000, cwd, env });
 * result.state; // 'completed'
 */
export async function sendTask(stores: Stores, request: SendRequest, listener: SendListener = {}): Promise<SendResult> {
  // Before anything, a card read included, goes out.
  if (request.allowCredentialText !== true) refuseCredentials([{ kind: 'text', text: request.text ?? '' }]);
  const note = listener.onNote ?? (() => {});
  let peer: Peer;
  let continued: TaskRecord | undefined;
  if (request.peer !== undefined) {
    peer = request.peer;
  } else if (request.reply === true) {
    continued = waitingTask(stores, request.task);
    peer = peerOf(stores.agents.get(continued.peer));
  } else if (request.target !== undefined) {
    if (!isUrl(request.target) && stores.agents.find(request.target) === undefined) {
      throw new LiteError('AGENT_NOT_FOUND', `send: "${request.target}" is neither a URL nor a known agent; give a URL, an id from a2a-lite agents list, or a skill`, { agent: request.target });
    }
    peer = await resolvePeer(request.target, stores.agents, { ...(request.tokenEnv === undefined ? {} : { tokenEnv: request.tokenEnv, tokenRules: request.tokenRules }), ...(request.guard === undefined ? {} : { guard: request.guard }) });
  } else if (request.skill !== undefined) {
    const choice = chooseBySkill(stores.agents, request.skill);
    peer = choice.peer;
    listener.onChoice?.(choice.why);
  } else {
    throw new LiteError('USAGE', 'send: name the agent (a URL or a known id) or a skill');
  }
  const text = request.text ?? '';
  const attach = request.attach ?? [];
  if (text === '' && attach.length === 0) throw new LiteError('USAGE', 'send: give the task text, or attach a file');

  const transport = transportFor(peer, credentialFor(peer, request.env, request.tokenEnv, request.tokenRules), { ...(request.guard && { guard: request.guard }), ...(request.binding && { binding: request.binding }), ...(request.trace && { trace: request.trace }) });
  const message = buildMessage(text, attach, request.cwd, request.skill);
  if (request.messageId !== undefined) message.messageId = request.messageId;
  if (request.referenceTaskIds?.length) message.referenceTaskIds = [...request.referenceTaskIds];
  // Sent while handling a task a hub relayed: the conversation's trail goes on, for the loop guard.
  const trail = request.trail ?? trailFromEnv(request.env);
  if (trail !== undefined) message.metadata = { ...message.metadata, [HUB_EXTENSION]: trail };
  const taskId = continued?.id ?? request.task;
  if (taskId !== undefined) message.taskId = taskId;
  const contextId = request.context ?? (continued ? contextOf(continued) : undefined);
  if (contextId !== undefined) message.contextId = contextId;

  const record = new RemoteRecord(stores, peer.id, note);
  const outgoing: Message = { type: 'task', params: {}, body: text, attachments: attach.map((f) => basename(f)) };
  if (request.skill) outgoing.params.skill = request.skill;
  Object.assign(outgoing.params, request.recordParams);
  let recorded = false;
  let current: Task | undefined;
  // An abort cancels the task at the agent first, and stops following only once the agent has
  // answered (or after CANCEL_WAIT_MS): an agent that cancels when its stream is closed would
  // otherwise refuse the cancel of a task it had just cancelled.
  const outer = request.signal ?? new AbortController().signal;
  const following = new AbortController();
  const signal = following.signal;
  let cancelled: Promise<Task | Error> | undefined;
  const onAbort = (): void => {
    if (current === undefined) {
      following.abort(outer.reason);
      return;
    }
    listener.onNote?.(`interrupted: cancelling task ${current.id} at the agent`);
    cancelled = transport.cancelTask(current.id).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    const stop = setTimeout(() => following.abort(outer.reason), CANCEL_WAIT_MS);
    void cancelled.then(() => {
      clearTimeout(stop);
      following.abort(outer.reason);
    });
  };
  if (outer.aborted) following.abort(outer.reason);
  else outer.addEventListener('abort', onAbort, { once: true });
  const idempotencyKey = request.idempotencyKey ?? randomUUID();
  const follow = (what: TaskMessage): Promise<Outcome> =>
    sendAndFollow(transport, what, {
      stream: request.stream !== false && peer.access.streaming,
      signal,
      deadline: Date.now() + request.waitMs,
      idempotencyKey,
      ...(request.sendRetries === undefined ? {} : { sendRetries: request.sendRetries }),
      onEvent: (event, task) => {
        current = task;
        if (!recorded && task !== undefined) {
          recorded = true;
          recordOutgoing(record, outgoing, task, continued !== undefined);
        }
        const taken = record.take(event, task);
        listener.onEvent?.(event, task, taken);
      },
      onResume: (how, error) => note(`${how === 'poll' ? 'polling' : how === 'send' ? 'sending again under the same key' : 'subscribing again'}: ${error instanceof Error ? error.message : String(error)}`),
    });

  let outcome: Outcome;
  try {
    try {
      outcome = await follow(message);
    } catch (error) {
      if (continued === undefined || message.taskId === undefined || signal.aborted || !endedThere(error)) throw error;
      // An agent that speaks A2A-Lite over plain A2A asked its question in a task it then ended
      // (OpenClaw's channel ends every answer): the answer goes on in the same context.
      note(`the agent ended task ${message.taskId} when it asked; sending the reply in its context instead`);
      const { taskId: ended, ...rest } = message;
      outcome = await follow({ ...rest, referenceTaskIds: [ended] });
    }
  } catch (error) {
    outer.removeEventListener('abort', onAbort);
    if (signal.aborted) return afterAbort(transport, current, cancelled, record, peer, listener);
    // The wait ran out while the task goes on: where it stands is an answer too.
    if (current !== undefined && isLiteError(error, 'PEER_UNREACHABLE') && (error.details as { deadline?: boolean } | undefined)?.deadline === true) {
      return { peer, task: current, state: record.stateOf(current), record, files: record.files, timedOut: error };
    }
    throw error;
  }
  outer.removeEventListener('abort', onAbort);
  try {
    if (request.markAnswered !== false) markAnswered(stores.agents, peer);
  } catch {
    // Routing works without it.
  }
  const task = outcome.kind === 'task' ? outcome.task : undefined;
  return { peer, task, state: task === undefined ? undefined : record.stateOf(task), record, files: record.files };
}

/**
 * After an abort: where the cancel left the task. A refused cancel is looked up: the agent may
 * have cancelled the task already (some do when a stream closes) and says "not cancelable".
 */
async function afterAbort(
  transport: ReturnType<typeof transportFor>,
  task: Task | undefined,
  cancelled: Promise<Task | Error> | undefined,
  record: RemoteRecord,
  peer: Peer,
  listener: SendListener,
): Promise<SendResult> {
  const result = (seen: Task | undefined, interrupted: SendResult['interrupted']): SendResult => ({
    peer,
    task: seen,
    state: seen === undefined ? undefined : record.stateOf(seen),
    record,
    files: record.files,
    ...(interrupted ? { interrupted } : {}),
  });
  if (task === undefined || cancelled === undefined) return result(task, { cancelled: false, error: 'interrupted before the agent named a task; nothing to cancel' });
  const show = (seen: Task): void => {
    // The stream may have brought the end already, before it was closed.
    const last = record.messages.at(-1);
    if (last?.type === 'result' && last.params.state === seen.status.state) return;
    const taken = record.take({ kind: 'task', task: seen }, seen);
    listener.onEvent?.({ kind: 'task', task: seen }, seen, taken);
  };
  const answer = await cancelled;
  if (!(answer instanceof Error)) {
    show(answer);
    // The agent may still be winding the task down.
    return result(answer, { cancelled: isTerminal(answer.status.state) });
  }
  // Asked a few times: the agent may learn of the closed stream just after the refusal.
  for (let attempt = 0; attempt < LOOKUPS; attempt += 1) {
    try {
      const now = await transport.getTask(task.id);
      if (isTerminal(now.status.state)) {
        show(now);
        return result(now, { cancelled: true });
      }
    } catch {
      break; // The refusal is the news.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return result(task, { cancelled: false, error: `the agent did not cancel task ${task.id}: ${answer.message}` });
}

/**
 * Records the task message once the agent has named the task; a reply goes on the record of the
 * task it answers, as a task message on the same id.
 */
function recordOutgoing(record: RemoteRecord, outgoing: Message, task: Task, isReply: boolean): void {
  if (!TASK_ID.test(task.id)) return;
  outgoing.params = { id: task.id, ...outgoing.params };
  if (task.contextId && !isReply) outgoing.params.context = task.contextId;
  record.record(outgoing, 'out');
}

/** The agent's refusal of a message to a task that has ended there. */
function endedThere(error: unknown): boolean {
  if (isLiteError(error, 'TASK_TERMINAL', 'TASK_NOT_FOUND')) return true;
  if (!isLiteError(error, 'PEER_ERROR')) return false;
  const details = error.details as { code?: unknown; reason?: unknown } | undefined;
  return details?.reason === ERROR_TABLE.UNSUPPORTED_OPERATION.reason || details?.code === ERROR_TABLE.UNSUPPORTED_OPERATION.rpc;
}

/** The newest task we sent that waits for input (or the one named). */
function waitingTask(stores: Stores, id: string | undefined): TaskRecord {
  if (id !== undefined) return stores.tasks.get(id);
  const waiting = stores.tasks.list().filter((t) => t.role === 'requester' && (t.state === 'input-required' || t.state === 'auth-required'));
  const newest = waiting.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
  if (newest === undefined) throw new LiteError('TASK_NOT_FOUND', 'send: no task sent from here is waiting for input to reply to; name one by its task id');
  return stores.tasks.get(newest.id, newest.peer);
}

/** The context id recorded with the task message. */
function contextOf(record: TaskRecord): string | undefined {
  return record.history.find((h) => h.type === 'task')?.params.context;
}
