// Our server for interop tests: a small agent that echoes, asks, or waits to be cancelled (some
// tasks while `working`, others while only `accepted`).
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { createAgent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { serveGrpc } from '../../src/serve/grpc-service.js';
import type { GrpcServer } from '../../src/net/grpc-server.js';
import type { AuthOptions } from '../../src/a2a/server/auth.js';

export interface LiteServer extends Listening {
  release(): void;
  /** The gRPC binding, when asked for: its card declares it. */
  grpc?: GrpcServer;
}

export interface LiteServerOptions {
  /** Serve the gRPC binding too, on a port of its own. */
  grpc?: boolean;
  auth?: AuthOptions;
}

export async function startLiteServer(options: LiteServerOptions = {}): Promise<LiteServer> {
  let release = () => {};
  let gate = new Promise<void>((resolve) => (release = resolve));
  const agent = createAgent({
    card: jiajiaCard(),
    onMessage: (message) => (message.text.startsWith('answer directly') ? `direct answer to: ${message.text}` : undefined),
    async onTask(task, ctx) {
      if (task.text.startsWith('accept')) {
        // Taken, not begun: the lite state that 1.0 shows as TASK_STATE_SUBMITTED.
        await ctx.status('accepted', { message: 'accepted' });
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return undefined;
      }
      await ctx.status('working', { message: `working on: ${task.text}` });
      if (task.text.startsWith('ask')) {
        const answer = await ctx.ask('which time range?');
        return `research over ${answer.parts[0]?.kind === 'text' ? answer.parts[0].text : '?'}`;
      }
      if (task.text.startsWith('chunks')) {
        const id = await ctx.artifact({ text: 'one ', name: 'draft', lastChunk: false });
        await ctx.artifact({ id, text: 'two', append: true, lastChunk: true });
        await ctx.complete({ message: 'drafted in two chunks' });
        return undefined;
      }
      if (task.text.startsWith('wait')) {
        await Promise.race([gate, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
        if (ctx.signal.aborted) return undefined;
      }
      return `echo: ${task.text}`;
    },
  });
  let url = '';
  // The gRPC server starts after the handler it serves; the card reads its address per request.
  const served: { grpc?: GrpcServer } = {};
  const handler = createA2AHandler({ agent, baseUrl: () => url, grpcUrl: () => served.grpc?.target, ...(options.auth === undefined ? {} : { auth: options.auth }) });
  const server = await listen(handler);
  url = server.url;
  const grpc = options.grpc ? await serveGrpc(handler, { host: '127.0.0.1', port: 0 }) : undefined;
  if (grpc !== undefined) served.grpc = grpc;
  return {
    ...server,
    ...(grpc === undefined ? {} : { grpc }),
    close: async () => {
      await grpc?.close(100);
      await server.close();
    },
    release: () => {
      release();
      gate = new Promise<void>((resolve) => (release = resolve));
    },
  };
}
