// Where `a2a-lite hub` keeps its registry and how its instances meet: `--store sqlite|memory|
// postgres://…` (or A2A_LITE_HUB_STORE) and `--cluster nats://…` (or A2A_LITE_CLUSTER). A flag's
// value shows in `ps` and in shell histories, so a password or token there is refused: it comes
// from the environment, and every URL is shown without it.

import { join } from 'node:path';
import type { Bus } from '../cluster/bus.js';
import { natsTarget, shownUrl } from '../cluster/nats-url.js';
import { LiteError } from '../errors.js';
import { MemoryHubStore, type HubStore } from '../hub/hub-store.js';
import type { Context } from './context.js';
import { openStores } from './stores.js';

export const STORE_VARIABLE = 'A2A_LITE_HUB_STORE';
export const CLUSTER_VARIABLE = 'A2A_LITE_CLUSTER';
/** The subject prefix of a hub cluster unless `--cluster-prefix` names another. */
export const DEFAULT_CLUSTER_PREFIX = 'a2a-lite.hub';

export interface HubBackingFlags {
  home?: string | undefined;
  store?: string | undefined;
  db?: string | undefined;
  cluster?: string | undefined;
  'cluster-prefix'?: string | undefined;
}

/** What the flags and the environment ask for, checked before anything opens. */
export interface HubBacking {
  store: 'sqlite' | 'memory' | { postgres: string };
  cluster?: { url: string; prefix: string; shown: string };
}

/** Reads the store and cluster flags (or their variables); USAGE naming the mistake. */
export function hubBacking(values: HubBackingFlags, context: Context): HubBacking {
  const given = values.store ?? context.env[STORE_VARIABLE] ?? 'sqlite';
  let store: HubBacking['store'];
  if (given === 'sqlite' || given === 'memory') store = given;
  else if (/^postgres(ql)?:\/\//i.test(given)) {
    if (values.store !== undefined && holdsPassword(given)) {
      throw new LiteError('USAGE', `hub: --store ${redacted(given)} holds a password, which a flag shows to anyone who lists processes; give it in PGPASSWORD, or give the whole URL in ${STORE_VARIABLE}`);
    }
    store = { postgres: given };
  } else {
    throw new LiteError('USAGE', `hub: --store is sqlite, memory or a postgres:// URL${values.store === undefined ? ` (${STORE_VARIABLE} holds ${JSON.stringify(shownUrl(given).slice(0, 100))})` : ''}`);
  }
  if (values.db !== undefined && store !== 'sqlite') throw new LiteError('USAGE', 'hub: --db is for --store sqlite');
  const url = values.cluster ?? context.env[CLUSTER_VARIABLE];
  if (url === undefined || url === '') {
    if (values['cluster-prefix'] !== undefined) throw new LiteError('USAGE', 'hub: --cluster-prefix is for --cluster nats://…');
    return { store };
  }
  if (values.cluster !== undefined && /\/\/[^/@]*@/.test(url)) {
    throw new LiteError('USAGE', `hub: --cluster ${shownUrl(url)} holds a user, password or token, which a flag shows to anyone who lists processes; give the whole URL in ${CLUSTER_VARIABLE}`);
  }
  if (typeof store === 'string') throw new LiteError('USAGE', `hub: --cluster needs a registry that every instance shares: --store postgres://… (or ${STORE_VARIABLE})`);
  const shown = natsTarget(url).shown;
  return { store, cluster: { url, prefix: values['cluster-prefix'] ?? DEFAULT_CLUSTER_PREFIX, shown } };
}

/** Opens the store asked for; where it is, for the operator (never with a password). */
export async function openHubStore(backing: HubBacking, values: HubBackingFlags, context: Context): Promise<{ store: HubStore; where: string }> {
  if (backing.store === 'memory') return { store: new MemoryHubStore(), where: 'memory' };
  if (backing.store === 'sqlite') {
    const where = values.db ?? join(openStores(values, context).home.dir, 'hub.db');
    const { openSqliteHubStore } = await import('../hub/sqlite-hub-store.js');
    return { store: await openSqliteHubStore(where), where };
  }
  const { openPostgresHubStore } = await import('../hub/postgres-hub-store.js');
  const { postgresLocation } = await import('../store/postgres/location.js');
  const store = await openPostgresHubStore(backing.store.postgres, { env: context.env });
  return { store, where: `${postgresLocation(backing.store.postgres, context.env).shown} (schema ${store.schema})` };
}

/** Connects to the cluster's bus, telling the operator on stderr when the connection is lost and back. */
export async function openHubBus(cluster: NonNullable<HubBacking['cluster']>, instance: string, context: Context): Promise<Bus> {
  const { openBus } = await import('../cluster/open-bus.js');
  const onError = (error: unknown, what: string): void => void context.stderr.write(`a2a-lite hub: ${what}: ${error instanceof Error ? error.message : String(error)}\n`);
  return openBus(cluster.url, { prefix: cluster.prefix, name: `a2a-lite hub ${instance}`, onError });
}

function holdsPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return /\/\/[^/@]*:[^/@]*@/.test(url);
  }
}

/** The URL with its password (in the user part or the query) left out. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.searchParams.delete('password');
    return parsed.toString();
  } catch {
    return shownUrl(url);
  }
}
