// Replicas of one agent in one process for the cluster suites: agents on one database they share
// (one MemoryTaskStore, or a handle of each replica's own on one PostgreSQL schema: see
// `SharedStores`), each with its own connection to a bus under a prefix of the test's own. A
// replica can be killed: its store calls then never return, its handle is closed and its bus
// connection drops, as when its process dies; it is never shut down after that.
import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';
import type { Bus } from '../../src/cluster/bus.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { textOf, type Task, type TaskEvent, type TaskMessage } from '../../src/model/task.js';
import type { RetentionRules } from '../../src/model/retention.js';
import { createAgent, type Agent, type ClusterOptions, type TaskContext } from '../../src/runtime/agent.js';
import type { ClusterStore } from '../../src/store/cluster-store.js';
import type { PushStore } from '../../src/store/push-store.js';
import type { RetentionStore } from '../../src/store/retention-store.js';
import { MemoryTaskStore, type TaskStore } from '../../src/store/task-store.js';

/** Makes a connection to the cluster under `prefix`. */
export type Connect = (prefix: string) => Promise<Bus>;

/** What a replica keeps its tasks in: every contract the runtime and the push sender use. */
export type ReplicaStore = TaskStore & PushStore & RetentionStore & ClusterStore;

/** One database that the replicas of one test share. */
export interface SharedStore {
  /** The test's own handle, to look at (and plant) what the replicas store. */
  view: ReplicaStore;
  /** A handle for one more replica, as its process would open one: its close is its own. */
  open(): Promise<ReplicaStore>;
  /** Closes the view and lets the database go, once every replica's handle is closed. */
  close(): Promise<void>;
}

/** Makes the database of one test. */
export type SharedStores = () => Promise<SharedStore>;

/**
 * One MemoryTaskStore for all: every replica's handle is the store itself, whose close does
 * nothing (the database outlives each replica: only the test closes it).
 */
export const memoryStores: SharedStores = async () => {
  const store = new MemoryTaskStore();
  const handle = new Proxy(store, { get: (target, key) => (key === 'close' ? async () => undefined : Reflect.get(target, key)) });
  return { view: store, open: async () => handle, close: () => store.close() };
};

export interface Replica {
  name: string;
  agent: Agent;
  bus: Bus;
  /** Its process dies: no more heartbeats, saves or answers. */
  kill(): Promise<void>;
}

export interface ReplicaOptions extends Partial<Omit<ClusterOptions, 'replica' | 'bus'>> {
  retention?: RetentionRules;
  /** The replica's clock (its timestamps and retention's deadlines); the store keeps its own. */
  now?: () => Date;
}

/** Holds handlers until the test lets them go on, one step at a time. */
export class Steps {
  private readonly waiting = new Map<string, () => void>();
  private readonly early = new Set<string>();

  wait(key: string): Promise<void> {
    if (this.early.delete(key)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(key, resolve));
  }

  go(key: string): void {
    const resolve = this.waiting.get(key);
    if (resolve === undefined) return void this.early.add(key);
    this.waiting.delete(key);
    resolve();
  }
}

/**
 * One cluster per test: `replica()` adds one more replica, running the scripted handler below,
 * on a handle of its own on the test's database (made by `stores` with the first replica);
 * `store()` is the test's view of that database. `runs` lists each start of a handler as
 * `replica:text`: the work done.
 */
export function clusterFixture(connect: Connect, stores: SharedStores = memoryStores) {
  let shared: Promise<SharedStore> | undefined;
  let view: ReplicaStore | undefined;
  let prefix = '';
  let live: Replica[] = [];
  const buses: Bus[] = [];
  /** The handles of killed replicas, closing in the background as their connections drop. */
  const dropped: Promise<void>[] = [];
  const runs: string[] = [];
  const steps = new Steps();
  afterEach(async () => {
    await Promise.all(live.map((r) => r.agent.shutdown()));
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
    await Promise.all(dropped.splice(0));
    await (await shared)?.close();
    shared = undefined;
    view = undefined;
    prefix = '';
    live = [];
    runs.length = 0;
  });

  async function replica(name: string, options: ReplicaOptions = {}): Promise<Replica> {
    prefix ||= `test.${randomUUID()}`;
    shared ??= stores();
    const database = await shared;
    view = database.view;
    const handle = await database.open();
    const bus = await connect(prefix);
    buses.push(bus);
    let dead = false;
    const store = new Proxy(handle, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (dead ? new Promise(() => undefined) : (value as (...a: unknown[]) => unknown).apply(target, args));
      },
    });
    const { retention, now, ...cluster } = options;
    const agent = createAgent({
      card: jiajiaCard(),
      store,
      // Every test relies on notices; the one about lost notices sets a short check of its own.
      cluster: { replica: name, bus, leaseMs: 1_500, checkMs: 60_000, ...cluster },
      ...(retention === undefined ? {} : { retention }),
      ...(now === undefined ? {} : { now }),
      onError: () => undefined,
      onTask: (task, ctx) => {
        runs.push(`${name}:${task.text}`);
        return script(task.text, ctx, steps);
      },
    });
    await agent.replica?.joined;
    const made: Replica = {
      name,
      agent,
      bus,
      async kill() {
        dead = true;
        live = live.filter((r) => r !== made);
        // Its connections drop once what it has sent is answered; what it had yet to send is lost.
        dropped.push(handle.close().catch(() => undefined));
        await bus.close();
      },
    };
    live.push(made);
    return made;
  }

  /** The test's view of the database (there is one once the first replica is made). */
  function store(): ReplicaStore {
    if (view === undefined) throw new Error('the test has no database before its first replica');
    return view;
  }

  return { replica, runs, steps, store };
}

/**
 * The handler every replica runs, by the task's text: `hold` (working) until cancelled; `ask` a
 * question and answer with the reply (`ask NAME`: once the test says `NAME#1` after the reply);
 * `steps NAME N`: N working statuses, each once the test says `NAME#i`, then done; anything
 * else: done at once.
 */
async function script(text: string, ctx: TaskContext, steps: Steps): Promise<string | undefined> {
  const [kind, name = '', count = '0'] = text.split(' ');
  if (kind === 'hold') {
    await ctx.status('working');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return undefined;
  }
  if (kind === 'ask') {
    const reply = await ctx.ask('Which year?');
    if (name !== '') {
      await steps.wait(`${name}#1`);
      await ctx.status('working', { message: `looking up ${textOf(reply)}` });
    }
    return `report for ${textOf(reply)}`;
  }
  if (kind === 'steps') {
    for (let i = 1; i <= Number(count); i += 1) {
      await steps.wait(`${name}#${i}`);
      await ctx.status('working', { message: `step ${i}` });
    }
  }
  return `done: ${text}`;
}

let counter = 0;
export const message = (text: string, extra: Partial<TaskMessage> = {}): TaskMessage => ({ messageId: `m-${(counter += 1)}-${randomUUID()}`, role: 'user', parts: [{ kind: 'text', text }], ...extra });

/** The events of `stream`, as each arrives, until it ends. */
export function collect(stream: AsyncIterable<TaskEvent>): { events: TaskEvent[]; done: Promise<TaskEvent[]> } {
  const events: TaskEvent[] = [];
  const done = (async () => {
    for await (const event of stream) events.push(event);
    return events;
  })();
  return { events, done };
}

/** An event as `kind:state@seq` (`task:working@3`, `status:completed@5`, `artifact@4`). */
export function shown(event: TaskEvent): string {
  if (event.kind === 'task') return `task:${event.task.status.state}@${event.seq}${event.gap ? ' gap' : ''}`;
  if (event.kind === 'status') return `status:${event.status.state}@${event.seq}`;
  if (event.kind === 'artifact') return `artifact@${event.seq}`;
  return event.kind;
}

/** Polls `read` until the task is in `state`, within the fixture's bound. */
export async function until(read: () => Promise<Task>, state: Task['status']['state']): Promise<Task> {
  for (let i = 0; i < 2_000; i += 1) {
    const task = await read();
    if (task.status.state === state) return task;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the task never became ${state}`);
}
