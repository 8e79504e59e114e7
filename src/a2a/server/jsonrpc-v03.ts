// The A2A 0.3 JSON-RPC methods (slash names, `kind` bodies), for peers older than 1.0. Each reads
// its params, calls the same agent as the 1.0 table, and returns a bare 0.3 object or SSE events.

import type { TaskEvent, TaskMessage } from '../../model/task.js';
import { extendedCardOf } from './extended-card.js';
import { keyed, only, requiredId, streamItems, type Method, type MethodContext, type StreamItem } from './methods.js';
import { resumeCursor } from '../wire/extensions.js';
import { PUSH_METHODS_V03, pushOnSendV03 } from './push-methods.js';
import { isSettled } from '../../protocol/states.js';
import { eventToV03, messageFromV03, messageToV03, statusUpdateToV03, taskToV03 } from '../wire/v03.js';
import { asObject, field, invalid, optionalInteger, type Json } from '../wire/fields.js';

/** The 0.3 table. 0.3 has no `tasks/list` over JSON-RPC, so it is absent and gets METHOD_NOT_FOUND. */
export const METHODS_V03: Readonly<Record<string, Method>> = {
  async 'message/send'(agent, params, context) {
    const { message, configuration } = sendParams(params);
    const direct = await agent.answer(message, keyed(context));
    if (direct !== undefined) return { result: messageToV03(direct) };
    const historyLength = optionalInteger(configuration, 'params.configuration.historyLength', 'historyLength');
    const task = await agent.send(message, { returnImmediately: !blockingOf(configuration), ...keyed(context, pushOnSendV03(configuration, context)) });
    return { result: taskToV03(task, historyLength) };
  },

  async 'message/stream'(agent, params, context) {
    const { message, configuration } = sendParams(params);
    const direct = await agent.answer(message, keyed(context));
    if (direct !== undefined) return { events: eventsV03(only<TaskEvent>({ kind: 'message', message: direct }), context) };
    return { events: eventsV03(await agent.stream(message, { ...keyed(context, pushOnSendV03(configuration, context)) }), context) };
  },

  async 'tasks/get'(agent, params, context) {
    const id = requiredId(params);
    const historyLength = optionalInteger(params, 'params.historyLength', 'historyLength');
    return { result: taskToV03(await agent.getTask(id, { owner: context?.principal }), historyLength) };
  },

  async 'tasks/cancel'(agent, params, context) {
    return { result: taskToV03(await agent.cancel(requiredId(params), { owner: context?.principal })) };
  },

  async 'tasks/resubscribe'(agent, params, context) {
    const after = resumeCursor(field(params, 'lastEventId'), context?.lastEventId);
    return { events: eventsV03(await agent.subscribe(requiredId(params), { owner: context?.principal }, after), context) };
  },

  ...PUSH_METHODS_V03,

  async 'agent/getAuthenticatedExtendedCard'(_agent, _params, context) {
    return { result: await extendedCardOf(context, '0.3') };
  },
};

function sendParams(params: Json): { message: TaskMessage; configuration: Json } {
  const raw = field(params, 'message');
  if (raw === undefined) throw invalid('params.message is required');
  const message = messageFromV03(raw, 'params.message');
  if (message.role !== 'user') throw invalid('params.message.role must be "user"');
  const configuration = field(params, 'configuration');
  return { message, configuration: configuration === undefined || configuration === null ? {} : asObject(configuration, 'params.configuration') };
}

/**
 * `configuration.blocking`, true when left out. 0.3 gives no default; waiting is what 1.0 does
 * by default and what a caller without the flag most likely expects.
 */
function blockingOf(configuration: Json): boolean {
  const blocking = field(configuration, 'blocking');
  if (blocking === undefined || blocking === null) return true;
  if (typeof blocking !== 'boolean') throw invalid('params.configuration.blocking must be true or false');
  return blocking;
}

/**
 * The agent's events as 0.3 objects. A stream that closes on a task snapshot alone (a task that
 * was already waiting for input, or refused at once) gets a closing status update too, so that
 * every 0.3 stream ends with `final: true`.
 */
function eventsV03(events: AsyncIterable<TaskEvent>, context: MethodContext | undefined): AsyncIterable<StreamItem> {
  let last: TaskEvent | undefined;
  const toV03 = (event: TaskEvent): Json => {
    last = event;
    return eventToV03(event);
  };
  const closing = (): Json | undefined =>
    last?.kind === 'task' && isSettled(last.task.status.state) ? statusUpdateToV03(last.task.id, last.task.contextId, last.task.status) : undefined;
  // 0.3 has no way to keep a stream open past a `final` update: it ends where the task waits.
  const settles = (event: TaskEvent): boolean => (event.kind === 'status' && isSettled(event.status.state)) || (event.kind === 'task' && isSettled(event.task.status.state));
  return streamItems(events, toV03, (json) => json, context, { onEnd: closing, endsWith: settles });
}
