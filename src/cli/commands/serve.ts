// `a2a-lite serve`: this agent as a standard A2A server. Each task runs the --exec program;
// tasks (and, with --push, webhook configs and undelivered notifications) are kept in SQLite
// (or memory), for as long as the retention flags say; SIGTERM or Ctrl-C stops it cleanly.

import { join } from 'node:path';
import { createA2AHandler } from '../../a2a/server/handler.js';
import { JSONRPC_PATH } from '../../a2a/wire/agent-card.js';
import { JWKS_PATH } from '../../a2a/wire/card-signature.js';
import { retentionExtension } from '../../a2a/wire/retention-extension.js';
import type { LiteCard } from '../../card/types.js';
import { assertCard } from '../../card/validate.js';
import { LiteError } from '../../errors.js';
import { createAgent } from '../../runtime/agent.js';
import { resolveCommand } from '../../serve/exec-command.js';
import { execHandler, removeTaskFolders } from '../../serve/exec-handler.js';
import { listen } from '../../net/node-http.js';
import { startPushSender, type PushSender } from '../../serve/push-sender.js';
import { startReplySender } from '../../serve/reply-sender.js';
import { atMost, parseOptions, required } from '../args.js';
import type { Command, Context } from '../context.js';
import { parseJson, readInput } from '../input.js';
import { printLine } from '../output.js';
import { RETENTION_OPTIONS, describeRules, retentionFlags, rulesInForce } from '../retention-flags.js';
import { openStores } from '../stores.js';
import { loadOwnCard } from './card.js';
import { reloadTlsOnHangup, tlsFiles, TLS_SERVER_HELP, TLS_SERVER_OPTIONS } from '../tls-flags.js';
import { HUB_HELP, HUB_OPTIONS, hubFlags, listenPort, startHubConnection } from './serve-hub.js';
import { authFrom, replyPeersFrom } from './serve-clients.js';
import { describeOperations, limitsFrom, OPERATIONS_HELP, OPERATIONS_OPTIONS, startOperations } from '../operations.js';
import { CARD_HELP, CARD_OPTIONS, cardFlags } from './serve-cards.js';
import { signingFrom } from '../key-files.js';
import { PLAN_HELP, PLAN_OPTIONS, servedPlan } from './serve-plan.js';
import { GRPC_HELP, GRPC_OPTIONS, grpcFlags, startGrpc } from './serve-grpc.js';
import { describeStore, joinCluster, openServeStore, sharedStore, STORE_HELP, STORE_OPTIONS, storeChoice } from './serve-store.js';

export const command: Command = {
  usage: 'a2a-lite serve --exec CMD|--plan PLAN [--card FILE] [--port N] [--host H] [--store sqlite|memory|postgres://…] [--cluster nats://…] [--push] [--task-ttl D] [options]',
  help: `Serves this agent over Google's A2A protocol (1.0 JSON-RPC with streaming). Every new task
runs CMD in the task's own folder (<home>/work/<task id>/): the conversation arrives on stdin
as A2A-Lite text, and the program prints A2A-Lite back — [A2A:status …] lines for progress,
[A2A:status … state=input-required] to ask a question (state=auth-required to ask for
credentials), [A2A:result …] with [附件: file] lines for the result, or plain text with exit 0,
and [A2A:status … state=completed] for the words of the final status (by default a short
result's text). A non-zero exit fails the task. Streams number their events: a client cut off
resubscribes with Last-Event-ID and gets what it missed; a send retried with the same
Idempotency-Key gets the first send's task (docs/reliability.md).

options:
  --exec CMD              the program to run for each task (a shell command; paths in it are
                          relative to where serve starts, the program runs in the task's folder)
${PLAN_HELP}
  --card FILE             the card to serve (default: the home's agent-card.json)
${CARD_HELP}
  --port N, --host H      where to listen (default 7331 on 127.0.0.1; --port 0 picks a free port;
                          with --hub, no port unless --port is given)
  --base-url URL          the address clients use, when it differs (behind a proxy)
${TLS_SERVER_HELP}
  --sign-key FILE         sign the served card (A2A §8.4, JWS over its RFC 8785 form) with the
                          private key in FILE (PEM or JWK: Ed25519, P-256, P-384, RSA), and
                          publish the public key at /.well-known/jwks.json, which each
                          signature's jku names; --sign-kid ID names the key (default: its
                          RFC 7638 thumbprint), --sign-jku URL points elsewhere for it
${STORE_HELP}
  --timeout SECONDS       stop a program that runs longer (default 600)
  --max-body BYTES        refuse larger requests with 413 (default 4194304)
  --headers-timeout S     close a connection whose request headers take longer (default 10)
  --request-timeout S     close a connection whose whole request takes longer to arrive
                          (default 30; answering, and streams, are not limited)
  --keep-alive-timeout S  close an idle keep-alive connection after S seconds (default 5)
  --max-stream-backlog BYTES  drop a stream whose reader falls this far behind (default
                          1048576); the client can subscribe again
${GRPC_HELP}
${HUB_HELP}
  --push                  send push notifications: clients may register webhooks, which get
                          every update of their task, retried for about a minute. Off unless
                          given, since it has the server make requests to URLs clients choose.
  --auth-bearer-env NAME  require "Authorization: Bearer <token>", the token being the value of
                          the environment variable NAME; repeat it for each client
  --auth-api-key-env NAME require an API key, the value of the environment variable NAME, sent
                          in the header --api-key-header (default X-API-Key); repeatable
  --auth-bearer-file NAME=PATH, --auth-api-key-file NAME=PATH
                          the same, the token of the client NAME in the file PATH (one token;
                          read again on SIGHUP, so that it can be rotated); repeatable
                          Each variable or file holds one token and stands for one client,
                          named by the variable's name or NAME: a client sees, cancels and
                          follows only the tasks it made; anyone else's are "not found". The
                          card stays public.
${OPERATIONS_HELP}
  --allow-private-webhooks  with --push, allow webhooks on loopback and private addresses
                          (refused by default, against SSRF); link-local and cloud
                          metadata addresses are refused even so
  --reply-to NAME=URL     send the answers of the tasks the client NAME (the variable of its
                          --auth-bearer-env or --auth-api-key-env) makes back to it, as a
                          SendMessage to URL, its A2A JSON-RPC endpoint: for peers that send and
                          never come back for the answer, such as OpenClaw's a2a channel (URL
                          is then the gateway's /a2a/v1); repeatable
  --reply-token-env NAME=VAR  the token to present at NAME's URL: the value of VAR
  --task-ttl DURATION     delete an ended task (completed, failed, cancelled, rejected), with
                          its push configs and its folder, once its last status is DURATION old
  --input-timeout DURATION  end as failed a task that has waited DURATION for the client's
                          answer (input-required, auth-required), saying why
  --max-tasks N           keep at most N tasks: a new one beyond it deletes the oldest ended
                          task, and is refused (STORE_FULL) while none has ended
                          DURATION is 90s, 15m, 1h30m, 7d…; checked at start and every minute
                          (or a tenth of the shortest). The card declares them. With the SQLite
                          store they are remembered: a restart without them keeps them; give
                          one again to change it, or "off" to drop it.

examples:
  a2a-lite serve --exec "python3 agent.py" --port 7331
  a2a-lite serve --exec ./agent.sh --task-ttl 7d --input-timeout 1h --max-tasks 10000
  a2a-lite serve --exec ./agent.sh --auth-bearer-env FROM_OPENCLAW \\
    --reply-to FROM_OPENCLAW=http://127.0.0.1:18789/a2a/v1 --reply-token-env FROM_OPENCLAW=TO_OPENCLAW`,
  async run(args, context) {
    const { values, positionals } = parseOptions('serve', args, {
      exec: { type: 'string' },
      ...PLAN_OPTIONS,
      card: { type: 'string' },
      ...CARD_OPTIONS,
      port: { type: 'string' },
      host: { type: 'string' },
      'base-url': { type: 'string' },
      'sign-key': { type: 'string' },
      'sign-kid': { type: 'string' },
      'sign-jku': { type: 'string' },
      ...STORE_OPTIONS,
      timeout: { type: 'string' },
      'max-body': { type: 'string' },
      'headers-timeout': { type: 'string' },
      'request-timeout': { type: 'string' },
      'keep-alive-timeout': { type: 'string' },
      'max-stream-backlog': { type: 'string' },
      push: { type: 'boolean' },
      'allow-private-webhooks': { type: 'boolean' },
      'auth-bearer-env': { type: 'string', multiple: true },
      'auth-api-key-env': { type: 'string', multiple: true },
      'auth-bearer-file': { type: 'string', multiple: true },
      'auth-api-key-file': { type: 'string', multiple: true },
      ...OPERATIONS_OPTIONS,
      'api-key-header': { type: 'string' },
      'reply-to': { type: 'string', multiple: true },
      'reply-token-env': { type: 'string', multiple: true },
      ...RETENTION_OPTIONS,
      ...HUB_OPTIONS,
      ...TLS_SERVER_OPTIONS,
      ...GRPC_OPTIONS,
    });
    atMost('serve', positionals, 0);
    const tls = tlsFiles('serve', values, context);
    if (values.exec !== undefined && values.plan !== undefined) throw new LiteError('USAGE', 'serve: give --exec CMD or --plan PLAN, not both');
    const commandLine = values.plan === undefined ? required('serve', values.exec, '--exec CMD (or --plan PLAN)') : '';
    const portGiven = listenPort(values);
    const port = portGiven === undefined ? undefined : wholeNumber('--port', portGiven, 65535);
    const timeoutSeconds = wholeNumber('--timeout', values.timeout ?? '600', 86_400);
    const maxBodyBytes = wholeNumber('--max-body', values['max-body'] ?? String(4 * 1024 * 1024), 1024 * 1024 * 1024);
    const limits = {
      headersTimeout: wholeNumber('--headers-timeout', values['headers-timeout'] ?? '10', 3600) * 1000,
      requestTimeout: wholeNumber('--request-timeout', values['request-timeout'] ?? '30', 3600) * 1000,
      keepAliveTimeout: wholeNumber('--keep-alive-timeout', values['keep-alive-timeout'] ?? '5', 3600) * 1000,
      maxStreamBacklogBytes: wholeNumber('--max-stream-backlog', values['max-stream-backlog'] ?? String(1024 * 1024), 1024 * 1024 * 1024),
    };
    const chosen = storeChoice(values, context);
    if (values['allow-private-webhooks'] && !values.push) throw new LiteError('USAGE', 'serve: --allow-private-webhooks needs --push');
    if (values['allow-private-agents'] && values.plan === undefined) throw new LiteError('USAGE', 'serve: --allow-private-agents needs --plan PLAN');
    const retentionGiven = retentionFlags(values);
    const grpcGiven = grpcFlags(values);

    const { auth, sources } = authFrom(values, context);
    const callerLimits = limitsFrom('serve', values, sources.ring !== undefined);
    const operations = startOperations('serve', values, context, sources);
    const signing = signingFrom(values, context);
    const replyPeers = replyPeersFrom(values, context);
    const stores = openStores(values, context);
    const { home, paths } = stores;
    const plan = values.plan === undefined ? undefined : await servedPlan(values.plan, values, stores, context);
    const card = values.card !== undefined ? await cardFrom(values.card, context) : (plan?.card ?? loadOwnCard(values, context));
    const cards = await cardFlags(values, auth, card, context);
    const hub = hubFlags(values, card.agent.id, context);
    const store = await openServeStore(chosen, paths.database, context);
    const cluster = await joinCluster(chosen, card.agent.id, context);
    // Tasks the last run left unfinished (it crashed or was killed) end now, with the reason. A
    // shared store's replicas end those of a dead replica instead, once its lease has run out.
    const recovered = sharedStore(store) && cluster !== undefined ? [] : await store.recoverInterrupted('the server stopped before this task ended');
    const retention = await rulesInForce(store, retentionGiven);
    // The program must not see the tokens that guard the server: it could print them back.
    const hiddenEnv = [...(values['auth-bearer-env'] ?? []), ...(values['auth-api-key-env'] ?? []), ...(values['reply-token-env'] ?? []).map((pair) => pair.slice(pair.indexOf('=') + 1))];
    const workRoot = join(home.dir, 'work');
    const agent = createAgent({
      card,
      store,
      // The program runs in each task's folder: paths written relative to here are made absolute.
      onTask: plan?.onTask ?? execHandler({ command: resolveCommand(commandLine, context.cwd), workRoot, timeoutMs: timeoutSeconds * 1000, hiddenEnv }),
      ...(Object.keys(retention.rules).length === 0 ? {} : { retention: retention.rules }),
      ...(cluster === undefined ? {} : { cluster }),
    });
    // A deleted task's folder goes with it, on every replica (only one of them deletes tasks).
    const removeFolders = (ids: readonly string[]): void => void removeTaskFolders(workRoot, ids).catch((error: Error) => context.stderr.write(`a2a-lite: removing the folders of deleted tasks: ${error.message}\n`));
    agent.retention?.onDelete((ids) => {
      removeFolders(ids);
      cluster?.bus.publish('deleted', ids);
    });
    await cluster?.bus.subscribe('deleted', (ids) => Array.isArray(ids) && removeFolders(ids.filter((id): id is string => typeof id === 'string')));
    // Sends what the outbox still holds from the last run, before taking new requests.
    let push: PushSender | undefined;
    if (values.push) {
      push = await startPushSender({
        agent,
        store,
        allowPrivateNetworks: values['allow-private-webhooks'] ?? false,
        log: (line) => context.stderr.write(`${line}\n`),
      });
      // Webhooks hear of the tasks the last run left unfinished too.
      for (const task of recovered) await push.record({ kind: 'status', taskId: task.id, contextId: task.contextId, status: task.status }, task);
    }
    const replies = replyPeers.size === 0 ? undefined : startReplySender({ agent, peers: replyPeers, log: (line) => context.stderr.write(`${line}\n`) });
    let baseUrl = values['base-url']?.replace(/\/+$/, '') ?? '';
    // The gRPC port starts after the handler it serves; the card reads its address per request.
    const served: { grpc?: string } = {};
    const handler = createA2AHandler({ agent, baseUrl: () => baseUrl, grpcUrl: () => served.grpc, auth, ...cards, ...(push === undefined ? {} : { push }), ...(callerLimits === undefined ? {} : { limits: callerLimits }), ...(operations.audit === undefined ? {} : { audit: operations.audit }), ...(signing === undefined ? {} : { signing }) });
    const server = port === undefined ? undefined : await listen(handler, { port, host: values.host ?? '127.0.0.1', maxBodyBytes, ...limits, ...(tls === undefined ? {} : { tls: tls.credentials }) });
    const grpc = grpcGiven === undefined ? undefined : await startGrpc(grpcGiven, handler, { maxBodyBytes, ...limits }, tls?.credentials);
    if (grpc !== undefined) served.grpc = grpc.target;
    if (tls !== undefined) reloadTlsOnHangup(tls, [server, grpc], (line) => context.stderr.write(`a2a-lite serve: ${line}\n`));
    // Through a hub, the card names the hub: the agent may have no address of its own to give.
    const hubbed = hub === undefined ? undefined : await startHubConnection(hub, handler, context, (url) => (baseUrl = values['base-url'] === undefined ? url : baseUrl), maxBodyBytes);
    if (baseUrl === '' && server !== undefined) baseUrl = server.url;

    const webhooks = push === undefined ? 'off' : values['allow-private-webhooks'] ? 'on (private networks allowed)' : 'on';
    const kinds = [sources.ring?.bearer ? 'bearer token' : '', sources.ring?.apiKey ? `API key (${auth.apiKeyHeader ?? 'X-API-Key'})` : ''].filter(Boolean);
    const where = {
      url: baseUrl,
      card: `${baseUrl}/.well-known/agent-card.json`,
      jsonrpc: `${baseUrl}${JSONRPC_PATH}`,
      rest: baseUrl,
      ...(grpc === undefined ? {} : { grpc: grpc.target }),
      store: await describeStore(chosen, paths.database, store),
      ...(cluster === undefined ? {} : { replica: cluster.replica, cluster: chosen.cluster === undefined ? 'none (the store alone)' : (await import('../../cluster/nats-url.js')).natsTarget(chosen.cluster).shown }),
      // better-sqlite3, or node:sqlite where the addon was not built (npm install --ignore-scripts).
      ...('driver' in store ? { sqlite: String(store.driver) } : {}),
      push: webhooks,
      auth: kinds.length === 0 ? 'none' : kinds.join(' or '),
      ...(callerLimits === undefined ? {} : { limits: callerLimits }),
      ...(operations.auditPath === undefined ? {} : { audit: operations.auditPath }),
      ...(cards.extendedCard === undefined ? {} : { extendedCard: values['extended-card'] }),
      ...(cards.cardCompat === undefined ? {} : { cardCompat: cards.cardCompat }),
      ...(signing === undefined ? {} : { signed: { kid: signing.key.kid, alg: signing.key.alg, jku: signing.jku ?? `${baseUrl}${JWKS_PATH}` } }),
      ...(agent.retention === undefined ? {} : { retention: retentionExtension(agent.retention.rules).params }),
      ...(replyPeers.size === 0 ? {} : { replyTo: [...replyPeers.keys()] }),
      ...(hub === undefined ? {} : { hub: hubbed?.connection.hubUrl ?? hub.url, hubId: hub.id, listening: server?.url ?? 'none' }),
    };
    // One line of JSON: a supervisor reading a long-running server's output wants lines.
    if (values.json) printLine(context, JSON.stringify({ serving: card.agent.id, ...where }));
    else {
      printLine(context, `serving ${card.agent.name} (${card.agent.id}) on ${where.url}`);
      printLine(context, `  agent card: ${where.card}`);
      printLine(context, `  JSON-RPC:   ${where.jsonrpc} (A2A 1.0 and 0.3)`);
      printLine(context, `  REST:       ${where.rest} (A2A 1.0 HTTP+JSON)`);
      if (where.grpc !== undefined) printLine(context, `  gRPC:       ${where.grpc} (A2A 1.0${tls === undefined ? '' : ', TLS'})`);
      printLine(context, `  tasks:      ${where.store}${where.sqlite === undefined ? '' : ` (SQLite on ${where.sqlite})`}`);
      if (where.replica !== undefined) printLine(context, `  replica:    ${where.replica}, of the replicas sharing this store; bus: ${where.cluster}`);
      printLine(context, `  push:       ${where.push}`);
      printLine(context, `  auth:       ${where.auth}`);
      if (where.limits !== undefined || where.audit !== undefined) printLine(context, `  operations: ${describeOperations(where.limits, where.audit)}`);
      if (where.extendedCard !== undefined) printLine(context, `  extended card: ${where.extendedCard}, for authenticated clients`);
      if (where.signed !== undefined) printLine(context, `  card signed with ${where.signed.alg} key "${where.signed.kid}"; public key at ${where.signed.jku}`);
      printLine(context, `  retention:  ${describeRules(retention.rules, retention.remembered)}`);
      if (hub !== undefined) printLine(context, `  hub:        connected to ${where.hub} as ${hub.id}${hub.urls.length > 1 ? ` (of ${hub.urls.length} hubs)` : ""}; own port: ${where.listening}`);
      if (where.replyTo !== undefined) printLine(context, `  answers:    sent back to ${where.replyTo.join(', ')} (--reply-to)`);
      if (recovered.length > 0) printLine(context, `  ${recovered.length} task(s) left unfinished by the last run are now failed`);
    }

    const signal = await new Promise<NodeJS.Signals | LiteError>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
      void hubbed?.refused.then(resolve);
    });
    hubbed?.connection.close();
    // Stop taking connections, stop sending webhooks (what is unsent stays in the outbox), then
    // end what is running: open streams and waiting requests get that final status before their
    // connections close. Give them a few seconds, then close whatever is left.
    const drained = server === undefined ? Promise.resolve() : new Promise<void>((resolve) => server.server.close(() => resolve()));
    server?.server.closeIdleConnections();
    const grpcClosed = grpc?.close(3000);
    await push?.close();
    await agent.shutdown('the server is shutting down');
    await cluster?.bus.close();
    await replies?.close();
    await operations.close();
    server?.server.closeIdleConnections();
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
    server?.server.closeAllConnections();
    await grpcClosed;
    // The hub refused this agent after a reconnect (its token was taken away, say).
    if (signal instanceof LiteError) throw signal;
    if (!values.json) printLine(context, `stopped (${signal})`);
    return 0;
  },
};

async function cardFrom(path: string, context: Context): Promise<LiteCard> {
  return assertCard(parseJson(await readInput(context, path, 'serve --card'), path), path);
}


function wholeNumber(option: string, value: string, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) > max) throw new LiteError('USAGE', `serve: ${option} is a whole number up to ${max}`);
  return Number(value);
}
