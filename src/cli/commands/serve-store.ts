// Where `serve` keeps its tasks (--store: SQLite by default, memory, or PostgreSQL), and, on
// PostgreSQL, the replicas it shares them with (--cluster, --replica). A PostgreSQL store always
// makes serve one replica of a possible several: it heartbeats, and the tasks of a replica that
// died are ended by a survivor (or by this one, restarted), never by a blanket recovery that would
// end the tasks of live replicas. Without --cluster the replicas share only the store.

import { hostname } from 'node:os';
import type { Bus } from '../../cluster/bus.js';
import { LiteError } from '../../errors.js';
import type { ClusterOptions } from '../../runtime/agent.js';
import type { ClusterStore } from '../../store/cluster-store.js';
import type { PushStore } from '../../store/push-store.js';
import type { RetentionStore } from '../../store/retention-store.js';
import { MemoryTaskStore, type TaskStore } from '../../store/task-store.js';
import type { Context } from '../context.js';

export const STORE_OPTIONS = {
  store: { type: 'string' },
  cluster: { type: 'string' },
  replica: { type: 'string' },
  'cluster-prefix': { type: 'string' },
  'replica-lease': { type: 'string' },
} as const;

export const STORE_HELP = `  --store sqlite|memory|postgres://USER@HOST:PORT/DB[?schema=S]
                          keep tasks in <home>/a2a-lite.db (default), only in memory, or in
                          PostgreSQL, shared by every replica given the same URL (the variable
                          A2A_LITE_STORE may hold the URL instead; the password comes from
                          PGPASSWORD, never from the command line)
  --cluster nats://HOST:PORT
                          with a postgres store: reach the other replicas over NATS, so that
                          any replica streams, cancels and answers any task at once (or
                          A2A_LITE_CLUSTER). Without it they share only the store
  --replica NAME          this replica's name among them (default: host name and process id)
  --cluster-prefix P      the NATS subjects of this agent's replicas (default a2a-lite.<card id>)
  --replica-lease S       a replica silent this long is dead, and a survivor ends its running
                          tasks as failed (default 15; it heartbeats three times as often)`;

type Values = { store?: string; cluster?: string; replica?: string; 'cluster-prefix'?: string; 'replica-lease'?: string };

export type ServeStore = TaskStore & PushStore & RetentionStore;

/** What --store and --cluster asked for, checked before anything opens. */
export interface StoreChoice {
  kind: 'sqlite' | 'memory' | 'postgres';
  /** The postgres:// URL, as given. */
  url?: string;
  cluster?: string;
  replica?: string;
  prefix?: string;
  leaseMs?: number;
}

/** Reads --store, --cluster, --replica and --cluster-prefix (and their variables); USAGE names what is wrong. */
export function storeChoice(values: Values, context: Context): StoreChoice {
  const fromFlag = values.store;
  const given = fromFlag ?? context.env.A2A_LITE_STORE ?? 'sqlite';
  const cluster = values.cluster ?? context.env.A2A_LITE_CLUSTER;
  if (given === 'sqlite' || given === 'memory') {
    if (cluster !== undefined || values.replica !== undefined || values['cluster-prefix'] !== undefined || values['replica-lease'] !== undefined) {
      throw new LiteError('USAGE', 'serve: --cluster, --replica, --cluster-prefix and --replica-lease need a shared store: --store postgres://…');
    }
    return { kind: given };
  }
  if (!/^postgres(ql)?:\/\//i.test(given)) throw new LiteError('USAGE', 'serve: --store is sqlite, memory or a postgres:// URL');
  if (fromFlag !== undefined && /^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(fromFlag)) {
    throw new LiteError('USAGE', 'serve: --store holds a password, which anyone can read in the process list; give it in PGPASSWORD, or the whole URL in A2A_LITE_STORE');
  }
  if (cluster !== undefined && !/^(nats|tls):\/\//i.test(cluster)) throw new LiteError('USAGE', 'serve: --cluster is a nats:// URL');
  if (values.cluster !== undefined && /\/\/[^/@]*@/.test(values.cluster)) {
    throw new LiteError('USAGE', 'serve: --cluster holds a credential, which anyone can read in the process list; give the whole URL in A2A_LITE_CLUSTER');
  }
  const choice: StoreChoice = { kind: 'postgres', url: given, replica: values.replica ?? `${hostname()}-${process.pid}` };
  if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/.test(choice.replica as string)) throw new LiteError('USAGE', 'serve: --replica is 1 to 128 letters, digits, ".", "_", ":" or "-"');
  if (cluster !== undefined) choice.cluster = cluster;
  if (values['cluster-prefix'] !== undefined) choice.prefix = values['cluster-prefix'];
  if (values['replica-lease'] !== undefined) {
    const seconds = Number(values['replica-lease']);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600) throw new LiteError('USAGE', 'serve: --replica-lease is a whole number of seconds from 1 to 3600');
    choice.leaseMs = seconds * 1000;
  }
  return choice;
}

/** The store `choice` names, opened (its library loaded only now). */
export async function openServeStore(choice: StoreChoice, sqlitePath: string, context: Context): Promise<ServeStore> {
  if (choice.kind === 'memory') return new MemoryTaskStore();
  if (choice.kind === 'sqlite') {
    const { openSqliteTaskStore } = await import('../../store/sqlite/task-store.js');
    return openSqliteTaskStore(sqlitePath);
  }
  const { openPostgresTaskStore } = await import('../../store/postgres/task-store.js');
  return openPostgresTaskStore(choice.url as string, { env: context.env });
}

/** This replica's part in the cluster, for AgentOptions.cluster; undefined for a store of one process. */
export async function joinCluster(choice: StoreChoice, agentId: string, context: Context): Promise<(ClusterOptions & { bus: Bus }) | undefined> {
  if (choice.kind !== 'postgres') return undefined;
  const { openBus } = await import('../../cluster/open-bus.js');
  const { subjectToken } = await import('../../cluster/bus.js');
  const replica = choice.replica as string;
  const bus = await openBus(choice.cluster, {
    prefix: choice.prefix ?? `a2a-lite.${subjectToken(agentId)}`,
    name: replica,
    onError: (error, what) => context.stderr.write(`a2a-lite serve: the cluster bus: ${what}: ${error instanceof Error ? error.message : String(error)}\n`),
  });
  return { replica, bus, ...(choice.leaseMs === undefined ? {} : { leaseMs: choice.leaseMs }) };
}

/** The store as serve's start-up lines name it: a file, memory, or the database without its password. */
export async function describeStore(choice: StoreChoice, sqlitePath: string, store: ServeStore): Promise<string> {
  if (choice.kind === 'memory') return 'memory';
  if (choice.kind === 'sqlite') return sqlitePath;
  const { postgresLocation } = await import('../../store/postgres/location.js');
  const schema = 'schema' in store ? ` (schema ${String(store.schema)})` : '';
  return `${postgresLocation(choice.url as string, {}).shown}${schema}`;
}

/** True when `store` coordinates replicas (PostgreSQL, or memory shared in one process). */
export function sharedStore(store: ServeStore): store is ServeStore & ClusterStore {
  return 'claimKey' in store;
}
