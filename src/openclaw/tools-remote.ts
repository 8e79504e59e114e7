// The plugin's tools that call other agents over A2A: discover (read and cache a card), send
// (give a task and follow it to its end, with progress as it comes), cancel. They share the
// client code of `a2a-lite discover|send|tasks cancel`, so a task sent from a tool is in the same
// ledger, and its files in the same downloads folder, as one sent from the shell.

import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { render } from '../card/render.js';
import { cacheDiscovered, fetchAgentCard } from '../client/discover.js';
import { credentialFor, isUrl, peerOf, transportFor } from '../client/peer.js';
import { RemoteRecord } from '../client/remote-record.js';
import { sendTask } from '../client/send-task.js';
import { LiteError, isLiteError } from '../errors.js';
import { format } from '../protocol/format.js';
import type { Message } from '../protocol/types.js';
import { checkAddress, placeOf, type AddressGuardOptions, type Refused } from '../net/address-guard.js';
import type { TokenRules } from '../client/token-rules.js';
import type { OpenStores } from './tools-local.js';
import { pluginTrail } from './trail.js';
import { bool, str, strings, type Schema, type ToolSpec } from './tool-kit.js';

export interface RemoteSettings {
  /** The folder attachments must lie in (the agent's workspace). */
  workspace: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Allow agents on loopback and private networks (never link-local metadata addresses). */
  allowPrivateNetworks: boolean;
  /** The token variables the operator allows, each bound to its origin; no other is ever read. */
  tokens: TokenRules;
  /** How names resolve, and names allowed on private addresses: the tests' stand-in for a public network. */
  network?: Pick<AddressGuardOptions, 'resolve' | 'allowPrivateHosts'>;
}

const DEFAULT_WAIT_S = 600;
/** The tokenEnv argument: one of the names the operator configured, when there are any. */
function tokenEnvArg(tokens: TokenRules): Schema {
  const names = tokens.names();
  if (names.length === 0) return str('The token to send, by the name of its environment variable; none is configured for this plugin, so leave it out');
  return str(`The token to send, by the name of its environment variable: one the operator configured (${names.join(', ')}), each sent only to its own origin`, { enum: names });
}

export function remoteTools(open: OpenStores, settings: RemoteSettings): ToolSpec[] {
  const tokenEnv = tokenEnvArg(settings.tokens);
  return [
    {
      name: 'a2a_lite_discover',
      label: 'A2A-Lite: discover an A2A agent',
      description: "Read the Agent Card of an A2A agent at a URL (any A2A 1.0 or 0.3 server, an a2a-lite serve, OpenClaw's a2a channel) and remember it as a known peer; returns its [A2A:card] reply.",
      properties: { url: str('The agent\'s base URL, e.g. https://agents.example.com/mexico'), tokenEnv },
      required: ['url'],
      async run(args) {
        const url = args.required('url');
        await checkAgentUrl(url, settings);
        const name = args.string('tokenEnv');
        if (name !== undefined) settings.tokens.checkName(name, 'a2a_lite_discover');
        const found = await fetchAgentCard(url, { guard: guardOf(settings) });
        // Kept with the agent only when it may go where the agent is called.
        if (name !== undefined) settings.tokens.check(name, found.card.interfaces[0]?.url, 'a2a_lite_discover');
        const { agent, replaced } = cacheDiscovered(open().agents, found, name === undefined ? {} : { tokenEnv: name });
        return { text: render(agent.card, 'en'), details: { id: agent.card.agent.id, replaced, card: agent.card, a2a: agent.cache.a2a ?? null } };
      },
    },
    {
      name: 'a2a_lite_send',
      label: 'A2A-Lite: send a task over A2A',
      description:
        'Give a task to an A2A agent (a URL, a known peer id, or any known peer offering a skill) and follow it to its end: returns the A2A-Lite result (or the question when the agent asks for input) and the files it sent back. Answer a question with reply=true and the task id.',
      properties: {
        target: str('The agent: its URL or a known peer id (leave out to choose by skill)'),
        text: str('The task, or the reply when reply is true'),
        skill: str('The skill asked for (chooses the agent when target is left out)'),
        attachments: strings('Files to send, inside the workspace'),
        reply: bool('The text answers a task that asked for input (task, else the newest such task)'),
        task: str('The task a reply continues'),
        context: str('The conversation (context id) the task belongs to'),
        tokenEnv,
        timeoutSeconds: { type: 'number', description: `How long to follow the task (default ${DEFAULT_WAIT_S})` },
      },
      async run(args, signal, progress, trace) {
        const target = args.string('target');
        const name = args.string('tokenEnv');
        if (name !== undefined) settings.tokens.checkName(name, 'a2a_lite_send');
        if (target !== undefined && isUrl(target)) await checkAgentUrl(target, settings);
        const attach = (args.strings('attachments') ?? []).map((file) => insideWorkspace(file, settings.workspace));
        const wait = args.number('timeoutSeconds') ?? DEFAULT_WAIT_S;
        if (wait <= 0) throw new LiteError('USAGE', 'a2a_lite_send: timeoutSeconds is more than 0');
        const notes: string[] = [];
        const stores = open();
        const result = await sendTask(
          stores,
          {
            ...(target !== undefined ? { target } : {}),
            ...optional('skill', args.string('skill')),
            ...optional('text', args.string('text')),
            attach,
            reply: args.boolean('reply') === true,
            ...optional('task', args.string('task')),
            ...optional('context', args.string('context')),
            ...optional('tokenEnv', name),
            tokenRules: settings.tokens,
            trail: pluginTrail(stores, settings.env),
            waitMs: wait * 1000,
            cwd: settings.workspace ?? process.cwd(),
            env: settings.env,
            ...(signal ? { signal } : {}),
            guard: guardOf(settings),
            ...(trace === undefined ? {} : { trace }),
          },
          {
            onChoice: (why) => notes.push(why),
            onNote: (text) => notes.push(text),
            onEvent: (_event, task, taken) => {
              if (taken.message !== undefined) progress(format(taken.message), { task: task?.id ?? null });
            },
          },
        );
        const last: Message | undefined = result.record.messages.at(-1);
        const files = result.files.map((f) => ({ name: f.name, ...(f.path ? { path: f.path } : {}), ...(f.url ? { url: f.url } : {}) }));
        const lines = [last === undefined ? 'the agent answered nothing' : format(last)];
        for (const file of files) lines.push(file.path ? `saved ${file.name} to ${file.path}` : `${file.name} is at ${file.url} (not downloaded)`);
        if (result.state === 'input-required') lines.push(`the agent asks for input: answer with a2a_lite_send reply=true task=${result.task?.id}`);
        if (result.interrupted) lines.push(result.interrupted.error ?? `cancelled task ${result.task?.id} at the agent`);
        if (result.timedOut) lines.push(`task ${result.task?.id} is still ${result.state} at the agent after ${wait} s; cancel it with a2a_lite_cancel, or see where it stands later with a2a_lite_tasks_show`);
        for (const n of notes) lines.push(`(${n})`);
        return {
          text: lines.join('\n\n'),
          details: {
            peer: result.peer.id,
            task: result.task?.id ?? null,
            contextId: result.task?.contextId ?? null,
            state: result.state ?? 'message',
            messages: result.record.messages.map((m) => format(m)),
            files,
            ...(result.timedOut ? { timedOut: true, timeoutMs: Math.round(wait * 1000) } : {}),
          },
        };
      },
    },
    {
      name: 'a2a_lite_cancel',
      label: 'A2A-Lite: cancel a task',
      description: 'Cancel, at the agent, a task this agent sent over A2A; returns where the task stands.',
      properties: { id: str('The task id'), peer: str('The peer, when two peers used the same id'), tokenEnv },
      required: ['id'],
      async run(args, _signal, _progress, trace) {
        const stores = open();
        const id = args.required('id');
        const record = stores.tasks.get(id, args.string('peer'));
        if (record.role !== 'requester') throw new LiteError('UNSUPPORTED_OPERATION', `task ${id} was given to this agent by ${record.peer}; only a task this agent sent can be cancelled at its agent`, { task: id });
        const peer = peerOf(stores.agents.get(record.peer));
        const task = await transportFor(peer, credentialFor(peer, settings.env, args.string('tokenEnv'), settings.tokens), { guard: guardOf(settings), ...(trace === undefined ? {} : { trace }) }).cancelTask(id);
        const remote = new RemoteRecord(stores, peer.id);
        const taken = remote.take({ kind: 'task', task }, task);
        return { text: taken.message ? format(taken.message) : `task ${id}: ${task.status.state}`, details: { task: id, peer: peer.id, state: remote.stateOf(task) } };
      },
    },
  ];
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/**
 * The address check of every request the plugin makes (cards, agents, the hub of a plan, each
 * redirect), when it connects: private networks only when the config allows them, link-local
 * and cloud metadata addresses never.
 */
export function guardOf(settings: RemoteSettings): AddressGuardOptions {
  const hint = settings.allowPrivateNetworks ? '' : '; set allowPrivateNetworks in the a2a-lite plugin config for agents on this machine or the local network';
  const refuse = (refused: Refused): LiteError =>
    new LiteError('FORBIDDEN', `the agent URL is refused: ${refused.url.origin} leads to ${placeOf(refused)}, a ${refused.reason} address${refused.allowable ? hint : '; no setting allows it'}`, { host: refused.host, address: refused.address, reason: refused.reason });
  return { ...settings.network, allowPrivateNetworks: settings.allowPrivateNetworks, refuse };
}

/** Refuses an agent URL on a network the settings do not allow, before anything is sent. */
export async function checkAgentUrl(url: string, settings: RemoteSettings): Promise<void> {
  try {
    await checkAddress(url, guardOf(settings));
  } catch (error) {
    if (!isLiteError(error) || error.code === 'FORBIDDEN') throw error;
    throw new LiteError('FORBIDDEN', `the agent URL is refused: ${error.message}`);
  }
}

/** The real path of an attachment, which must lie inside the workspace (links followed). */
export function insideWorkspace(file: string, workspace: string | undefined, tool = 'a2a_lite_send'): string {
  if (workspace === undefined) throw new LiteError('FORBIDDEN', `${tool}: this run has no workspace, so no file may be read from it`);
  let real: string;
  let root: string;
  try {
    root = realpathSync(workspace);
    real = realpathSync(resolve(root, file));
  } catch {
    throw new LiteError('FILE_NOT_FOUND', `${tool}: no file ${file} in the workspace`, { file });
  }
  const rel = relative(root, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new LiteError('FORBIDDEN', `${tool}: ${file} lies outside the workspace; only files inside it may be used`, { file });
  return real;
}
