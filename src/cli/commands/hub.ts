// `a2a-lite hub`: one service that is a registry of agents, a relay for agents behind NAT, a
// standard A2A endpoint for each agent, and a catalog in the field's formats (docs/hub.md).

import { randomUUID } from 'node:crypto';
import { cardCompatProblem, type CardCompat } from '../../a2a/server/card-shape.js';
import { LiteError } from '../../errors.js';
import { createHubHandler, hubUpgrades } from '../../hub/hub-handler.js';
import { Hub } from '../../hub/hub.js';
import { DEFAULT_REQUEST_TIMEOUT, listen } from '../../net/node-http.js';
import { atMost, parseOptions } from '../args.js';
import type { Command } from '../context.js';
import { hubBacking, openHubBus, openHubStore } from '../hub-backing.js';
import { printLine } from '../output.js';
import { readTrustKeys } from '../key-files.js';
import { credentialsFrom } from '../token-flags.js';
import { CredentialSources } from '../credential-sources.js';
import { describeOperations, limitsFrom, OPERATIONS_HELP, OPERATIONS_OPTIONS, startOperations } from '../operations.js';
import { parseTokenFiles } from '../token-files.js';
import { reloadTlsOnHangup, tlsFiles, TLS_SERVER_HELP, TLS_SERVER_OPTIONS } from '../tls-flags.js';

export const command: Command = {
  usage: 'a2a-lite hub [--port N] [--host H] [--store sqlite|memory|postgres://…] [--db FILE] [--cluster nats://…] [--token-env NAME …] [--token-file NAME=PATH …] [--audit FILE] [--rate-limit R] [--allow-private] [--card-compat 1.0|0.3] [--require-signed-cards] [--trust-key FILE …] [--tls-cert FILE --tls-key FILE] [--console] [--json]',
  help: `Runs a hub for a network of A2A agents. Agents register by card URL, or dial in with
a2a-lite serve --hub URL (no inbound port needed: the hub relays their requests over the
connection they opened, a WebSocket, or an event stream where a proxy in between does not pass
WebSockets). Every agent is then a standard A2A endpoint at <hub>/agents/<id>, its
card at <hub>/agents/<id>/.well-known/agent-card.json; the hub checks their health, lists them
in /.well-known/ai-catalog.json, and ranks them for a2a-lite send --hub URL --skill S.

options:
  --port N, --host H      where to listen (default 7400 on 127.0.0.1; --port 0 picks a free port)
  --base-url URL          the address clients use, when it differs (behind a proxy)
${TLS_SERVER_HELP}
  --store sqlite|memory|postgres://user@host:port/db[?schema=S]
                          keep the registry in --db (default), only in memory, or in
                          PostgreSQL (the password from PGPASSWORD, never in the flag; or the
                          whole URL in A2A_LITE_HUB_STORE instead of the flag)
  --db FILE               the registry's SQLite file (default <home>/hub.db)
  --cluster nats://host:port
                          run as one instance of a hub that many share: every instance on the
                          same --store postgres://… and the same NATS (or A2A_LITE_CLUSTER).
                          An agent dialled in to any instance is reached through every other
  --cluster-prefix P      the NATS subject prefix of the cluster (default a2a-lite.hub): one
                          per cluster on a shared NATS
  --token-env NAME        accept the token in the environment variable NAME, for agents and
                          clients alike; repeat it for each. With any, every request but the
                          catalog and the cards needs one, and an agent id belongs to the
                          token (the variable's name) that registered it first
  --token-file NAME=PATH  accept the token in the file PATH, as the principal NAME (one token;
                          read again on SIGHUP: a changed or emptied file's old token stops
                          working, its streams close and the agents that dialled in with it
                          are dropped); repeatable
${OPERATIONS_HELP}
  --allow-private         fetch cards from, and forward to, loopback and private addresses
                          (refused by default, against SSRF)
  --trust-key FILE        a public key (PEM, JWK or JWK set) trusted to sign agents' cards
                          (A2A §8.4); repeatable. The API and the console show, for each agent,
                          whether its card is signed and verified against these keys
  --require-signed-cards  register only agents whose card is signed by a --trust-key key
                          (CARD_SIGNATURE_INVALID, 403, otherwise); a card by URL that stops
                          verifying is not taken and the agent counts as down
  --heartbeat S           ping an agent's link once it is silent for S seconds (default 2);
                          the agent is told, and watches its side the same way
  --missed-pings N        a link silent for N heartbeats is dead: dropped, the agent marked
                          down (default 2: a dead link is found within 4 s)
  --write-timeout S       a link whose data goes unacknowledged for S seconds is dead too
                          (default 3)
  --check S               fetch the cards of agents registered by URL every S seconds to check
                          them (default 30; 0: never)
  --grace S               how long a request waits for its agent to reconnect (default 10)
  --max-hops N            refuse a message that has passed through N agents (default 8)
  --card-compat 1.0|0.3   the agents' cards for clients that say no A2A-Version: 1.0 (default)
                          passes the request on as it came; 0.3 asks each agent for its card
                          with the 0.3 fields, for 0.3 clients that send no version (the
                          JavaScript SDK 0.3); see docs/conformance.md
  --console               serve a live console at <hub>/console/: agents up or down, their
                          skills, load and latency, and the tasks passing through with their
                          progress, A2A-Lite transcript and raw events. The page asks for a
                          token when the hub has any (or open /console/#token=…)

examples:
  a2a-lite hub --port 7400 --token-env HUB_TOKEN_ALICE --token-env HUB_TOKEN_BOB
  a2a-lite serve --exec ./agent.sh --hub http://hub.example:7400 --hub-token-env HUB_TOKEN_ALICE`,
  async run(args, context) {
    const { values, positionals } = parseOptions('hub', args, {
      port: { type: 'string' },
      host: { type: 'string' },
      'base-url': { type: 'string' },
      store: { type: 'string' },
      db: { type: 'string' },
      cluster: { type: 'string' },
      'cluster-prefix': { type: 'string' },
      'token-env': { type: 'string', multiple: true },
      'token-file': { type: 'string', multiple: true },
      ...OPERATIONS_OPTIONS,
      'allow-private': { type: 'boolean' },
      heartbeat: { type: 'string' },
      'missed-pings': { type: 'string' },
      'write-timeout': { type: 'string' },
      check: { type: 'string' },
      grace: { type: 'string' },
      'max-hops': { type: 'string' },
      console: { type: 'boolean' },
      ...TLS_SERVER_OPTIONS,
      'card-compat': { type: 'string' },
      'trust-key': { type: 'string', multiple: true },
      'require-signed-cards': { type: 'boolean' },
    });
    atMost('hub', positionals, 0);
    const tls = tlsFiles('hub', values, context);
    const cardCompat = values['card-compat'];
    const compatProblem = cardCompat === undefined ? undefined : cardCompatProblem(cardCompat);
    if (compatProblem !== undefined) throw new LiteError('USAGE', `hub: --card-compat: ${compatProblem}`);
    const port = whole('--port', values.port ?? '7400', 65535);
    const backing = hubBacking(values, context);
    const sources = new CredentialSources('hub', { env: credentialsFrom('hub', values['token-env'], context) ?? [], files: parseTokenFiles('hub', '--token-file', values['token-file'], context.cwd) }, {}, (line) => void context.stderr.write(`${line}\n`));
    const tokens = sources.ring;
    const callerLimits = limitsFrom('hub', values, tokens !== undefined);
    const heartbeatMs = whole('--heartbeat', values.heartbeat ?? '2', 3600, 1) * 1000;
    const missedPings = whole('--missed-pings', values['missed-pings'] ?? '2', 100, 1);
    const writeTimeoutMs = whole('--write-timeout', values['write-timeout'] ?? '3', 3600, 1) * 1000;
    const checkMs = whole('--check', values.check ?? '30', 86_400) * 1000;
    const graceMs = whole('--grace', values.grace ?? '10', 3600) * 1000;
    const maxHops = whole('--max-hops', values['max-hops'] ?? '8', 100, 1);
    const operations = startOperations('hub', values, context, sources);
    const trustKeys = readTrustKeys(context, values['trust-key'] ?? [], '--trust-key');
    // A key the agent serves itself proves nothing to the hub about who the agent is.
    if (values['require-signed-cards'] && trustKeys.length === 0) throw new LiteError('USAGE', 'hub: --require-signed-cards needs --trust-key FILE: cards are checked against keys the hub trusts');
    const cardSignatures = { trustKeys, required: values['require-signed-cards'] ?? false };
    const { store, where } = await openHubStore(backing, values, context);
    const instance = randomUUID();
    const bus = backing.cluster === undefined ? undefined : await openHubBus(backing.cluster, instance, context).catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
    let baseUrl = values['base-url']?.replace(/\/+$/, '') ?? '';
    const hub = new Hub({ store, baseUrl: () => baseUrl, allowPrivate: values['allow-private'] ?? false, heartbeatMs, missedPings, writeTimeoutMs, checkMs, graceMs, maxHops, instance, cardSignatures, ...(bus === undefined ? {} : { cluster: { bus } }) });
    await hub.start();
    // Cards fetched when the hub starts (in a cluster, by the instance leading the checks): agents registered by URL are up again at once.
    void hub.checkUrlAgents();
    // Bodies as large as an agent's answer with its files; a relay stream may hold several
    // uploads on their way to a slow agent.
    const limits = { maxBodyBytes: 64 * 1024 * 1024, maxStreamBacklogBytes: 256 * 1024 * 1024, requestTimeout: DEFAULT_REQUEST_TIMEOUT };
    // An agent's WebSocket link carries the same bodies, one message each.
    const handler = createHubHandler(hub, { auth: tokens === undefined ? {} : { keys: tokens }, ...(callerLimits === undefined ? {} : { limits: callerLimits }), ...(operations.audit === undefined ? {} : { audit: operations.audit }), console: values.console ?? false, ...(cardCompat === undefined ? {} : { cardCompat: cardCompat as CardCompat }), link: { maxMessageBytes: limits.maxBodyBytes + 1024 * 1024, maxBacklogBytes: limits.maxStreamBacklogBytes } });
    const server = await listen(handler, { port, host: values.host ?? '127.0.0.1', keepAliveTimeout: 65_000, ...limits, upgrades: hubUpgrades(handler, limits), ...(tls === undefined ? {} : { tls: tls.credentials }) });
    if (tls !== undefined) reloadTlsOnHangup(tls, server, (line) => context.stderr.write(`a2a-lite hub: ${line}\n`));
    if (baseUrl === '') baseUrl = server.url;
    const cluster = backing.cluster === undefined ? undefined : { bus: backing.cluster.shown, prefix: backing.cluster.prefix, instance };
    const info = { hub: baseUrl, catalog: `${baseUrl}/.well-known/ai-catalog.json`, api: `${baseUrl}/hub/v1`, store: where, ...(cluster === undefined ? {} : { cluster }), auth: tokens === undefined ? 'none' : `${sources.count} token(s)`, ...(callerLimits === undefined ? {} : { limits: callerLimits }), ...(operations.auditPath === undefined ? {} : { audit: operations.auditPath }), allowPrivate: hub.allowPrivate, signedCards: cardSignatures.required ? 'required' : trustKeys.length > 0 ? 'checked' : 'not checked', ...(values.console ? { console: `${baseUrl}/console/` } : {}) };
    if (values.json) printLine(context, JSON.stringify(info));
    else {
      printLine(context, `hub on ${baseUrl}`);
      printLine(context, `  agents:   ${baseUrl}/agents/<id> (A2A 1.0 JSON-RPC and HTTP+JSON, 0.3)`);
      printLine(context, `  catalog:  ${info.catalog}`);
      printLine(context, `  API:      ${info.api} (agents, route, tasks, events)`);
      if (info.console !== undefined) printLine(context, `  console:  ${info.console}${tokens === undefined ? '' : ' (open it with #token=… or type the token in)'}`);
      printLine(context, `  registry: ${where}`);
      if (cluster !== undefined) printLine(context, `  cluster:  ${cluster.bus} (prefix ${cluster.prefix}), this instance ${instance}`);
      printLine(context, `  auth:     ${info.auth}${hub.allowPrivate ? '; private addresses allowed' : ''}`);
      if (callerLimits !== undefined || operations.auditPath !== undefined) printLine(context, `  limits:   ${describeOperations(callerLimits, operations.auditPath)}`);
      if (trustKeys.length > 0) printLine(context, `  cards:    signatures checked against ${trustKeys.length} trusted key(s)${cardSignatures.required ? '; required to register' : ''}`);
    }
    if (!values.json) logAgents(hub, (line) => printLine(context, line));
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    await hub.stop();
    await server.close();
    await bus?.close();
    await store.close();
    await operations.close();
    if (!values.json) printLine(context, `stopped (${signal})`);
    return 0;
  },
};

/** A line when an agent registers, is removed, goes down or comes back; not for each new latency. */
function logAgents(hub: Hub, print: (line: string) => void): void {
  const up = new Map<string, boolean>();
  hub.events.listen((event) => {
    if (event.type === 'agent.registered') print(`agent ${event.agentId} registered (${event.kind === 'url' ? 'by URL' : 'connected'}, ${event.name} ${event.version})`);
    else if (event.type === 'agent.removed') print(`agent ${event.agentId} removed`);
    else if (event.type === 'agent.health' && up.get(event.agentId) !== event.health.up) {
      up.set(event.agentId, event.health.up);
      print(event.health.up ? `agent ${event.agentId} is up` : `agent ${event.agentId} is down: ${event.health.reason ?? 'no answer'}`);
    }
  });
}

function whole(option: string, value: string, max: number, min = 0): number {
  if (!/^\d+$/.test(value) || Number(value) > max || Number(value) < min) throw new LiteError('USAGE', `hub: ${option} is a whole number from ${min} to ${max}`);
  return Number(value);
}
