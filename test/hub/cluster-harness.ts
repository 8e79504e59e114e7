// Hub clusters in this process for the cluster tests: several Hub instances sharing one
// MemoryHubStore (and its directory) and one prefix of an in-process bus, each serving HTTP on
// 127.0.0.1; agents made with createAgent dial in with connectToHub. An instance can stop (it
// leaves the cluster) or crash (its bus and its directory go silent at once, as with SIGKILL).
import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import type { LiteCard } from '../../src/card/types.js';
import { MemoryNetwork, type MemoryBus } from '../../src/cluster/memory-bus.js';
import type { HubDirectory } from '../../src/hub/cluster/directory.js';
import { connectToHub, type HubConnection } from '../../src/hub/connector.js';
import { createHubHandler, hubUpgrades } from '../../src/hub/hub-handler.js';
import { MemoryHubStore } from '../../src/hub/hub-store.js';
import { Hub } from '../../src/hub/hub.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { createAgent, type IncomingTask, type TaskContext } from '../../src/runtime/agent.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';

const network = new MemoryNetwork();
const limits = { maxBodyBytes: 8 << 20, maxStreamBacklogBytes: 1 << 24, requestTimeout: 30_000 };
const cleanups: (() => Promise<unknown> | unknown)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
});

/** The tokens of the clusters made with `auth`: the principal is the name. */
export const TOKENS = { alice: 'cluster-alice-secret', bob: 'cluster-bob-secret' };

export interface Instance {
  hub: Hub;
  url: string;
  bus: MemoryBus;
  /** Its way to the shared directory: `cut`, it fails as a database that went away does. */
  directory: { cut: boolean };
  /** Leaves the cluster and stops, as on SIGTERM. */
  stop(): Promise<void>;
  /** Goes silent at once, as on SIGKILL: no goodbye, its lease left to run out. */
  crash(): Promise<void>;
}

export interface ClusterOptions {
  graceMs?: number;
  checkMs?: number;
  auth?: boolean;
  leaseMs?: number;
}

/** A directory that fails once `cut`: the instance using it has died. */
function cuttable(inner: HubDirectory): HubDirectory & { cut: boolean } {
  const wrapped = { cut: false } as HubDirectory & { cut: boolean };
  for (const name of ['renew', 'leave', 'link', 'unlink', 'linkOf', 'links', 'lead', 'sweep'] as const) {
    (wrapped as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      if (wrapped.cut) return Promise.reject(new Error('this instance is dead'));
      return (inner[name] as (...a: unknown[]) => Promise<unknown>).apply(inner, args);
    };
  }
  return wrapped;
}

/** `count` instances of one hub on one store and one bus prefix. */
export async function memoryCluster(count: number, options: ClusterOptions = {}): Promise<{ instances: Instance[]; store: MemoryHubStore; errors: string[] }> {
  const store = new MemoryHubStore();
  const prefix = `hubs.${randomUUID()}`;
  const errors: string[] = [];
  const instances: Instance[] = [];
  for (let i = 0; i < count; i += 1) {
    let url = '';
    const bus = network.connect(prefix);
    const directory = cuttable(store.directory());
    const hub = new Hub({
      store,
      baseUrl: () => url,
      allowPrivate: true,
      checkMs: options.checkMs ?? 0,
      graceMs: options.graceMs ?? 3_000,
      cluster: { bus, directory, renewMs: 50, leaseMs: options.leaseMs ?? 400, refreshMs: 200 },
      onError: (error, where) => errors.push(`${i}: ${where}: ${(error as Error).message}`),
    });
    await hub.start();
    const auth = options.auth === true ? { bearerTokens: Object.entries(TOKENS).map(([principal, secret]) => ({ principal, secret })) } : undefined;
    const handler = createHubHandler(hub, { ...(auth === undefined ? {} : { auth }), onError: (error, where) => errors.push(`${i}: handler: ${where}: ${(error as Error).message}`) });
    const server: Listening = await listen(handler, { port: 0, host: '127.0.0.1', ...limits, upgrades: hubUpgrades(handler, limits) });
    url = server.url;
    let down = false;
    const instance: Instance = {
      hub,
      url,
      bus,
      directory,
      async stop() {
        if (down) return;
        down = true;
        await hub.stop();
        await server.close();
      },
      async crash() {
        if (down) return;
        down = true;
        directory.cut = true;
        await bus.close();
        hub.close();
        server.server.closeAllConnections();
        await server.close();
      },
    };
    cleanups.push(() => instance.stop());
    instances.push(instance);
  }
  return { instances, store, errors };
}

/**
 * What the test agent does, by the first word of its task: `echo X` answers `echo: X`;
 * `slow N` reports N steps 50 ms apart; `wait` works until cancelled; `ask Q` asks Q.
 */
async function behave(task: IncomingTask, context: TaskContext): Promise<string> {
  const [word = '', ...rest] = task.text.split(' ');
  const arg = rest.join(' ');
  if (word === 'slow') {
    for (let step = 1; step <= Number(arg); step += 1) {
      await context.status('working', { message: `step ${step}`, progress: step });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return `done after ${arg} steps`;
  }
  if (word === 'wait') {
    await context.status('working', { message: 'waiting' });
    await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
    return 'stopped';
  }
  if (word === 'ask') return `got: ${(await context.ask(arg)).parts.map((part) => ('text' in part ? part.text : '')).join('')}`;
  return `echo: ${arg}`;
}

/** The test agent `id` as a plain A2A server on 127.0.0.1 (for registration by URL), counting the reads of its card. */
export async function urlAgent(id: string): Promise<{ url: string; cardReads: () => number }> {
  let url = '';
  let reads = 0;
  const a2a = createA2AHandler({ agent: createAgent({ card: cardOf(id, ['echo']), store: new MemoryTaskStore(), onTask: behave }), baseUrl: () => url });
  const server = await listen((request) => {
    if (request.path === '/.well-known/agent-card.json') reads += 1;
    return a2a(request);
  }, { port: 0, host: '127.0.0.1' });
  url = server.url;
  cleanups.push(() => server.close());
  return { url, cardReads: () => reads };
}

function cardOf(id: string, skills: readonly string[]): LiteCard {
  return jiajiaCard({
    agent: { id, name: `Agent ${id}`, framework: 'other' },
    skills: skills.map((skill) => ({ id: skill, name: skill, description: `does ${skill}`, inputModes: ['text'], outputModes: ['text'] })),
    capabilities: { streaming: true, fileTransfer: false, asyncTasks: true },
  });
}

/** An agent `id` dialled in to `hubs` in turn (the first that answers), as `serve --hub A,B` dials. */
export function dialAgent(id: string, hubs: string[], options: { token?: string; skills?: string[] } = {}): HubConnection {
  const agent = createAgent({ card: cardOf(id, options.skills ?? ['echo']), store: new MemoryTaskStore(), onTask: behave });
  let base = '';
  const connection = connectToHub({
    hubUrl: hubs,
    agentId: id,
    ...(options.token === undefined ? {} : { token: options.token }),
    handler: createA2AHandler({ agent, baseUrl: () => base }),
    onBaseUrl: (url) => (base = url),
    minBackoffMs: 20,
    maxBackoffMs: 100,
  });
  cleanups.push(() => connection.close());
  return connection;
}
