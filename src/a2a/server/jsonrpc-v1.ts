// The A2A 1.0 JSON-RPC methods: each reads its params, calls the agent, and returns a result
// or a stream of StreamResponse events.

import type { TaskEvent } from '../../model/task.js';
import type { Agent } from '../../runtime/agent.js';
import { pageSizeOf } from '../../store/task-store.js';
import { extendedCardOf } from './extended-card.js';
import { keyed, only, requiredId, streamItems, type Method, type MethodContext, type StreamItem } from './methods.js';
import { resumeCursor } from '../wire/extensions.js';
import { PUSH_METHODS_V1, pushOnSendV1 } from './push-methods.js';
import { eventToV1, messageFromV1, messageToV1, statesFromV1, taskToV1 } from '../wire/v1.js';
import { asObject, field, invalid, optionalInteger, optionalString, shown, type Json } from '../wire/fields.js';

export const METHODS_V1: Readonly<Record<string, Method>> = {
  async SendMessage(agent, params, context) {
    const { message, configuration } = sendParams(params);
    const direct = await agent.answer(message, keyed(context));
    if (direct !== undefined) return { result: { message: messageToV1(direct) } };
    const returnImmediately = field(configuration, 'returnImmediately', 'return_immediately') === true;
    const historyLength = optionalInteger(configuration, 'params.configuration.historyLength', 'historyLength', 'history_length');
    const task = await agent.send(message, { returnImmediately, ...keyed(context, pushOnSendV1(configuration, context)) });
    return { result: { task: taskToV1(task, historyLength) } };
  },

  async SendStreamingMessage(agent, params, context) {
    const { message, configuration } = sendParams(params);
    const direct = await agent.answer(message, keyed(context));
    if (direct !== undefined) return { events: eventsV1(only<TaskEvent>({ kind: 'message', message: direct }), context) };
    return { events: eventsV1(await agent.stream(message, { ...keyed(context, pushOnSendV1(configuration, context)) }), context) };
  },

  async GetTask(agent, params, context) {
    const id = requiredId(params);
    const historyLength = optionalInteger(params, 'params.historyLength', 'historyLength', 'history_length');
    return { result: taskToV1(await agent.getTask(id, { owner: context?.principal }), historyLength) };
  },

  /**
   * The caller's tasks only, when it is a principal: `totalSize` counts no one else's. A status
   * filter matches every task shown in that state (SUBMITTED: `accepted` ones too).
   */
  async ListTasks(agent, params, context) {
    const status = field(params, 'status');
    const states = status === undefined || status === 'TASK_STATE_UNSPECIFIED' || status === 0 ? undefined : statesFromV1(status);
    if (status !== undefined && status !== 'TASK_STATE_UNSPECIFIED' && status !== 0 && states === undefined) {
      throw invalid(`params.status ${shown(status)} is not a task state`);
    }
    const pageSize = pageSizeOf(optionalInteger(params, 'params.pageSize', 'pageSize', 'page_size'));
    const historyLength = optionalInteger(params, 'params.historyLength', 'historyLength', 'history_length');
    const includeArtifacts = field(params, 'includeArtifacts', 'include_artifacts') === true;
    const query: Parameters<Agent['listTasks']>[0] = { pageSize, owner: context?.principal };
    const contextId = optionalString(params, 'params.contextId', 'contextId', 'context_id');
    if (contextId) query.contextId = contextId;
    if (states) query.state = states;
    const pageToken = optionalString(params, 'params.pageToken', 'pageToken', 'page_token');
    if (pageToken) query.pageToken = pageToken;
    const after = optionalString(params, 'params.statusTimestampAfter', 'statusTimestampAfter', 'status_timestamp_after');
    if (after) {
      if (Number.isNaN(Date.parse(after))) throw invalid('params.statusTimestampAfter must be an ISO-8601 time');
      query.updatedAfter = new Date(after).toISOString();
    }
    const page = await agent.listTasks(query);
    return {
      result: {
        tasks: page.tasks.map((task) => taskToV1(task, historyLength, includeArtifacts)),
        nextPageToken: page.nextPageToken,
        pageSize,
        totalSize: page.totalSize,
      },
    };
  },

  async CancelTask(agent, params, context) {
    return { result: taskToV1(await agent.cancel(requiredId(params), { owner: context?.principal })) };
  },

  async SubscribeToTask(agent, params, context) {
    const after = resumeCursor(field(params, 'lastEventId', 'last_event_id'), context?.lastEventId);
    return { events: eventsV1(await agent.subscribe(requiredId(params), { owner: context?.principal }, after), context) };
  },

  ...PUSH_METHODS_V1,

  /** UnsupportedOperation when the card does not offer one (A2A 1.0 §3.3.4). */
  async GetExtendedAgentCard(_agent, _params, context) {
    return { result: await extendedCardOf(context, '1.0') };
  },
};

function sendParams(params: Json): { message: ReturnType<typeof messageFromV1>; configuration: Json } {
  const raw = field(params, 'message');
  if (raw === undefined) throw invalid('params.message is required');
  const message = messageFromV1(raw, 'params.message');
  if (message.role !== 'user') throw invalid('params.message.role must be ROLE_USER');
  const configuration = field(params, 'configuration');
  return { message, configuration: configuration === undefined || configuration === null ? {} : asObject(configuration, 'params.configuration') };
}

/** Task events as 1.0 StreamResponse objects; the member holds the resume metadata. */
function eventsV1(events: AsyncIterable<TaskEvent>, context: MethodContext | undefined): AsyncIterable<StreamItem> {
  return streamItems(events, eventToV1, (json) => Object.values(json)[0] as Json | undefined, context);
}
