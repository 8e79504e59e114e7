// `a2a-lite send`: gives a task to any A2A agent (by URL, by known id, or by skill) and shows
// every event as A2A-Lite text; the exit code tells how the task ended.

import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { chooseBySkill, credentialFor, isUrl, markAnswered, peerOf, resolvePeer, transportFor, type Peer } from '../../client/peer.js';
import { sendAndFollow, type Outcome } from '../../client/remote-task.js';
import { newMessageId } from '../../client/transport.js';
import { ERROR_TABLE, LiteError, isLiteError } from '../../errors.js';
import { mediaTypeOf } from '../../media-types.js';
import type { Message } from '../../protocol/types.js';
import { isTerminal } from '../../protocol/states.js';
import { TASK_ID } from '../../protocol/validate.js';
import type { Part, Task, TaskMessage } from '../../model/task.js';
import type { TaskRecord } from '../../home/task-record.js';
import { atMost, parseOptions } from '../args.js';
import type { Command, Context } from '../context.js';
import { readStdin } from '../input.js';
import { note } from '../output.js';
import { RemoteOutput } from '../remote-output.js';
import { openStores, type Stores } from '../stores.js';

/** The most one attached file may hold. */
const MAX_ATTACHMENT = 32 * 1024 * 1024;
const DEFAULT_WAIT_S = 600;

export const command: Command = {
  usage: 'a2a-lite send [TARGET] [TEXT|-] [--skill S] [--attach FILE …] [--reply TEXT] [--task ID] [--context ID] [--no-stream] [--token-env NAME] [--timeout S] [--json]',
  help: `Sends a task to an A2A agent and prints every event as A2A-Lite text: status lines with
the agent's words while it works, then the result with its text and one attachment line per
file. Files the agent returns are saved under <home>/downloads/<task>/.

TARGET is the agent's URL (its card is fetched and cached first) or the id of an agent found
with a2a-lite discover. With --skill and no TARGET, a known agent offering the skill is chosen
(and the choice explained on stderr). The interface is taken from the card: JSON-RPC 1.0, then
HTTP+JSON 1.0, then JSON-RPC 0.3; the task is streamed when the agent streams. If the stream
breaks, a2a-lite subscribes again (or polls) until the task ends or --timeout passes. Ctrl-C
cancels the task at the agent. Every task sent is recorded in the ledger.

options:
  --skill S         the skill asked for (also chooses the agent when TARGET is left out)
  --attach FILE     send a file with the task (repeat)
  --reply TEXT      answer a task that asked for input (the newest such task, or --task ID)
  --task ID         the task a --reply continues
  --context ID      the conversation (context id) the new task belongs to
  --no-stream       send and wait for the answer instead of streaming
  --token-env NAME  the environment variable holding the agent's token (never the token itself)
  --timeout S       how long to follow the task, in seconds (default ${DEFAULT_WAIT_S})
  --json            one JSON line per event, then a summary line

exit codes: 0 completed · 10 failed · 11 rejected · 12 cancelled · 13 input required ·
14 credentials wanted · 15 unreachable or still running at --timeout · 8 the agent answered
with an error · other codes as in docs/errors.md

examples:
  a2a-lite send http://127.0.0.1:7331 "Research AI agent frameworks" --skill research
  a2a-lite send mexico "Send the report to Rui" --attach report.md
  a2a-lite send --skill email "Send the report to Rui" --attach report.md
  a2a-lite send --reply "Rui Costa, rui@example.com" --task 019aa6a8-…`,
  run,
};

async function run(args: string[], context: Context): Promise<number> {
  const { values, positionals } = parseOptions('send', args, {
    skill: { type: 'string' },
    attach: { type: 'string', multiple: true },
    reply: { type: 'string' },
    task: { type: 'string' },
    context: { type: 'string' },
    'no-stream': { type: 'boolean' },
    'token-env': { type: 'string' },
    timeout: { type: 'string' },
  });
  atMost('send', positionals, 2);
  const stores = openStores(values, context);
  const json = values.json === true;
  const waitSeconds = values.timeout === undefined ? DEFAULT_WAIT_S : Number(values.timeout);
  if (!Number.isFinite(waitSeconds) || waitSeconds <= 0) throw new LiteError('USAGE', `send: --timeout takes a number of seconds, not ${JSON.stringify(values.timeout)}`);

  // Who, and what.
  let peer: Peer;
  let text: string | undefined;
  let continued: TaskRecord | undefined;
  if (values.reply !== undefined) {
    if (positionals.length > 1) throw new LiteError('USAGE', 'send: with --reply, give at most the TARGET; the text is the value of --reply');
    continued = waitingTask(stores, values.task);
    peer = peerOf(stores.agents.get(continued.peer));
    text = values.reply;
  } else {
    const [first, second] = positionals;
    const fetchOptions = values['token-env'] === undefined ? {} : { tokenEnv: values['token-env'] };
    if (second !== undefined || (first !== undefined && (isUrl(first) || stores.agents.find(first) !== undefined))) {
      peer = await resolvePeer(first as string, stores.agents, fetchOptions);
      text = second;
    } else if (values.skill !== undefined) {
      const choice = chooseBySkill(stores.agents, values.skill);
      peer = choice.peer;
      if (!json) note(context, choice.why);
      text = first;
    } else if (first !== undefined) {
      throw new LiteError('AGENT_NOT_FOUND', `send: "${first}" is neither a URL nor a known agent; give a URL, an id from a2a-lite agents list, or --skill`, { agent: first });
    } else {
      throw new LiteError('USAGE', 'send: name the agent (a URL or a known id) or a --skill; see: a2a-lite send --help');
    }
  }
  if (text === '-') text = await readStdin(context, 'the task text');
  if ((text === undefined || text === '') && (values.attach ?? []).length === 0) throw new LiteError('USAGE', 'send: give the task TEXT (or - to read it from stdin), or --attach a file');

  const credential = credentialFor(peer, context.env, values['token-env']);
  const transport = transportFor(peer, credential);
  const message = buildMessage(text ?? '', values.attach ?? [], context.cwd, values.skill);
  const taskId = continued?.id ?? values.task;
  if (taskId !== undefined) message.taskId = taskId;
  const contextId = values.context ?? (continued ? contextOf(continued) : undefined);
  if (contextId !== undefined) message.contextId = contextId;

  const output = new RemoteOutput(context, stores, peer.id, json);
  const outgoing: Message = { type: 'task', params: {}, body: text ?? '', attachments: (values.attach ?? []).map((f) => basename(f)) };
  if (values.skill) outgoing.params.skill = values.skill;
  let recorded = false;
  const stream = values['no-stream'] !== true && peer.access.streaming;

  // Ctrl-C: stop following and cancel the task at the agent; a second Ctrl-C leaves at once.
  const interrupt = new AbortController();
  let current: Task | undefined;
  const onSigint = (): void => {
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort(new LiteError('TASK_TERMINAL', 'interrupted'));
  };
  process.on('SIGINT', onSigint);
  let outcome: Outcome;
  const follow = (what: TaskMessage): Promise<Outcome> =>
    sendAndFollow(transport, what, {
      stream,
      signal: interrupt.signal,
      deadline: Date.now() + waitSeconds * 1000,
      onEvent: (event, task) => {
        current = task;
        if (!recorded && task !== undefined) {
          recorded = true;
          recordOutgoing(output, outgoing, task, values.reply !== undefined && continued !== undefined);
        }
        output.show(event, task);
      },
      onResume: (how, error) => {
        if (!json) note(context, `${how === 'poll' ? 'polling' : 'subscribing again'}: ${error instanceof Error ? error.message : String(error)}`);
      },
    });
  try {
    try {
      outcome = await follow(message);
    } catch (error) {
      if (continued === undefined || message.taskId === undefined || interrupt.signal.aborted || !endedThere(error)) throw error;
      // An agent that speaks A2A-Lite over plain A2A asked its question in a task it then ended
      // (OpenClaw's channel ends every answer): the answer goes on in the same context.
      if (!json) note(context, `the agent ended task ${message.taskId} when it asked; sending the reply in its context instead`);
      const { taskId, ...rest } = message;
      outcome = await follow({ ...rest, referenceTaskIds: [taskId] });
    }
  } catch (error) {
    if (!interrupt.signal.aborted) throw error;
    return cancelled(context, transport, current, output, json);
  } finally {
    process.off('SIGINT', onSigint);
  }
  markAnsweredQuietly(stores, peer);
  const task = outcome.kind === 'task' ? outcome.task : undefined;
  output.finish(task);
  return output.exitCode(task);
}

/** After Ctrl-C: cancel the task at the agent, say so, and show where it stands. */
async function cancelled(context: Context, transport: ReturnType<typeof transportFor>, task: Task | undefined, output: RemoteOutput, json: boolean): Promise<number> {
  if (task === undefined) {
    note(context, 'interrupted before the agent named a task; nothing to cancel');
    return 130;
  }
  if (!json) note(context, `interrupted: cancelling task ${task.id} at the agent`);
  try {
    const ended = await transport.cancelTask(task.id);
    output.show({ kind: 'task', task: ended }, ended);
    output.finish(ended);
    // The agent may still be winding the task down: that is no success.
    return isTerminal(ended.status.state) ? output.exitCode(ended) : 130;
  } catch (error) {
    note(context, `the agent did not cancel task ${task.id}: ${error instanceof Error ? error.message : String(error)}`);
    return 130;
  }
}

/**
 * Records the task message once the agent has named the task; a reply goes on the record of the
 * task it answers, as a task message on the same id.
 */
function recordOutgoing(output: RemoteOutput, outgoing: Message, task: Task, isReply: boolean): void {
  if (!TASK_ID.test(task.id)) return;
  outgoing.params = { id: task.id, ...outgoing.params };
  if (task.contextId && !isReply) outgoing.params.context = task.contextId;
  output.record(outgoing, 'out');
}

/** The agent's refusal of a message to a task that has ended there. */
function endedThere(error: unknown): boolean {
  if (isLiteError(error, 'TASK_TERMINAL', 'TASK_NOT_FOUND')) return true;
  if (!isLiteError(error, 'PEER_ERROR')) return false;
  const details = error.details as { code?: unknown; reason?: unknown } | undefined;
  return details?.reason === ERROR_TABLE.UNSUPPORTED_OPERATION.reason || details?.code === ERROR_TABLE.UNSUPPORTED_OPERATION.rpc;
}

/** The newest task we sent that waits for input (or the one named). */
function waitingTask(stores: Stores, id: string | undefined): TaskRecord {
  if (id !== undefined) return stores.tasks.get(id);
  const waiting = stores.tasks.list().filter((t) => t.role === 'requester' && (t.state === 'input-required' || t.state === 'auth-required'));
  const newest = waiting.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
  if (newest === undefined) throw new LiteError('TASK_NOT_FOUND', 'send --reply: no task sent from here is waiting for input; name one with --task ID');
  return stores.tasks.get(newest.id, newest.peer);
}

/** The context id recorded with the task message. */
function contextOf(record: TaskRecord): string | undefined {
  return record.history.find((h) => h.type === 'task')?.params.context;
}

function buildMessage(text: string, attachments: readonly string[], cwd: string, skill: string | undefined): TaskMessage {
  const parts: Part[] = [];
  if (text !== '') parts.push({ kind: 'text', text });
  for (const file of attachments) parts.push(filePart(resolve(cwd, file), file));
  const message: TaskMessage = { messageId: newMessageId(), role: 'user', parts };
  if (skill !== undefined) message.metadata = { skill };
  return message;
}

function filePart(path: string, given: string): Part {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new LiteError('FILE_NOT_FOUND', `send --attach: ${given} is not a regular file`);
    size = stat.size;
  } catch (error) {
    if (isLiteError(error)) throw error;
    throw new LiteError('FILE_NOT_FOUND', `send --attach: no file ${given}`, { file: given });
  }
  if (size > MAX_ATTACHMENT) throw new LiteError('INPUT_TOO_LARGE', `send --attach: ${given} is over ${MAX_ATTACHMENT} bytes`);
  return { kind: 'file', name: basename(path), mediaType: mediaTypeOf(path), bytes: readFileSync(path).toString('base64') };
}

function markAnsweredQuietly(stores: Stores, peer: Peer): void {
  try {
    markAnswered(stores.agents, peer);
  } catch {
    // Routing works without it.
  }
}
