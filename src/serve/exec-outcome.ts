// How an exec program's turn ends, read from all it printed once it has exited: a question for
// the requester, or the end of the task with its result, the files the result names from the
// task folder, and the words of the final status.

import { readFileSync, statSync } from 'node:fs';
import { fileInside } from '../home/safe-names.js';
import { mediaTypeOf } from '../media-types.js';
import { parseAll } from '../protocol/parse.js';
import { isInterrupted, isTerminal, isWireState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import type { ResultFile, TaskContext } from '../runtime/agent.js';

/** How a turn ended: with a question for the requester, or with the end of the task. */
export type Outcome =
  | { kind: 'ask'; question: string; state: 'input-required' | 'auth-required' }
  | {
      kind: 'end';
      state: 'completed' | 'failed' | 'rejected' | 'cancelled';
      text: string;
      attachments: string[];
      /** The words of the final status, when a `[A2A:status … state=completed]` said them ('' for none). */
      message?: string;
    };

const stated = (m: Message): boolean => (m.type === 'result' || m.type === 'status') && m.params.state !== undefined && isWireState(m.params.state);

/**
 * What a turn's whole output says, once the program has ended: the last status or result with
 * a state decides (input-required or auth-required asks, after a clean exit; a final state ends
 * the task); else an exit code other than 0 fails the task with `failure`, and a clean exit
 * completes it with the plain text printed.
 *
 * @example
 * outcomeOf('[A2A:result task=t state=completed]\n42\n[A2A:status task=t state=completed]\nAnswered.\n', 0, '')
 * // { kind: 'end', state: 'completed', text: '42', attachments: [], message: 'Answered.' }
 */
export function outcomeOf(stdout: string, code: number | null, failure: string): Outcome {
  const messages = parseAll(stdout);
  const last = messages.filter(stated).at(-1);
  const state = last?.params.state;
  if (last !== undefined && state !== undefined && isWireState(state) && isInterrupted(state) && code === 0) return { kind: 'ask', question: last.body, state: state as 'input-required' | 'auth-required' };
  if (last !== undefined && state === 'completed') return completion(messages);
  if (last !== undefined && state !== undefined && isWireState(state) && isTerminal(state)) {
    return { kind: 'end', state: state as 'failed' | 'rejected' | 'cancelled', text: last.body || last.params.reason || '', attachments: last.attachments };
  }
  if (code !== 0) return { kind: 'end', state: 'failed', text: failure, attachments: [] };
  const plain = messages.filter((m) => m.type === 'plain');
  return { kind: 'end', state: 'completed', text: plain.map((m) => m.body).join('\n\n'), attachments: plain.flatMap((m) => m.attachments) };
}

/**
 * A completion: the result is the last `[A2A:result … state=completed]`, else the plain text
 * printed; the words of the final status are the body of the last `[A2A:status …
 * state=completed]`, whose attachment lines join the result's files.
 */
function completion(messages: readonly Message[]): Outcome {
  const completing = (type: string) => messages.filter((m) => m.type === type && m.params.state === 'completed').at(-1);
  const result = completing('result');
  const closing = completing('status');
  const plain = messages.filter((m) => m.type === 'plain');
  const text = result === undefined ? plain.map((m) => m.body).join('\n\n') : result.body || result.params.reason || '';
  const files = result === undefined ? plain.flatMap((m) => m.attachments) : result.attachments;
  const outcome: Outcome = { kind: 'end', state: 'completed', text, attachments: [...new Set([...files, ...(closing?.attachments ?? [])])] };
  if (closing !== undefined) outcome.message = closing.body;
  return outcome;
}

/** Ends the task as the outcome says, with the files it names from the task folder. */
export async function finish(ctx: TaskContext, folder: string, outcome: Extract<Outcome, { kind: 'end' }>, maxFileBytes: number): Promise<unknown> {
  // Cancelled by the requester, the task has ended already; a program cannot cancel its own task.
  if (outcome.state === 'cancelled') return ctx.signal.aborted ? undefined : ctx.fail(outcome.text || 'the program cancelled the task');
  if (outcome.state === 'failed') return ctx.fail(outcome.text || 'the program reported failure');
  if (outcome.state === 'rejected') return ctx.reject(outcome.text || 'the program declined the task');
  let files: ResultFile[];
  try {
    files = outcome.attachments.map((name) => readResultFile(folder, name, maxFileBytes));
  } catch (error) {
    return ctx.fail((error as Error).message);
  }
  // Without words of its own, the runtime says a short result text on the final status too.
  return ctx.complete({ text: outcome.text, files, ...(outcome.message === undefined ? {} : { message: outcome.message }) });
}

function readResultFile(folder: string, name: string, max: number): ResultFile {
  const path = fileInside(folder, name);
  if (statSync(path).size > max) throw new Error(`${name} is larger than ${max} bytes`);
  return { name, bytes: readFileSync(path), mediaType: mediaTypeOf(name) };
}
