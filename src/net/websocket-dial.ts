// The dialling end of a relay link: the agent asks the hub for a WebSocket, and takes an event
// stream where the hub, or a proxy in between, does not upgrade.

import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket, { type ClientOptions } from 'ws';
import { certificateRefusal, clientTls, isCertificateError } from './tls.js';
import { settings, spoken, WebSocketLink, type LinkOptions } from './websocket.js';

/** How a dial ended: a link, or the HTTP answer of a server that did not upgrade. */
export type Dialled = { link: WebSocketLink } | { response: IncomingMessage };

/**
 * Dials `url` asking for a WebSocket with the relay's subprotocols (the batched one first), and
 * also accepting an event stream, so that a server (or a proxy in between) that does not upgrade
 * still answers. A server that picks a subprotocol not offered, or none, is refused.
 */
export function dialLink(url: string, headers: Record<string, string>, options: LinkOptions, signal: AbortSignal): Promise<Dialled> {
  if (signal.aborted) return Promise.reject(new Error('the dial was aborted'));
  return new Promise((resolve, reject) => {
    const client: ClientOptions = { headers: { ...headers, accept: 'text/event-stream' }, followRedirects: false, ...settings(options), ...clientTls() };
    const ws = new WebSocket(url, spoken(options), client);
    const abort = (): void => ws.terminate();
    signal.addEventListener('abort', abort, { once: true });
    let socket: Socket | undefined;
    ws.on('upgrade', (response) => (socket = response.socket));
    ws.on('unexpected-response', (_request, response) => {
      response.once('close', () => signal.removeEventListener('abort', abort));
      resolve({ response });
    });
    ws.once('open', () => {
      signal.removeEventListener('abort', abort);
      // `ws` tells of the upgrade, with its connection, before it is open.
      resolve({ link: new WebSocketLink(ws, socket as Socket, options) });
    });
    // Before the link is open: the connection failed (a system error, with its code), or the
    // hub answered the handshake wrongly (no code). After, the link's own listener says why.
    ws.on('error', (error: Error & { code?: string }) => {
      if (isCertificateError(error)) {
        const target = new URL(url);
        void certificateRefusal(error, target.hostname.replace(/^\[|\]$/g, ''), Number(target.port || 443)).then(reject);
      } else reject(error.code === undefined ? new Error(`the hub answered the WebSocket handshake wrongly: ${error.message}`) : error);
    });
  });
}
