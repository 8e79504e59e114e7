// The replicas of replicas-nats.test.ts on PostgreSQL, as `serve --store postgres://… --cluster
// nats://…` runs them: each replica its own PostgresTaskStore (its own pool) on one database made
// for this file, a schema of its own for each test, and a real NATS server between them.
import { describe } from 'vitest';
import { connectNatsBus } from '../../src/cluster/nats-bus.js';
import { openPostgresTaskStore } from '../../src/store/postgres/task-store.js';
import { NATS_URL, natsAnswers } from '../fixtures/nats.js';
import { needsTool } from '../needs-tool.js';
import { needsPostgres, uniqueName, useTestDatabase } from '../postgres.js';
import type { SharedStores } from './replica-fixture.js';
import { replicaDuties } from './replica-duties.js';
import { replicaScenarios } from './replica-scenarios.js';

const suite = 'replicas on PostgreSQL and NATS (test/cluster/replicas-postgres.test.ts)';
const noPostgres = needsPostgres(suite);
const noNats = !noPostgres && needsTool(suite, await natsAnswers(), `no NATS server answers at ${NATS_URL}`);

describe.skipIf(noPostgres || noNats)('replicas on PostgreSQL and NATS', () => {
  const db = useTestDatabase();
  const stores: SharedStores = async () => {
    const schema = uniqueName('s');
    const view = await openPostgresTaskStore(db.url(), { schema });
    return { view, open: () => openPostgresTaskStore(db.url(), { schema }), close: () => view.close() };
  };
  // Each replica's connection is closed by the fixture after its test.
  const connect = (prefix: string) => connectNatsBus(NATS_URL, { prefix });
  replicaScenarios('PostgreSQL and NATS', connect, stores);
  replicaDuties('PostgreSQL and NATS', connect, stores);
});
