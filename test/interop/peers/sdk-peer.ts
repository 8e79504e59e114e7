// Real A2A servers built with the official SDK, for testing our client against: @a2a-js/sdk
// 1.x speaking A2A 1.0 (JSON-RPC and HTTP+JSON, and gRPC when asked) or 0.3.x speaking A2A 0.3 (JSON-RPC), each
// running the scripted agent of behaviour.ts on 127.0.0.1, optionally behind a bearer token.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { AgentCard, TaskState } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder } from '@a2a-js/sdk/server/grpc';
import * as grpc from '@grpc/grpc-js';
import { DefaultRequestHandler as DefaultRequestHandler03, InMemoryTaskStore as InMemoryTaskStore03 } from 'a2a-js-sdk-v03/server';
import { agentCardHandler as agentCardHandler03, jsonRpcHandler as jsonRpcHandler03 } from 'a2a-js-sdk-v03/server/express';
import { CARD_PATH, cardV03, cardV1, JSONRPC_PATH, REST_PATH } from './cards.js';
import { executorV03 } from './executor-v03.js';
import { executorV1 } from './executor-v1.js';
import { AgentRuns } from './runs.js';
import { PeerStreams, PeerUser, type Middleware } from './streams.js';

export interface SdkPeerOptions {
  version: '1.0' | '0.3';
  /** When set, every request but GET of the card needs `Authorization: Bearer <token>`. */
  token?: string;
  /** 1.0 only: serve gRPC too, on a port of its own that the card declares (without the token gate). */
  grpc?: boolean;
}

export interface SdkPeer {
  /** Base URL, e.g. http://127.0.0.1:PORT; the card is at `${url}/.well-known/agent-card.json`. */
  url: string;
  /** Every user message the executor received, as the SDK gave it. */
  received: unknown[];
  /** Task ids the executor was asked to cancel. */
  cancelled: string[];
  /** Destroys the sockets of all currently open SSE responses; their tasks go on running. */
  cutStreams(): void;
  close(): Promise<void>;
}

/** The little of express 5 used here: it ships no types, and @types/express is not a dependency. */
interface ExpressApp {
  (req: IncomingMessage, res: ServerResponse): void;
  use(...handlers: Middleware[]): void;
  use(path: string, ...handlers: Middleware[]): void;
}
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

/**
 * Starts an SDK peer on 127.0.0.1 at a free port.
 * @example
 * const peer = await startSdkPeer({ version: '1.0', token: 'secret' });
 * // ... point a client at peer.url, send "echo hi", "slow 3", "cut 4", ...
 * await peer.close();
 */
export async function startSdkPeer(options: SdkPeerOptions): Promise<SdkPeer> {
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const bearer = options.token !== undefined;
  const streams = new PeerStreams();
  const runs = new AgentRuns(streams);
  const userBuilder = async (req: IncomingMessage) => new PeerUser(req, bearer);
  let grpcServer: grpc.Server | undefined;

  app.use(streams.watch);
  if (options.token !== undefined) app.use(bearerGate(options.token));
  if (options.version === '1.0') {
    let grpcTarget: string | undefined;
    if (options.grpc === true) {
      grpcServer = new grpc.Server();
      const port = await new Promise<number>((resolve, reject) => grpcServer!.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
      grpcTarget = `127.0.0.1:${port}`;
    }
    const card = AgentCard.fromJSON(cardV1(url, bearer, grpcTarget));
    const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executorV1(runs), undefined, undefined, undefined, undefined, undefined, {
      // The SDK keeps a stream open through auth-required, waiting for credentials to arrive out
      // of band; this agent has no such channel, so its turn (and the stream) ends there.
      keepBusAliveStates: [TaskState.TASK_STATE_INPUT_REQUIRED],
    });
    // The card handler serializes what it is given with JSON.stringify, which would show the
    // SDK's internal oneof form ($case) of securitySchemes; give it the ProtoJSON form instead.
    const wireCard = AgentCard.toJSON(card) as AgentCard;
    app.use(CARD_PATH, agentCardHandler({ agentCardProvider: async () => wireCard }));
    app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler: handler, userBuilder }));
    app.use(REST_PATH, restHandler({ requestHandler: handler, userBuilder }));
    grpcServer?.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  } else {
    const handler = new DefaultRequestHandler03(cardV03(url, bearer), new InMemoryTaskStore03(), executorV03(runs));
    app.use(CARD_PATH, agentCardHandler03({ agentCardProvider: handler }));
    app.use(JSONRPC_PATH, jsonRpcHandler03({ requestHandler: handler, userBuilder }));
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    received: runs.received,
    cancelled: runs.cancelled,
    cutStreams: () => streams.cutAll(),
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        runs.stopAll();
        grpcServer?.forceShutdown();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      })),
  };
}

/** Refuses everything but reading the card without the token, the way HTTP bearer auth does. */
function bearerGate(token: string): Middleware {
  return (req, res, next) => {
    const path = new URL(req.url ?? '/', 'http://peer').pathname;
    if ((req.method === 'GET' && path === CARD_PATH) || req.headers.authorization === `Bearer ${token}`) return next();
    res.statusCode = 401;
    res.setHeader('WWW-Authenticate', 'Bearer realm="sdk-peer"');
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ error: 'a valid bearer token is required' }));
  };
}
