// `a2a-lite send`: gives a task to any A2A agent (by URL, by known id, or by skill) and shows
// every event as A2A-Lite text; the exit code tells how the task ended.

import { refuseCredentials } from '../../client/outgoing-message.js';
import { bindingOf, credentialFor, isUrl } from '../../client/peer.js';
import { sendTask, type SendListener, type SendRequest } from '../../client/send-task.js';
import { sendThroughHub } from '../../hub/hub-client.js';
import { LiteError } from '../../errors.js';
import { atMost, parseOptions } from '../args.js';
import type { Command, Context } from '../context.js';
import { readStdin } from '../input.js';
import { note } from '../output.js';
import { RemoteOutput } from '../remote-output.js';
import { openStores } from '../stores.js';

const DEFAULT_WAIT_S = 600;

export const command: Command = {
  usage: 'a2a-lite send [TARGET] [TEXT|-] [--skill S] [--attach FILE …] [--reply TEXT] [--task ID] [--context ID] [--no-stream] [--hub URL] [--token-env NAME] [--transport grpc|jsonrpc|rest] [--idempotency-key K] [--timeout S] [--allow-credential-text] [--json]',
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
  --hub URL         ask the a2a-lite hub at URL: with --skill, the hub ranks the agents that
                    are up (skill match, active tasks, latency) and the next is tried when one
                    is down or refuses before taking the task; a TARGET is an agent id there
  --token-env NAME  the environment variable holding the agent's token (never the token itself);
                    with --hub, the hub's token
  --transport T     call the agent over T (grpc, jsonrpc or rest), which its card must offer;
                    by default the first the card offers of JSON-RPC 1.0, HTTP+JSON 1.0,
                    gRPC 1.0, JSON-RPC 0.3
  --idempotency-key K  the send's Idempotency-Key (default: a new one each time): run the same
                    command again with the same K, after a crash or a lost answer, and an agent
                    that keeps keys gives back the first task instead of starting the work
                    again. A send whose answer is lost is tried again under its key by itself
  --timeout S       how long to follow the task, in seconds (default ${DEFAULT_WAIT_S})
  --allow-credential-text  send the text even though it holds what looks like a credential (an
                    API key, a token, a private key, a password in a URL); without it such a
                    text is refused and nothing is sent
  --json            one JSON line per event, then a summary line

exit codes: 0 completed · 10 failed · 11 rejected · 12 cancelled · 13 input required ·
14 credentials wanted · 15 unreachable or still running at --timeout · 8 the agent answered
with an error · other codes as in docs/errors.md

examples:
  a2a-lite send http://127.0.0.1:7331 "Research AI agent frameworks" --skill research
  a2a-lite send mexico "Send the report to Rui" --attach report.md
  a2a-lite send --skill email "Send the report to Rui" --attach report.md
  a2a-lite send --hub http://hub.example:7400 --skill translate "Bonjour"
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
    hub: { type: 'string' },
    'idempotency-key': { type: 'string' },
    'allow-credential-text': { type: 'boolean' },
    transport: { type: 'string' },
  });
  atMost('send', positionals, 2);
  const hub = values.hub?.replace(/\/+$/, '');
  if (hub !== undefined && !isUrl(hub)) throw new LiteError('USAGE', 'send: --hub takes the URL of an a2a-lite hub');
  if (hub !== undefined && values.reply !== undefined) throw new LiteError('USAGE', 'send: a --reply goes to the agent that asked; leave out --hub');
  const key = values['idempotency-key'];
  if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) throw new LiteError('USAGE', 'send: --idempotency-key is 1 to 255 visible ASCII characters (no spaces)');
  const stores = openStores(values, context);
  const json = values.json === true;
  const waitSeconds = values.timeout === undefined ? DEFAULT_WAIT_S : Number(values.timeout);
  if (!Number.isFinite(waitSeconds) || waitSeconds <= 0) throw new LiteError('USAGE', `send: --timeout takes a number of seconds, not ${JSON.stringify(values.timeout)}`);

  // Who, and what: with two words the first is the agent; with one, it is the agent when it
  // names one (a URL or a known id) and the text when --skill chooses the agent.
  let target: string | undefined;
  let text: string | undefined;
  if (values.reply !== undefined) {
    if (positionals.length > 1) throw new LiteError('USAGE', 'send: with --reply, give at most the TARGET; the text is the value of --reply');
    text = values.reply;
  } else {
    const [first, second] = positionals;
    if (hub !== undefined && second !== undefined) {
      // An agent id at the hub: its endpoint there.
      target = isUrl(first as string) ? first : `${hub}/agents/${encodeURIComponent(first as string)}`;
      text = second;
    } else if (hub === undefined && (second !== undefined || (first !== undefined && (isUrl(first) || stores.agents.find(first) !== undefined)))) {
      target = first;
      text = second;
    } else if (values.skill !== undefined) {
      text = first;
    } else if (first !== undefined) {
      throw new LiteError('AGENT_NOT_FOUND', `send: "${first}" is neither a URL nor a known agent; give a URL, an id from a2a-lite agents list, or --skill`, { agent: first });
    } else {
      throw new LiteError('USAGE', 'send: name the agent (a URL or a known id) or a --skill; see: a2a-lite send --help');
    }
  }
  if (text === '-') text = await readStdin(context, 'the task text');
  if ((text === undefined || text === '') && (values.attach ?? []).length === 0) throw new LiteError('USAGE', 'send: give the task TEXT (or - to read it from stdin), or --attach a file');
  const allowCredentialText = values['allow-credential-text'] === true;
  if (!allowCredentialText) refuseCredentials([{ kind: 'text', text: text ?? '' }], '; pass a token with --token-env NAME, or send the text as it is with --allow-credential-text');

  // Ctrl-C: stop following and cancel the task at the agent; a second Ctrl-C leaves at once.
  const interrupt = new AbortController();
  const onSigint = (): void => {
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort(new LiteError('TASK_TERMINAL', 'interrupted'));
  };
  process.on('SIGINT', onSigint);
  const output = new RemoteOutput(context, json);
  const quiet = (text: string): void => {
    if (!json) note(context, text);
  };
  try {
    const request: SendRequest = {
        ...(target !== undefined ? { target } : {}),
        ...(values.skill !== undefined ? { skill: values.skill } : {}),
        ...(text !== undefined ? { text } : {}),
        attach: values.attach ?? [],
        reply: values.reply !== undefined,
        ...(values.task !== undefined ? { task: values.task } : {}),
        ...(values.context !== undefined ? { context: values.context } : {}),
        ...(values['idempotency-key'] !== undefined ? { idempotencyKey: values['idempotency-key'] } : {}),
        stream: values['no-stream'] !== true,
        allowCredentialText,
        ...(values['token-env'] !== undefined ? { tokenEnv: values['token-env'] } : {}),
        ...(values.transport !== undefined ? { binding: bindingOf(values.transport) } : {}),
        waitMs: waitSeconds * 1000,
        cwd: context.cwd,
        env: context.env,
        signal: interrupt.signal,
    };
    const listener: SendListener = { onChoice: quiet, onNote: quiet, onEvent: (event, _task, taken) => output.show(event, taken) };
    const token = values['token-env'] === undefined ? undefined : credentialFor(undefined, context.env, values['token-env'])?.token;
    const result =
      hub !== undefined && target === undefined && values.skill !== undefined
        ? await sendThroughHub(stores, hub, { ...request, skill: values.skill }, listener, token === undefined ? {} : { token })
        : await sendTask(stores, request, listener);
    if (result.interrupted !== undefined) {
      if (result.interrupted.error !== undefined) note(context, result.interrupted.error);
      output.finish(result.peer.id, result.task, result.state, result.files);
      return result.interrupted.cancelled ? output.exitCode(result.task, result.state) : 130;
    }
    // Still running when --timeout passed: exit 15, as for an agent that cannot be reached.
    if (result.timedOut !== undefined) throw result.timedOut;
    output.finish(result.peer.id, result.task, result.state, result.files);
    return output.exitCode(result.task, result.state);
  } finally {
    process.off('SIGINT', onSigint);
  }
}
