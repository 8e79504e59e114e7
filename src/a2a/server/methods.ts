// What every JSON-RPC method of both A2A versions shares: its type, the context the transport
// gives it, its outcome, and the task id most methods read.

import type { PushConfigService } from '../../model/push-config.js';
import type { Agent } from '../../runtime/agent.js';
import { invalid, optionalString, type Json } from '../wire/fields.js';

/** A method's outcome: a result object, or events to send over SSE. */
export type MethodResult = { result: unknown } | { events: AsyncIterable<Json> };

/** What a method may use besides the agent, given by the transport. */
export interface MethodContext {
  /** The push config service; when absent, push is off and the push methods refuse. */
  push?: PushConfigService;
  /** Who made the request (auth on): it makes tasks of its own and reaches no others. */
  principal?: string;
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
