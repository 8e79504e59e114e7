// What every JSON-RPC method of both A2A versions shares: its type, the context the transport
// gives it, its outcome, and the task id most methods read.

import type { Context } from '@opentelemetry/api';
import type { PushConfigService } from '../../model/push-config.js';
import type { Task, TaskEvent } from '../../model/task.js';
import type { Agent, SendOptions } from '../../runtime/agent.js';
import { IDEMPOTENCY_EXTENSION, RESUME_EXTENSION, withSeq } from '../wire/extensions.js';
import { mapEvents } from './map-events.js';
import { invalid, optionalString, type Json } from '../wire/fields.js';

/** One event of a stream: its wire object, and its number in the task's log when it has one. */
export interface StreamItem {
  json: Json;
  seq?: number;
}

/** A method's outcome: a result object, or events to send over SSE. */
export type MethodResult = { result: unknown } | { events: AsyncIterable<StreamItem> };

/** What a method may use besides the agent, given by the transport. */
export interface MethodContext {
  /** The push config service; when absent, push is off and the push methods refuse. */
  push?: PushConfigService;
  /** Who made the request (auth on): it makes tasks of its own and reaches no others. */
  principal?: string;
  /** The extensions the client activated (see a2a/wire/extensions.ts). */
  extensions?: ReadonlySet<string>;
  /** The extensions the card marks required; each binding refuses a request that leaves one out. */
  requiredExtensions?: readonly string[];
  /** The request's `Last-Event-ID` header: where a resubscription resumes. */
  lastEventId?: string;
  /** The request's `Idempotency-Key` header. */
  idempotencyKey?: string;
  /** The trace context of the request's server span, while tracing is on (observed-call.ts). */
  trace?: Context;
  /** Runs before the method (the server's cap on streams); what it throws is the method's error. */
  beforeRun?: () => void;
  /**
   * Told of the task a send makes or continues, before its first update; what it throws refuses
   * the message (the server's cap on tasks per caller), and no new task is made.
   */
  onTaskStart?: (task: Task) => void;
  /**
   * The extended card in the shape of `version`, made for the (authenticated) caller; absent
   * when the server offers none (extended-card.ts).
   */
  extendedCard?: (version: '1.0' | '0.3') => Promise<Json>;
}

/** One JSON-RPC method: reads its params, calls the agent. Shared by the 1.0 and 0.3 tables. */
export type Method = (agent: Agent, params: Json, context?: MethodContext) => Promise<MethodResult>;

/** The task id in `params.id`, which both versions name the same way. */
export function requiredId(params: Json): string {
  const id = optionalString(params, 'params.id', 'id');
  if (!id) throw invalid('params.id is required');
  return id;
}

/** A stream of one event: a direct answer, where a task would have streamed. */
export async function* only<T>(event: T): AsyncGenerator<T> {
  yield event;
}

/**
 * The task events as stream items through `toWire`, numbered; with the resume extension active,
 * each wire object carries its number in `metadata` too (`inner` finds the object).
 */
export function streamItems(events: AsyncIterable<TaskEvent>, toWire: (event: TaskEvent) => Json, inner: (json: Json) => Json | undefined, context: MethodContext | undefined, options: { endsWith?: (event: TaskEvent) => boolean; onEnd?: () => Json | undefined } = {}): AsyncIterable<StreamItem> {
  const stamp = context?.extensions?.has(RESUME_EXTENSION) === true;
  const item = (event: TaskEvent): StreamItem => {
    const json = stamp ? withSeq(toWire(event), event, inner) : toWire(event);
    const seq = 'seq' in event ? event.seq : undefined;
    return seq === undefined ? { json } : { json, seq };
  };
  const { endsWith, onEnd } = options;
  return mapEvents(events, item, {
    ...(endsWith === undefined ? {} : { endsWith }),
    ...(onEnd === undefined ? {} : { onEnd: () => { const json = onEnd(); return json === undefined ? undefined : { json }; } }),
  });
}

/**
 * Who sends, and the key that makes a retry of the send safe (the idempotency extension);
 * `onStart` (a push config given with the message) runs once the task exists, after the
 * server's own `onTaskStart`.
 */
export function keyed(context: MethodContext | undefined, onStart: Pick<SendOptions, 'beforeStart'> = {}): SendOptions {
  const options: SendOptions = {};
  const told = context?.onTaskStart;
  const then = onStart.beforeStart;
  if (told !== undefined) {
    options.beforeStart = async (task) => {
      told(task);
      await then?.(task);
    };
  } else if (then !== undefined) options.beforeStart = then;
  if (context?.principal !== undefined) options.owner = context.principal;
  if (context?.idempotencyKey !== undefined) options.idempotencyKey = context.idempotencyKey;
  if (context?.trace !== undefined) options.trace = context.trace;
  // A client that activates the extension counts on its message ids too.
  if (context?.extensions?.has(IDEMPOTENCY_EXTENSION) === true) options.messageIdKeys = true;
  return options;
}
