// `serve --hub URL`: the agent dials out to an a2a-lite hub and takes its requests over that
// connection, so that it needs no inbound port, and opens none unless `--port N` asks for one.
// Its card then names the hub.

import type { A2AHandler } from '../../a2a/server/http.js';
import { LiteError } from '../../errors.js';
import type { HubConnection } from '../../hub/connector.js';
import type { Context } from '../context.js';
import { tokenFrom } from '../token-flags.js';

export const HUB_OPTIONS = {
  hub: { type: 'string' },
  'hub-token-env': { type: 'string' },
  'hub-id': { type: 'string' },
  'hub-shared': { type: 'boolean' },
} as const;

export const HUB_HELP = `  --hub URL[,URL...]      also take requests through the a2a-lite hub at URL: this agent dials
                          out to it (no inbound port needed) and is published there at
                          URL/agents/<id>, which its card then names (unless --base-url).
                          Several URLs: hubs of one cluster (hub --cluster), dialled in turn;
                          when the one it is connected to dies, the next is dialled at once
  --hub-token-env NAME    the token to present to the hub: the value of the variable NAME
  --hub-id ID             the id to register at the hub (default: the card's agent id)
  --hub-shared            let the hub route every principal's sends for this agent's skills
                          here (send --hub --skill); without it, only sends made with this
                          agent's own hub token are routed to it (anyone may still call it
                          by its id)
                          With --hub, serve listens on no port of its own: the hub is the way
                          in. --port N (and --host H) opens one too; answer there is with the
                          auth flags alone, not the hub's tokens`;

export interface HubFlags {
  /** The first hub's URL. */
  url: string;
  /** Every hub's URL, the first included, in the order they are dialled. */
  urls: string[];
  id: string;
  token?: string;
  shared?: boolean;
}

/**
 * The port serve listens on, as --port gives it, or undefined for none: 7331 by default, but
 * none through a hub unless --port asks (an agent behind a hub has no reason to be reachable
 * another way, and a port opened by default would be one more, unguarded by the hub's tokens).
 */
export function listenPort(values: { hub?: string; port?: string; host?: string }): string | undefined {
  if (values.port === 'none') return undefined;
  if (values.port !== undefined) return values.port;
  if (values.hub === undefined) return '7331';
  if (values.host !== undefined) throw new LiteError('USAGE', 'serve: with --hub, --host needs --port N: an agent behind a hub listens on no port of its own unless asked');
  return undefined;
}

/** The hub settings the flags give, checked; undefined without --hub. */
export function hubFlags(values: { hub?: string; 'hub-token-env'?: string; 'hub-id'?: string; 'hub-shared'?: boolean; port?: string }, cardId: string, context: Context): HubFlags | undefined {
  if (values.hub === undefined) {
    if (values['hub-token-env'] !== undefined || values['hub-id'] !== undefined || values['hub-shared'] !== undefined) throw new LiteError('USAGE', 'serve: --hub-token-env, --hub-id and --hub-shared need --hub URL');
    if (values.port === 'none') throw new LiteError('USAGE', 'serve: --port none needs --hub URL, or no client could reach this agent');
    return undefined;
  }
  const urls = values.hub.split(',').map((text) => hubUrl(text.trim()));
  const id = values['hub-id'] ?? cardId;
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(id)) throw new LiteError('USAGE', `serve: the hub id "${id.slice(0, 64)}" is not 1 to 64 letters, digits, ".", "_" or "-"; give --hub-id`);
  const flags: HubFlags = { url: urls[0] as string, urls, id };
  if (values['hub-token-env'] !== undefined) flags.token = tokenFrom('serve', '--hub-token-env', values['hub-token-env'], context);
  if (values['hub-shared'] === true) flags.shared = true;
  return flags;
}

/** One URL of --hub, checked; without a trailing slash. */
function hubUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LiteError('USAGE', `serve: --hub takes the URL of an a2a-lite hub (or several, comma-separated), e.g. http://hub.example:7400; "${text.slice(0, 100)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new LiteError('USAGE', 'serve: --hub is an http or https URL');
  return url.href.replace(/\/+$/, '');
}

/**
 * Connects to the hub and resolves once the hub has said hello, or rejects when the hub refuses
 * this agent (bad token, id taken). Later cuts are dialled again, said on stderr.
 */
export async function startHubConnection(flags: HubFlags, handler: A2AHandler, context: Context, onBaseUrl: (url: string) => void, maxBodyBytes?: number): Promise<{ connection: HubConnection; refused: Promise<LiteError> }> {
  let refuse: (error: LiteError) => void = () => {};
  const refused = new Promise<LiteError>((resolve) => (refuse = resolve));
  let first = true;
  // The relay and its WebSocket library load only for an agent that dials a hub.
  const { connectToHub } = await import('../../hub/connector.js');
  const connection = connectToHub({
    hubUrl: flags.urls,
    agentId: flags.id,
    ...(flags.token === undefined ? {} : { token: flags.token }),
    ...(flags.shared === true ? { shared: true } : {}),
    handler,
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
    onBaseUrl,
    onRefused: refuse,
    log: (line) => {
      // The first connection is reported on stdout with the rest of serve's start-up.
      if (first && line.startsWith('connected')) first = false;
      else context.stderr.write(`a2a-lite serve: ${line}\n`);
    },
  });
  const outcome = await Promise.race([connection.ready().then(() => undefined), refused]);
  if (outcome !== undefined) {
    connection.close();
    throw outcome;
  }
  return { connection, refused };
}
