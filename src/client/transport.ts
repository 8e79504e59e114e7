// The contract every way of calling an A2A agent keeps: the same five calls (send, stream, get,
// cancel, subscribe) whatever the agent speaks, answered in the task model. The bindings are
// jsonrpc-transport.ts (1.0 and 0.3) and rest-transport.ts; open-transport.ts picks one.

import type { Context } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import type { Task, TaskEvent, TaskMessage } from '../model/task.js';
import type { RemoteAccess, RemoteInterface } from '../model/remote-access.js';
import type { AddressGuardOptions } from '../net/address-guard.js';

/** A credential to present, read from the environment by the caller; never stored. */
export interface Credential {
  token: string;
}

export interface TransportOptions {
  credential?: Credential;
  /** What the card says the agent wants; decides where the credential goes. */
  security?: RemoteAccess['security'];
  /** Milliseconds a request (not a stream) may take. */
  timeoutMs?: number;
  /**
   * Check the address of every request (calls, streams) before connecting, and connect to the
   * address checked: loopback and private networks refused unless allowed, link-local and cloud
   * metadata always. A refusal is the guard's error (FORBIDDEN unless it words its own).
   */
  guard?: AddressGuardOptions;
  /** Sends the requests instead of the outbound request (tests); `guard` is then not applied. */
  fetch?: typeof fetch;
  /**
   * The trace context the calls' spans are children of (a plan step's span, a tool's), while
   * tracing is on; left out, the active span's, else the process's TRACEPARENT.
   */
  trace?: Context;
}

export interface SendOptions {
  /** Answer as soon as the task exists instead of when it ends or asks for input. */
  returnImmediately?: boolean;
  signal?: AbortSignal;
  /** Milliseconds this call may take, instead of the transport's (a blocking send waits long). */
  timeoutMs?: number;
  /**
   * Sent as the `Idempotency-Key` header: an agent that keeps keys (docs/reliability.md) answers
   * a send repeated with the same key with the first send's task instead of starting again.
   */
  idempotencyKey?: string;
}

/**
 * What an agent answers a send with: its task (as last seen), or a message when it answers
 * without making one. `sendAndFollow` and `followTask` end with the same: the task once it has
 * ended or asks for input.
 */
export type Outcome = { kind: 'task'; task: Task } | { kind: 'message'; message: TaskMessage };

export interface Transport {
  readonly target: RemoteInterface;
  send(message: TaskMessage, options?: SendOptions): Promise<Outcome>;
  stream(message: TaskMessage, signal?: AbortSignal, options?: Pick<SendOptions, 'idempotencyKey'>): AsyncIterable<TaskEvent>;
  getTask(id: string, signal?: AbortSignal): Promise<Task>;
  cancelTask(id: string, signal?: AbortSignal): Promise<Task>;
  /**
   * The task's events from now on (the task first), or with `after` those numbered above it
   * (an agent that numbers its events replays what was missed; see `numbered`).
   */
  subscribe(id: string, signal?: AbortSignal, after?: number): AsyncIterable<TaskEvent>;
}

/**
 * The event with the number its SSE `id:` gives it, when it is a task, status or artifact event
 * and the id is a whole number (an agent that numbers its events per task); as it was otherwise.
 */
export function numbered(event: TaskEvent, sseId: string): TaskEvent {
  if (event.kind === 'message' || !/^\d{1,15}$/.test(sseId)) return event;
  return { ...event, seq: Number(sseId) };
}

/** The header that asks for the events after `after`, when there is one. */
export function resumeHeaders(after: number | undefined): Record<string, string> {
  return after === undefined ? {} : { 'last-event-id': String(after) };
}

/** The header carrying an idempotency key, when there is one. */
export function idempotencyHeaders(key: string | undefined): Record<string, string> {
  return key === undefined ? {} : { 'idempotency-key': key };
}

/** A new message id. */
export function newMessageId(): string {
  return randomUUID();
}
