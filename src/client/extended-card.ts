// Asking an agent for its extended card (A2A 1.0 §3.1.11; 0.3 agent/getAuthenticatedExtendedCard)
// with a credential, over the interface a client would call it by, in that interface's version.
// The answer is read as any card is (remote-card.ts).

import { LiteError } from '../errors.js';
import type { RemoteInterface } from '../model/remote-access.js';
import { readRpcReply, rpcRequest } from '../net/jsonrpc.js';
import { A2A_JSON } from '../media-types.js';
import { Http, parseJson } from './http-call.js';
import { notA2A, peerError } from './peer-errors.js';
import { readRemoteCard, type RemoteCard } from './remote-card.js';
import type { Credential, TransportOptions } from './transport.js';

/**
 * The extended card of the agent whose public card is `card`, asked for with `credential`.
 * Throws AUTH_REQUIRED when the agent refuses the credential, PEER_ERROR with the agent's words
 * when it gives none (UnsupportedOperation, ExtendedAgentCardNotConfigured), and INVALID_CARD
 * when what it gives is no card.
 *
 * @example
 * const found = await fetchAgentCard(url);
 * if (found.card.extendedCard) found.card = await fetchExtendedCard(found.card, { token });
 */
export async function fetchExtendedCard(card: RemoteCard, credential: Credential, options: Pick<TransportOptions, 'guard' | 'fetch' | 'timeoutMs'> = {}): Promise<RemoteCard> {
  const target = card.interfaces[0];
  if (target === undefined) throw new LiteError('INVALID_CARD', `the card at ${card.cardUrl} names no interface to ask for its extended card`);
  const http = new Http(target, { ...options, credential, security: card.security });
  const value = target.binding === 'HTTP+JSON' ? await overRest(http, target) : await overRpc(http, target);
  return readRemoteCard(value, card.cardUrl);
}

async function overRpc(http: Http, target: RemoteInterface): Promise<unknown> {
  const method = target.version === '1.0' ? 'GetExtendedAgentCard' : 'agent/getAuthenticatedExtendedCard';
  const params = target.tenant === undefined ? {} : { tenant: target.tenant };
  const response = await http.post(target.url, rpcRequest(1, method, params), { 'content-type': 'application/json', accept: 'application/json' });
  const reply = readRpcReply(parseJson(await http.text(response), target), 1);
  if (reply.kind === 'error') throw peerError(reply.error, target, response.status >= 400 ? response.status : undefined);
  if (reply.kind === 'invalid') throw notA2A(target, reply.problem);
  return reply.result;
}

async function overRest(http: Http, target: RemoteInterface): Promise<unknown> {
  const tenant = target.tenant === undefined ? '' : `/${encodeURIComponent(target.tenant)}`;
  const response = await http.get(`${target.url.replace(/\/+$/, '')}${tenant}/extendedAgentCard`, { accept: `${A2A_JSON}, application/json` });
  const value = parseJson(await http.text(response), target);
  if (response.ok) return value;
  const error = typeof value === 'object' && value !== null && 'error' in value ? (value as { error: unknown }).error : { code: response.status, message: `HTTP ${response.status}` };
  throw peerError(error, target, response.status);
}
