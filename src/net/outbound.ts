// Every request the hub makes to an address someone else gave it (a card URL at registration,
// the agent behind it when forwarding) goes through the SSRF guard that webhooks use: private
// and loopback addresses are refused unless the hub runs with --allow-private (link-local and
// cloud metadata ones always), and the connection goes to the address that was checked.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { LiteError } from '../errors.js';
import { checkAddress, pinnedLookup } from './address-guard.js';

export interface GuardedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** Milliseconds to wait for the response's head (default 10 s). */
  timeoutMs?: number;
}

/** The response, its body still to be read (or destroyed). */
export async function guardedFetch(url: string, options: GuardedRequest): Promise<IncomingMessage> {
  let target;
  try {
    target = await checkAddress(url, { allowPrivateNetworks: options.allowPrivate });
  } catch (error) {
    if (error instanceof LiteError && error.code === 'WEBHOOK_REFUSED') {
      const { address, reason, allowable } = (error.details ?? {}) as { address?: string; reason?: string; allowable?: boolean };
      const hint = allowable === true ? 'start the hub with --allow-private to allow private addresses' : 'no setting allows it';
      throw new LiteError('FORBIDDEN', `the hub does not call ${new URL(url).host}${address === undefined ? '' : ` (${address})`}: it is a ${reason ?? 'refused'} address; ${hint}`);
    }
    throw error;
  }
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = send(target.url, { method: options.method ?? 'GET', headers: options.headers, lookup: pinnedLookup(target), signal: options.signal, timeout: options.timeoutMs ?? 10_000 }, resolve);
    req.on('timeout', () => req.destroy(new LiteError('PEER_UNREACHABLE', `${target.url.host} did not answer in time`)));
    req.on('error', (error) => reject(error instanceof LiteError ? error : new LiteError('PEER_UNREACHABLE', `cannot reach ${target.url.host}: ${error.message}`)));
    req.end(options.body);
  });
}
