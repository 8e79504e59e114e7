// Our own server as a peer for the client tests, with the behaviours of the SDK peers
// (test/interop/peers/sdk-peer.ts): echo, ask, slow, cut, file, files-in, fail, reject, auth;
// and lite, an agent whose answers carry A2A-Lite headers inside completed tasks.
import type { ServerResponse } from 'node:http';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { createAgent } from '../../src/runtime/agent.js';
import { textOf } from '../../src/model/task.js';
import { listen } from '../../src/net/node-http.js';
import type { GrpcServer } from '../../src/net/grpc-server.js';
import { serveGrpc } from '../../src/serve/grpc-service.js';

export interface LitePeer {
  url: string;
  received: unknown[];
  cancelled: string[];
  cutStreams(): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startLitePeer(options: { token?: string; grpc?: boolean } = {}): Promise<LitePeer> {
  const received: unknown[] = [];
  const cancelled: string[] = [];
  const streams = new Set<ServerResponse>();
  const cutStreams = (): void => {
    for (const res of streams) res.socket?.destroy();
    streams.clear();
  };
  const agent = createAgent({
    card: jiajiaCard({
      skills: [
        { id: 'echo', name: 'Echo', description: 'Says it back', tags: ['echo', 'test'] },
        { id: 'email', name: 'Email', description: 'Sends email', tags: ['email', 'send'] },
      ],
    }),
    async onTask(task, ctx) {
      received.push(task.message);
      ctx.signal.addEventListener('abort', () => cancelled.push(task.id));
      const [word = '', ...rest] = task.text.split(' ');
      const arg = rest.join(' ');
      switch (word) {
        case 'echo':
          await ctx.status('working', { message: 'working on it' });
          return `echo: ${arg}`;
        case 'ask': {
          const answer = await ctx.ask(arg);
          return `got: ${textOf(answer)}`;
        }
        case 'slow':
        case 'cut': {
          const n = Number(arg);
          for (let i = 1; i <= n; i += 1) {
            if (ctx.signal.aborted) return undefined;
            await ctx.status('working', { message: `step ${i} of ${n}` });
            if (word === 'cut' && i === 2) setTimeout(cutStreams, 20);
            await sleep(100);
          }
          return ctx.signal.aborted ? undefined : `done after ${n} steps`;
        }
        case 'file':
          await ctx.complete({ text: 'here is the report', name: 'report', files: [{ name: 'report.md', mediaType: 'text/markdown', bytes: Buffer.from('# Report\n\nAgents talk.\n') }] });
          return undefined;
        case 'files-in': {
          const names = task.files.map((f) => (f.bytes !== undefined ? `${f.name} (${Buffer.from(f.bytes, 'base64').length} bytes)` : `${f.name} (url)`));
          return `received: ${names.length > 0 ? names.join(', ') : 'nothing'}`;
        }
        case 'lite':
          // An A2A-Lite agent behind a channel that ends every answer as a completed task
          // (OpenClaw's a2a channel): where the task stands is in its words' header.
          if (arg === 'ask') return '[A2A:status task=research-009 state=input-required]\nWhich week, this one or the last?';
          await ctx.status('working', { message: '[A2A:status task=research-009 state=working progress=40%]\ncollecting sources' });
          return '[A2A:result task=research-009 state=completed]\nThe report is done.';
        case 'fail':
          await ctx.fail(arg);
          return undefined;
        case 'reject':
          await ctx.reject('not my job');
          return undefined;
        case 'auth':
          await ctx.status('auth-required', { message: 'log in first' });
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          return undefined;
        default:
          return `unknown: ${task.text}`;
      }
    },
  });
  let url = '';
  const served: { grpc?: GrpcServer } = {};
  const handler = createA2AHandler({ agent, baseUrl: () => url, grpcUrl: () => served.grpc?.target, ...(options.token ? { auth: { bearerTokens: [options.token] } } : {}) });
  const server = await listen(handler);
  if (options.grpc === true) served.grpc = await serveGrpc(handler, { host: '127.0.0.1', port: 0 });
  server.server.on('request', (req, res: ServerResponse) => {
    if (!(req.headers.accept ?? '').includes('text/event-stream') && !(req.url ?? '').includes(':stream') && !(req.url ?? '').includes(':subscribe')) return;
    streams.add(res);
    res.on('close', () => streams.delete(res));
  });
  url = server.url;
  return {
    url,
    received,
    cancelled,
    cutStreams,
    close: async () => {
      cutStreams();
      await agent.shutdown('the test peer stopped');
      await served.grpc?.close(100);
      await server.close();
    },
  };
}
