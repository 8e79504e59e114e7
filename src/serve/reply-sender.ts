// Answers for peers that never come back for them. Some A2A clients send and forget: OpenClaw's
// a2a channel sends one SendMessage with returnImmediately, reads the task id, and never polls,
// subscribes or registers a webhook. For such a peer, named by the principal it authenticates
// as, `serve --reply-to` sends the answer back as a message of its own: when a task the peer
// made ends or asks for input, one SendMessage goes to the peer's A2A endpoint, with the peer's
// token, carrying the A2A-Lite text of the answer under the peer's own task id (the one its
// [A2A:task id=…] header gave), in the same context.

import { randomUUID } from 'node:crypto';
import { messageToV1 } from '../a2a/wire/v1.js';
import { callJsonRpc } from '../net/jsonrpc.js';
import { liftTaskHeader } from '../lite/request.js';
import { fileNames, resultMessage, statusMessage } from '../lite/task-text.js';
import type { Part, Task, TaskEvent } from '../model/task.js';
import { textOf } from '../model/task.js';
import { format } from '../protocol/format.js';
import { isSettled, isTerminal } from '../protocol/states.js';
import type { Agent } from '../runtime/agent.js';

/** Where a peer's answers go: its A2A JSON-RPC endpoint, and the token it accepts there. */
export interface ReplyPeer {
  url: string;
  token?: string;
}

export interface ReplySenderOptions {
  agent: Agent;
  /** By principal: the peers to answer. */
  peers: ReadonlyMap<string, ReplyPeer>;
  log: (line: string) => void;
  /** Attempts per answer, with doubling pauses between them (default 4, from 1 s). */
  attempts?: number;
  pauseMs?: number;
}

export interface ReplySender {
  /** Resolves when every answer under way has been sent or given up. */
  close(): Promise<void>;
}

/** Starts answering the peers named in `options.peers`. */
export function startReplySender(options: ReplySenderOptions): ReplySender {
  const pending = new Set<Promise<void>>();
  // The last state answered per task, so that a repeated event sends nothing twice.
  const answered = new Map<string, string>();
  const stop = options.agent.observe((event: TaskEvent, task: Task, owner: string | undefined) => {
    if (owner === undefined || event.kind !== 'status') return;
    const peer = options.peers.get(owner);
    if (peer === undefined || !isSettled(task.status.state)) return;
    const key = `${task.status.state}@${task.status.timestamp ?? ''}`;
    if (answered.get(task.id) === key) return;
    answered.set(task.id, key);
    if (isTerminal(task.status.state)) setTimeout(() => answered.delete(task.id), 60_000).unref();
    const work = deliver(peer, owner, task, options).finally(() => pending.delete(work));
    pending.add(work);
  });
  return {
    async close() {
      stop();
      await Promise.all([...pending]);
    },
  };
}

/** The answer as the peer reads it: A2A-Lite text under the peer's task id, and the files. */
export function replyFor(task: Task): { text: string; files: Extract<Part, { kind: 'file' }>[] } {
  const first = task.history[0];
  const theirs = first === undefined ? undefined : liftTaskHeader(textOf(first));
  const id = theirs?.id ?? task.id;
  const files = task.artifacts.flatMap((a) => a.parts.filter((p): p is Extract<Part, { kind: 'file' }> => p.kind === 'file'));
  const message = isTerminal(task.status.state) ? resultMessage(id, task.status, task.artifacts, fileNames(task.artifacts)) : statusMessage(id, task.status);
  return { text: format(message), files };
}

async function deliver(peer: ReplyPeer, owner: string, task: Task, options: ReplySenderOptions): Promise<void> {
  const { text, files } = replyFor(task);
  const message = { messageId: randomUUID(), role: 'user' as const, contextId: task.contextId, parts: [{ kind: 'text' as const, text }, ...files], metadata: { a2aLite: { replyTo: task.id } } };
  const params = { message: messageToV1(message), configuration: { returnImmediately: true } };
  const headers: Record<string, string> = { 'a2a-version': '1.0' };
  if (peer.token !== undefined) headers.authorization = `Bearer ${peer.token}`;
  const attempts = options.attempts ?? 4;
  let pause = options.pauseMs ?? 1000;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const why = await post(peer.url, headers, params);
    if (why === undefined) {
      options.log(`reply: sent the ${task.status.state} answer of task ${task.id} to ${owner}`);
      return;
    }
    if (attempt === attempts || why.final) {
      options.log(`reply: gave up sending the answer of task ${task.id} to ${owner}: ${why.text}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, pause).unref());
    pause *= 2;
  }
}

/** Sends the answer; undefined when the peer took it, else why not and whether to try again. */
async function post(url: string, headers: Record<string, string>, params: unknown): Promise<{ text: string; final: boolean } | undefined> {
  try {
    const { status, reply } = await callJsonRpc(url, 'SendMessage', params, { id: randomUUID(), headers, signal: AbortSignal.timeout(15_000) });
    if (status === 401 || status === 403) return { text: `HTTP ${status}: the peer refused the token`, final: true };
    if (status < 200 || status >= 300) return { text: `HTTP ${status}`, final: status < 500 && status !== 429 };
    if (reply.kind === 'invalid') return { text: reply.problem, final: true };
    if (reply.kind === 'error') {
      const error = reply.error as { code?: unknown; message?: unknown };
      return { text: `JSON-RPC error ${String(error.code)}: ${String(error.message).slice(0, 200)}`, final: error.code !== -32000 };
    }
    return undefined;
  } catch (error) {
    return { text: error instanceof Error ? error.message : String(error), final: false };
  }
}
