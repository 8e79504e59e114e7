// The agent's side of the relay: `serve --hub URL` dials out to the hub and keeps that
// connection open, runs every request the hub sends down it through the agent's own A2A
// handler (no listening port needed), and sends each answer back as frames, a stream's events
// as they come. The connection is a WebSocket carrying frames both ways; where the hub or a
// proxy in between does not upgrade, it is an event stream down and posts of frames back up.
// A cut connection is dialled again: the next hub of a cluster at once, then, once every hub
// has failed in turn, with growing pauses.

import type { IncomingAnswer } from '../net/outbound.js';
import type { A2AHandler } from '../a2a/server/http.js';
import type { HttpRequest } from '../net/http-types.js';
import { SseParser } from '../net/sse.js';
import { LiteError } from '../errors.js';
import { overBytes, readText } from '../net/body.js';
import { decodeDownFrame, encodeLinkFrame, type DownFrame, type UpFrame } from './frames.js';
import { DEFAULT_MAX_BODY, STATUS_ERROR_HEADERS, tooLargeBody } from '../net/node-http.js';
import { Outbox } from './outbox.js';
import { Silence } from './silence.js';
import { CLOSE, type WebSocketLink } from '../net/websocket.js';
import { dialLink } from '../net/websocket-dial.js';

/** The agent's side of its link: a request from the hub holds a body of up to 64 MiB. */
const LINK = { maxMessageBytes: 80 * 1024 * 1024, maxBacklogBytes: 256 * 1024 * 1024 };

export interface ConnectorOptions {
  /**
   * The hub's base URL, e.g. `http://hub.example:7400`; or the URLs of several hubs of one
   * cluster, dialled in turn: the first that answers takes the agent, and when it dies the next
   * is dialled at once.
   */
  hubUrl: string | readonly string[];
  agentId: string;
  /** The bearer token the hub knows this agent by. */
  token?: string;
  /** Offer this agent to the routed sends of every principal of the hub, not only its owner's. */
  shared?: boolean;
  handler: A2AHandler;
  /**
   * The largest request body the agent takes (its `serve --max-body`; default 4 MiB): the hub
   * is told, and refuses larger ones before they are sent; any that still comes is answered 413.
   */
  maxBodyBytes?: number;
  /** A line for the operator: connected, lost, retrying. */
  log?: (line: string) => void;
  /** The hub refused this agent for good (bad token, id owned by another). */
  onRefused?: (error: LiteError) => void;
  /** Told the address the hub publishes this agent at, on every (re)connect. */
  onBaseUrl?: (url: string) => void;
  /** Pauses between attempts grow from `minBackoffMs` to `maxBackoffMs` (defaults 200 ms, 10 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface HubConnection {
  /** True while the connection is up and the hub routes the agent's requests down it (its card is registered). */
  readonly connected: boolean;
  /** The hub dialled last: the one connected to, while `connected`. */
  readonly hubUrl: string;
  /** Resolves once connected (again): from then on, requests sent to the agent through the hub reach it. */
  ready(): Promise<void>;
  close(): void;
}

/** Dials the hub and keeps dialling until closed. */
export function connectToHub(options: ConnectorOptions): HubConnection {
  const log = options.log ?? (() => {});
  const hubs = (typeof options.hubUrl === 'string' ? [options.hubUrl] : options.hubUrl).map((url) => url.replace(/\/+$/, ''));
  if (hubs.length === 0) throw new LiteError('USAGE', 'connectToHub needs the URL of at least one hub');
  /** The hub dialled now, and how many in a row have failed since one last said hello. */
  let at = 0;
  let failedInARow = 0;
  let hub = hubs[0] as string;
  const auth: Record<string, string> = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  const stop = new AbortController();
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  let connected = false;
  let waiters: (() => void)[] = [];
  /** The agent's URL at the hub, from this connection's hello. */
  let baseUrl: string | undefined;

  /** Whether a hub has routed this agent's requests since it started. */
  let everRouted = false;
  const routedNow = (): void => {
    connected = true;
    everRouted = true;
    log(`connected to the hub ${hub} as ${options.agentId}: ${baseUrl}`);
    for (const wake of waiters.splice(0)) wake();
  };

  /** Acts on one frame from the hub; `out` sends the answers back the way this session does. */
  const dispatch = (frame: DownFrame, running: Map<string, AbortController>, out: (frame: UpFrame) => void, onHello: (hello: Extract<DownFrame, { type: 'hello' }>) => void): void => {
    if (frame.type === 'hello') {
      onHello(frame);
      failedInARow = 0;
      backoff = options.minBackoffMs ?? 200;
      baseUrl = frame.baseUrl;
      options.onBaseUrl?.(frame.baseUrl);
      // Until the hub has read and registered the card, requests for the agent find nothing there.
      if (frame.routed !== false) routedNow();
    } else if (frame.type === 'routed') {
      if (baseUrl !== undefined && !connected) routedNow();
    } else if (frame.type === 'ping') {
      out({ type: 'pong', seq: frame.seq });
    } else if (frame.type === 'abort') {
      running.get(frame.rid)?.abort();
    } else if (frame.type === 'request') {
      const gone = new AbortController();
      running.set(frame.rid, gone);
      void answer(options.handler, frame, gone.signal, out, maxBody).finally(() => running.delete(frame.rid));
    }
  };

  /**
   * One connection to the hub, until it ends: a WebSocket, or an event stream if the hub (or a
   * proxy) does not upgrade. Resolves with how it ended: which side noticed, and how.
   */
  const session = async (): Promise<string> => {
    const dialled = await dialLink(`${hub}/hub/v1/connect?agent=${encodeURIComponent(options.agentId)}${options.shared === true ? '&shared=true' : ''}&maxBody=${maxBody}&watch=ws`, auth, LINK, stop.signal);
    const running = new Map<string, AbortController>();
    try {
      if ('link' in dialled) return await linkSession(dialled.link, running);
      return await answeredSession(dialled.response, running);
    } finally {
      connected = false;
      baseUrl = undefined;
      // Streams relayed over this connection end with it; their clients resubscribe.
      for (const gone of running.values()) gone.abort();
    }
  };

  const linkSession = (link: WebSocketLink, running: Map<string, AbortController>): Promise<string> =>
    new Promise((resolve, reject) => {
      const out = (frame: UpFrame): void => link.send(encodeLinkFrame(frame));
      const leave = (): void => link.close(CLOSE.goingAway);
      const quiet = new Silence((why) => link.drop(why));
      stop.signal.addEventListener('abort', leave, { once: true });
      link.onClose((why) => {
        quiet.stop();
        stop.signal.removeEventListener('abort', leave);
        // Refused before it was ever routed (its card, say): the agent has not started, and its
        // operator must act; later, a refusal is logged with the rest and the agent dials again.
        const refused = why.startsWith(`the other side closed the link (close code ${CLOSE.refused}:`);
        if (refused && !everRouted && !stop.signal.aborted) return reject(new LiteError('FORBIDDEN', `the hub ${hub} refused agent ${options.agentId}: ${why}`));
        resolve(why);
      });
      link.messages((payload) => {
        let frame: DownFrame;
        try {
          frame = decodeDownFrame(payload);
        } catch (error) {
          link.close(CLOSE.protocolError, (error as Error).message);
          return;
        }
        quiet.heard();
        dispatch(frame, running, out, (hello) => {
          // The hub says how it watches the link: this side does the same, with WebSocket pings
          // once the hub's have been missed for half a heartbeat. A hub that does not say is heard for.
          if (hello.missed === undefined) quiet.expect(hello.heartbeatMs, 3);
          else link.keepWatch({ intervalMs: hello.heartbeatMs, missed: hello.missed, writeTimeoutMs: hello.writeTimeoutMs ?? hello.heartbeatMs * hello.missed, pingAfterMs: hello.heartbeatMs * 1.5 });
        });
      });
    });

  /** The hub answered without upgrading: a refusal, or an event stream of requests (answers go back in posts). */
  const answeredSession = async (response: IncomingAnswer, running: Map<string, AbortController>): Promise<string> => {
    const status = response.statusCode ?? 0;
    if (status === 401 || status === 403 || status === 409) {
      let message = `HTTP ${status}`;
      try {
        const said = (JSON.parse(await text(response)) as { error?: { message?: unknown } }).error?.message;
        if (typeof said === 'string') message = said;
      } catch {
        // Not the hub's JSON: the status says enough.
      }
      throw new LiteError(status === 401 ? 'AUTH_REQUIRED' : 'FORBIDDEN', `the hub refused agent ${options.agentId}: ${message}`);
    }
    if (status !== 200) {
      response.resume();
      throw new Error(`the hub answered HTTP ${status}`);
    }
    let ended = 'the hub ended the event stream';
    const quiet = new Silence((why) => {
      ended = why;
      response.destroy();
    });
    const outbox = new Outbox(hub, auth, (why) => quiet.end(why));
    const out = (frame: UpFrame): void => outbox.push(frame);
    const parser = new SseParser();
    const decoder = new TextDecoder();
    try {
      for await (const bytes of response) {
        quiet.heard();
        for (const event of parser.push(decoder.decode(bytes as Uint8Array, { stream: true }))) {
          dispatch(JSON.parse(event.data) as DownFrame, running, out, (hello) => {
            outbox.session = hello.session;
            outbox.timeoutMs = hello.writeTimeoutMs ?? 3 * hello.heartbeatMs;
            quiet.expect(hello.heartbeatMs, hello.missed ?? 3);
          });
        }
      }
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (ended === 'the hub ended the event stream') ended = `TCP error ${code ?? ''}: ${(error as Error).message}`.replace('  ', ' ');
    } finally {
      quiet.stop();
    }
    return ended;
  };

  let backoff = options.minBackoffMs ?? 200;
  const max = options.maxBackoffMs ?? 10_000;
  /** Moves on to the next hub; a pause only once every hub has failed in turn. */
  const next = async (): Promise<void> => {
    failedInARow += 1;
    at = (at + 1) % hubs.length;
    hub = hubs[at] as string;
    if (failedInARow < hubs.length) return;
    failedInARow = 0;
    await new Promise((resolve) => setTimeout(resolve, backoff * (0.75 + Math.random() / 2)));
    backoff = Math.min(max, backoff * 2);
  };
  void (async () => {
    while (!stop.signal.aborted) {
      const dialled = hub;
      try {
        const why = await session();
        if (!stop.signal.aborted) log(`lost the hub ${dialled}: ${lostWords(why)}; ${hubs.length > 1 ? `dialling ${hubs[(at + 1) % hubs.length]}` : 'reconnecting'}`);
      } catch (error) {
        if (stop.signal.aborted) break;
        if (error instanceof LiteError) {
          // Trying again would be refused again: whoever started the agent must act.
          if (options.onRefused === undefined) log(error.message);
          else options.onRefused(error);
          break;
        }
        log(`cannot reach the hub ${dialled} (${(error as Error).message}); ${hubs.length > 1 ? `trying ${hubs[(at + 1) % hubs.length]}` : `retrying in ${Math.round(backoff)} ms`}`);
      }
      await next();
    }
  })();

  return {
    get connected() {
      return connected;
    },
    get hubUrl() {
      return hub;
    },
    ready: () => (connected ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    close() {
      stop.abort();
      waiters = [];
    },
  };
}

/** Runs one relayed request through the agent's handler and queues its answer. */
async function answer(handler: A2AHandler, frame: Extract<DownFrame, { type: 'request' }>, signal: AbortSignal, out: (frame: UpFrame) => void, maxBody: number): Promise<void> {
  if (overBytes(frame.body, maxBody)) {
    out({ type: 'response', rid: frame.rid, status: 413, headers: { ...STATUS_ERROR_HEADERS }, body: JSON.stringify(tooLargeBody(maxBody)) });
    return;
  }
  const request: HttpRequest = { method: frame.method, path: frame.path, query: new URLSearchParams(frame.query), headers: frame.headers, body: frame.body, signal, remoteAddress: 'hub' };
  // Tasks are the principal's the hub authenticated: another caller of the hub cannot see them.
  if (typeof frame.principal === 'string' && frame.principal !== '') request.principal = `hub:${frame.principal}`;
  const response = await handler(request);
  if ('body' in response) {
    out({ type: 'response', rid: frame.rid, status: response.status, headers: response.headers, body: response.body });
    return;
  }
  out({ type: 'head', rid: frame.rid, status: response.status, headers: response.headers });
  const events = response.events[Symbol.asyncIterator]();
  const stop = (): void => void events.return?.();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const next = await events.next();
      if (next.done || signal.aborted) break;
      out({ type: 'chunk', rid: frame.rid, data: next.value });
    }
  } finally {
    signal.removeEventListener('abort', stop);
    out({ type: 'end', rid: frame.rid });
  }
}

/** The body of a refusal: the hub's words are short, so more than 64 KiB is no words at all. */
async function text(response: IncomingAnswer): Promise<string> {
  return readText(response, 64 * 1024).catch(() => '');
}

/** Why the link to the hub ended, with who noticed it and when. */
function lostWords(why: string, at = new Date()): string {
  const peer = /^the other side closed the link(.*)$/.exec(why);
  const said = peer === null ? `noticed here: ${why}` : `the hub closed the link${peer[1] ?? ''}`;
  return `${said}, at ${at.toISOString()}`;
}
