// A client of a hub: asks it which agents offer a skill (ranked by the hub: skill match, active
// tasks, recent latency, only healthy ones), and sends a task to the best, trying the next when
// one is down or refuses before it accepted the task. Each choice is explained.

import { cacheDiscovered, fetchAgentCard } from '../client/discover.js';
import { refuseCredentials } from '../client/outgoing-message.js';
import { sendTask, type SendListener, type SendRequest, type SendResult } from '../client/send-task.js';
import { isLiteError, LiteError } from '../errors.js';
import type { Stores } from '../home/stores.js';
import type { KnownAgent } from '../home/known-agents.js';
import type { AddressGuardOptions } from '../net/address-guard.js';
import { readBody } from '../net/body.js';
import { outboundFetch } from '../net/outbound-fetch.js';

export interface HubCandidate {
  id: string;
  name: string;
  /** The agent's A2A endpoint at the hub. */
  url: string;
  why: string;
}

export interface HubCallOptions {
  /** The hub's token (the agents' endpoints at the hub take the same one). */
  token?: string;
  /** Check the address of every request (the hub's, the agents' at it) when it connects. */
  guard?: AddressGuardOptions;
  /** Sends the hub's requests instead of the outbound request (tests); `guard` is then not applied to them. */
  fetch?: typeof fetch;
}

/** The most a hub's answer (a list of agents) may hold. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** Errors that mean the agent never took the task, so another may: down, unreachable, overloaded. */
const FAILOVER_CODES = new Set(['PEER_UNREACHABLE', 'PEER_ERROR', 'STORE_FULL', 'LEDGER_BUSY']);

/**
 * Whether a send that failed with `error` may be given to the next agent. The hub says whether
 * its agent had the request: `taken`, never (its task is there); `none`, always; `unknown` (the
 * link died before the agent acknowledged it), since every send carries an Idempotency-Key.
 * Other failures: when the code says the agent never took the task.
 */
export function mayTryAnother(error: unknown): boolean {
  if (!isLiteError(error)) return false;
  const delivery = (error.details as { delivery?: unknown } | undefined)?.delivery;
  if (delivery === 'taken') return false;
  return delivery === 'none' || delivery === 'unknown' || FAILOVER_CODES.has(error.code);
}

/** The agents `hubUrl` ranks for `skill`, best first; AGENT_NOT_FOUND when none is up. */
export async function hubCandidates(hubUrl: string, skill: string, options: HubCallOptions = {}): Promise<HubCandidate[]> {
  const body = await hubGet(hubUrl, `/hub/v1/route?skill=${encodeURIComponent(skill)}`, options);
  const list = (body as { candidates?: { agent: { id: string; name: string; url: string }; why: string }[] }).candidates ?? [];
  if (list.length === 0) throw new LiteError('AGENT_NOT_FOUND', `no agent that is up at the hub ${hubUrl} offers "${skill}"`, { skill });
  return list.map(({ agent, why }) => ({ id: agent.id, name: agent.name, url: agent.url, why }));
}

/**
 * Sends `request` to the best agent the hub finds for `request.skill`, failing over to the
 * next before any accepted the task. `listener.onChoice` hears each choice and each failover.
 *
 * @example
 * await sendThroughHub(stores, 'http://hub:7400', { skill: 'translate', text: 'Bonjour', waitMs: 60_000, cwd, env });
 */
export async function sendThroughHub(stores: Stores, hubUrl: string, request: SendRequest & { skill: string }, listener: SendListener = {}, options: HubCallOptions = {}): Promise<SendResult> {
  if (request.allowCredentialText !== true) refuseCredentials([{ kind: 'text', text: request.text ?? '' }]);
  const candidates = await hubCandidates(hubUrl, request.skill, options);
  const errors: string[] = [];
  for (const [index, candidate] of candidates.entries()) {
    const rest = candidates.length - index - 1;
    listener.onChoice?.(`hub chose ${candidate.id} (${candidate.name}) for "${request.skill}": ${candidate.why}${rest > 0 ? `; ${rest} more to try if it fails` : ''}`);
    try {
      // Straight on to the next candidate: the hub has already held the send for a while.
      return await sendTask(stores, { sendRetries: 0, ...request, target: candidate.url, ...(options.guard === undefined ? {} : { guard: options.guard }) }, listener);
    } catch (error) {
      if (!isLiteError(error) || !mayTryAnother(error) || rest === 0) {
        if (errors.length > 0 && isLiteError(error)) throw new LiteError(error.code, `${error.message} (tried before: ${errors.join('; ')})`);
        throw error;
      }
      errors.push(`${candidate.id}: ${error.message}`);
      listener.onChoice?.(`${candidate.id} did not take the task (${error.message}); trying the next`);
    }
  }
  throw new LiteError('AGENT_NOT_FOUND', `no agent took the task: ${errors.join('; ')}`);
}

/** Caches the agents of the hub (those offering `skill`, when given) as known agents reached through the hub. */
export async function discoverFromHub(stores: Stores, hubUrl: string, skill: string | undefined, options: HubCallOptions & { tokenEnv?: string } = {}): Promise<KnownAgent[]> {
  const body = await hubGet(hubUrl, `/hub/v1/agents${skill === undefined ? '' : `?skill=${encodeURIComponent(skill)}`}`, options);
  const agents = (body as { agents?: { url: string }[] }).agents ?? [];
  const known: KnownAgent[] = [];
  for (const agent of agents) {
    const found = await fetchAgentCard(agent.url, { ...(options.fetch === undefined ? {} : { fetch: options.fetch }), ...(options.guard === undefined ? {} : { guard: options.guard }) });
    known.push(cacheDiscovered(stores.agents, found, options.tokenEnv === undefined ? {} : { tokenEnv: options.tokenEnv }).agent);
  }
  return known;
}

async function hubGet(hubUrl: string, path: string, options: HubCallOptions): Promise<unknown> {
  const url = `${hubUrl.replace(/\/+$/, '')}${path}`;
  let response: Response;
  try {
    response = await (options.fetch ?? outboundFetch(options.guard))(url, { headers: { accept: 'application/json', ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }) }, signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    if (isLiteError(error)) throw error;
    const cause = (error as { cause?: { code?: string } }).cause;
    throw new LiteError('PEER_UNREACHABLE', `cannot reach the hub at ${hubUrl}: ${cause?.code ?? (error as Error).message}`);
  }
  let text: string | undefined;
  try {
    text = await readBody(response.body, MAX_ANSWER_BYTES);
  } catch (error) {
    throw new LiteError('PEER_UNREACHABLE', `the hub at ${hubUrl} stopped answering: ${(error as Error).message}`);
  }
  if (text === undefined) throw new LiteError('PEER_ERROR', `the hub at ${hubUrl} answered with more than ${MAX_ANSWER_BYTES} bytes`);
  if (response.status === 401) throw new LiteError('AUTH_REQUIRED', `the hub at ${hubUrl} wants a token: pass --token-env NAME`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new LiteError('PEER_ERROR', `the hub at ${hubUrl} answered HTTP ${response.status} with something that is not JSON`);
  }
  if (!response.ok) {
    const message = (body as { error?: { message?: unknown } }).error?.message;
    throw new LiteError('PEER_ERROR', `the hub at ${hubUrl} answered HTTP ${response.status}${typeof message === 'string' ? `: ${message}` : ''}`);
  }
  return body;
}
