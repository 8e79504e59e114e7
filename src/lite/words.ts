// What the lite driver says in its own words, in Chinese and English: the default body of a
// status when the agent gave none, and the plain-text answers to messages it cannot act on.

import type { Lang } from '../card/render.js';
import type { TaskState } from '../protocol/states.js';

/** The driver's own words, in the language of the card reply. */
export interface Words {
  accepted: string;
  resumed: string;
  done: string;
  cancelled: string;
  ending(state: TaskState): string;
  invalid(type: string, errors: readonly string[]): string;
  couldNotStart(reason: string): string;
  noTask(id: string): string;
  ended(id: string, state: TaskState): string;
  cannotCancel(id: string, state: TaskState): string;
  notWaiting(id: string, state: TaskState): string;
  lost(id: string): string;
  idTaken(id: string, state: TaskState): string;
}

export const WORDS: Readonly<Record<Lang, Words>> = {
  zh: {
    accepted: '收到，开始处理。',
    resumed: '收到回复，继续处理。',
    done: '已完成。',
    cancelled: '已按你的要求取消。',
    ending: (state) => (state === 'failed' ? '任务失败。' : state === 'rejected' ? '无法接受这个任务。' : ''),
    invalid: (type, errors) => `这条 [A2A:${type}] 消息不符合 A2A-Lite 协议，没有处理：${errors.join('；')}`,
    couldNotStart: (reason) => `无法开始这个任务：${reason}`,
    noTask: (id) => `我这里没有你发来的任务 ${id}，无需取消。`,
    ended: (id, state) => `任务 ${id} 已经结束（${state}）。新的请求请用新的任务 id。`,
    cannotCancel: (id, state) => `任务 ${id} 已经结束（${state}），无法取消。`,
    notWaiting: (id, state) => `任务 ${id} 正在进行（${state}），现在不需要回复；要停止它，请发送 cancel 消息。`,
    lost: (id) => `任务 ${id} 在我重启时中断了，请用新的任务 id 重新发送。`,
    idTaken: (id, state) => `任务 id ${id} 已经用过（${state}）。新的请求请用新的任务 id。`,
  },
  en: {
    accepted: 'Received; working on it.',
    resumed: 'Got your reply; carrying on.',
    done: 'Done.',
    cancelled: 'Cancelled at your request.',
    ending: (state) => (state === 'failed' ? 'The task failed.' : state === 'rejected' ? 'I cannot take this task.' : ''),
    invalid: (type, errors) => `This [A2A:${type}] message breaks the A2A-Lite rules and was not handled: ${errors.join('; ')}`,
    couldNotStart: (reason) => `Could not start the task: ${reason}`,
    noTask: (id) => `I have no task ${id} from you; nothing to cancel.`,
    ended: (id, state) => `Task ${id} has already ended (${state}). Send a new request with a new task id.`,
    cannotCancel: (id, state) => `Task ${id} has already ended (${state}); nothing to cancel.`,
    notWaiting: (id, state) => `Task ${id} is under way (${state}) and needs no reply now; to stop it, send a cancel.`,
    lost: (id) => `Task ${id} was lost when I restarted; please send it again with a new task id.`,
    idTaken: (id, state) => `Task id ${id} is already used (${state}). Send a new request with a new task id.`,
  },
};
