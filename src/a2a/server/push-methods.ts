// The push-config methods of A2A 1.0 (CreateTaskPushNotificationConfig …) and 0.3
// (tasks/pushNotificationConfig/set …), and the config a send may carry. Each checks that the
// task exists and is the caller's, then calls the push config service; without one, push is off
// and they refuse.

import { LiteError } from '../../errors.js';
import type { Agent, SendOptions } from '../../runtime/agent.js';
import type { Method, MethodContext } from './methods.js';
import {
  pushConfigFromV03,
  pushConfigFromV1,
  pushConfigToV03,
  pushConfigToV1,
  taskPushConfigFromV03,
} from '../wire/push-config.js';
import type { PushConfig, PushConfigInput, PushConfigService } from '../../model/push-config.js';
import { field, optionalString, requestFields, type Json } from '../wire/fields.js';

export const PUSH_METHODS_V1: Readonly<Record<string, Method>> = {
  async CreateTaskPushNotificationConfig(agent, params, context) {
    const push = pushOf(context);
    const input = pushConfigFromV1(params, 'params');
    await agent.getTask(input.taskId, { owner: context?.principal });
    return { result: pushConfigToV1(await push.save(input)) };
  },

  async GetTaskPushNotificationConfig(agent, params, context) {
    const { push, taskId } = await pushTask(agent, params, context, 'params.taskId', 'taskId', 'task_id');
    return { result: pushConfigToV1(await existing(push, taskId, requestFields.requiredString(params, 'params.id', 'id'))) };
  },

  /** Every config on one page: a task has at most a few (MAX_CONFIGS_PER_TASK). */
  async ListTaskPushNotificationConfigs(agent, params, context) {
    const { push, taskId } = await pushTask(agent, params, context, 'params.taskId', 'taskId', 'task_id');
    return { result: { configs: (await push.list(taskId)).map(pushConfigToV1), nextPageToken: '' } };
  },

  /**
   * Answers null, as the official SDK does (the proto says Empty, the spec leaves it to the
   * implementation); over REST that is a 204. Idempotent, as 1.0 asks of a delete: a config
   * already gone is deleted again without an error (the task must still be the caller's).
   */
  async DeleteTaskPushNotificationConfig(agent, params, context) {
    const { push, taskId } = await pushTask(agent, params, context, 'params.taskId', 'taskId', 'task_id');
    await push.delete(taskId, requestFields.requiredString(params, 'params.id', 'id'));
    return { result: null };
  },
};

/** 0.3 names the task `id` in get, list and delete, and the config `pushNotificationConfigId`. */
export const PUSH_METHODS_V03: Readonly<Record<string, Method>> = {
  async 'tasks/pushNotificationConfig/set'(agent, params, context) {
    const push = pushOf(context);
    const input = taskPushConfigFromV03(params);
    await agent.getTask(input.taskId, { owner: context?.principal });
    return { result: pushConfigToV03(await push.save(input)) };
  },

  /** Without a config id (0.2 clients kept one config per task), the task's oldest config. */
  async 'tasks/pushNotificationConfig/get'(agent, params, context) {
    const { push, taskId } = await pushTask(agent, params, context, 'params.id', 'id');
    const id = optionalString(params, 'params.pushNotificationConfigId', 'pushNotificationConfigId');
    const config = id ? await existing(push, taskId, id) : (await push.list(taskId))[0];
    if (config === undefined) throw new LiteError('PUSH_CONFIG_NOT_FOUND', `task "${taskId}" has no push notification config`, { task: taskId });
    return { result: pushConfigToV03(config) };
  },

  async 'tasks/pushNotificationConfig/list'(agent, params, context) {
    const { push, taskId } = await pushTask(agent, params, context, 'params.id', 'id');
    return { result: (await push.list(taskId)).map(pushConfigToV03) };
  },

  async 'tasks/pushNotificationConfig/delete'(agent, params, context) {
    const { push, taskId } = await pushTask(agent, params, context, 'params.id', 'id');
    await remove(push, taskId, requestFields.requiredString(params, 'params.pushNotificationConfigId', 'pushNotificationConfigId'));
    return { result: null };
  },
};

/**
 * The SendOptions that register the push config a 1.0 send carries in
 * `configuration.taskPushNotificationConfig`, checked now, before any task exists.
 */
export function pushOnSendV1(configuration: Json, context: MethodContext | undefined): Pick<SendOptions, 'beforeStart'> {
  const raw = field(configuration, 'taskPushNotificationConfig', 'task_push_notification_config');
  if (raw === undefined || raw === null) return {};
  return registerOnStart(pushOf(context), pushConfigFromV1(raw, 'params.configuration.taskPushNotificationConfig', PENDING));
}

/** The same for 0.3's `configuration.pushNotificationConfig`. */
export function pushOnSendV03(configuration: Json, context: MethodContext | undefined): Pick<SendOptions, 'beforeStart'> {
  const raw = field(configuration, 'pushNotificationConfig');
  if (raw === undefined || raw === null) return {};
  return registerOnStart(pushOf(context), pushConfigFromV03(raw, 'params.configuration.pushNotificationConfig', PENDING));
}

/** The task id of an inline config until the task exists; the task's own id replaces it. */
const PENDING = '(the task of this message)';

function registerOnStart(push: PushConfigService, input: PushConfigInput): Pick<SendOptions, 'beforeStart'> {
  return {
    beforeStart: async (task) => {
      await push.save({ ...input, taskId: task.id });
    },
  };
}

/** The refusal of every push method and inline config when this agent sends no push notifications. */
function pushOf(context: MethodContext | undefined): PushConfigService {
  if (context?.push === undefined) throw new LiteError('PUSH_NOT_SUPPORTED', 'this agent does not send push notifications');
  return context.push;
}

/**
 * The push service and the task id of a request, once the task is known to exist and to be the
 * caller's: another principal's configs are TASK_NOT_FOUND, as its task is.
 */
async function pushTask(agent: Agent, params: Json, context: MethodContext | undefined, path: string, ...names: string[]): Promise<{ push: PushConfigService; taskId: string }> {
  const push = pushOf(context);
  const taskId = requestFields.requiredString(params, path, ...names);
  await agent.getTask(taskId, { owner: context?.principal });
  return { push, taskId };
}

async function existing(push: PushConfigService, taskId: string, id: string): Promise<PushConfig> {
  const config = await push.get(taskId, id);
  if (config === undefined) throw notFound(taskId, id);
  return config;
}

async function remove(push: PushConfigService, taskId: string, id: string): Promise<void> {
  if (!(await push.delete(taskId, id))) throw notFound(taskId, id);
}

function notFound(taskId: string, id: string): LiteError {
  return new LiteError('PUSH_CONFIG_NOT_FOUND', `task "${taskId}" has no push notification config "${id}"`, { task: taskId, config: id });
}
