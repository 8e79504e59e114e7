// Which task a call names, read by the server's own method: the method runs on a stand-in agent
// that only notes the first thing it is asked for (a task by id, a list, a message to answer)
// and stops it there. So the task id, its field name and its aliases, and a message's task and
// metadata are read by exactly the code that would serve the call.

import { LiteError } from '../../errors.js';
import type { PushConfigService } from '../../model/push-config.js';
import type { TaskMessage } from '../../model/task.js';
import type { Agent } from '../../runtime/agent.js';
import type { Method, MethodContext } from './methods.js';

/** What a call does with tasks. */
export type TaskUse =
  /** Reads, cancels, follows or configures the task `taskId`. */
  | { kind: 'task'; taskId: string }
  /** Sends `message`: a new task, or the one `message.taskId` continues. */
  | { kind: 'send'; message: TaskMessage }
  | { kind: 'list' }
  /** Touches no task (the extended card). */
  | { kind: 'none' };

/** Thrown by the stand-in agent once it has noted what it was asked: the method stops there. */
class Noted {
  constructor(readonly use: TaskUse) {}
}

/** Set while a method is being called: what it asks of the stand-in before its first await. */
let capturing: { use?: TaskUse } | undefined;

/**
 * Notes `use`. Asked while the method is still being called (no await before it, the usual
 * case) it answers a promise of its own that never settles, which costs less than unwinding
 * with a throw: the method waits on it for ever, and both are garbage once the call is
 * forgotten (a promise shared by every call would hold each waiting method). Asked later, it
 * stops the method with a throw.
 */
const note = (use: TaskUse): Promise<never> => {
  if (capturing === undefined) throw new Noted(use);
  capturing.use = use;
  return new Promise<never>(() => {});
};

const STAND_IN = {
  answer: (message: TaskMessage) => note({ kind: 'send', message }),
  send: (message: TaskMessage) => note({ kind: 'send', message }),
  stream: (message: TaskMessage) => note({ kind: 'send', message }),
  getTask: (taskId: string) => note({ kind: 'task', taskId }),
  cancel: (taskId: string) => note({ kind: 'task', taskId }),
  subscribe: (taskId: string) => note({ kind: 'task', taskId }),
  listTasks: () => note({ kind: 'list' }),
};

/** Push methods check their task first: a service is given so that they get that far. */
const unreached = (): Promise<never> => Promise.reject(new LiteError('INTERNAL', 'not reached'));
const STAND_IN_PUSH: PushConfigService = { save: unreached, get: unreached, list: unreached, delete: unreached };

/** Methods that touch no task: the extended card, which an agent may have though this server has none. */
const TASKLESS = new Set(['GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard']);

/**
 * What method `name` (whose code is `run`) does with tasks when called with `params`, or the
 * error it refuses them with (the error the server would answer). `context` gives the
 * extensions the call activated. Known at once when the method asks before its first await
 * (every method here does), else a promise of it: the hub relays most requests without waiting
 * a turn for the answer.
 */
export function taskUseOf(name: string, run: Method, params: Record<string, unknown>, context: MethodContext = {}): TaskUse | LiteError | Promise<TaskUse | LiteError> {
  if (TASKLESS.has(name)) return { kind: 'none' };
  const capture: { use?: TaskUse } = {};
  let pending: Promise<unknown>;
  capturing = capture;
  try {
    // The stand-in has only what the method tables call; any other use fails loudly below.
    pending = run(STAND_IN as unknown as Agent, params, { ...context, push: STAND_IN_PUSH });
  } catch (error) {
    pending = Promise.reject(error);
  } finally {
    capturing = undefined;
  }
  if (capture.use !== undefined) {
    // A method that used what it was answered at once (a stream it iterates) fails on it: unheard.
    pending.catch(() => {});
    return capture.use;
  }
  return settled(pending);
}

/** What a method that did not ask at once comes to: what it asks later, its refusal, or nothing. */
async function settled(pending: Promise<unknown>): Promise<TaskUse | LiteError> {
  try {
    await pending;
  } catch (error) {
    if (error instanceof Noted) return error.use;
    if (error instanceof LiteError) return error;
    throw error;
  }
  return { kind: 'none' };
}
