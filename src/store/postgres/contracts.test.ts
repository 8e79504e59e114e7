// The PostgreSQL task store held to every store contract (tasks, push, event log, retention and
// the cluster's), each test on a fresh schema of a database made for this file.
import { describe } from 'vitest';
import { clusterStoreContract } from '../../../test/contracts/cluster-store.js';
import { pushStoreContract } from '../../../test/contracts/push-store.js';
import { retentionStoreContract } from '../../../test/contracts/retention-store.js';
import { taskLogContract } from '../../../test/contracts/task-log.js';
import { taskStoreContract } from '../../../test/contracts/task-store.js';
import { needsPostgres, uniqueName, useTestDatabase } from '../../../test/postgres.js';
import { openPostgresTaskStore, type PostgresTaskStore } from './task-store.js';

const noPostgres = needsPostgres('the PostgreSQL task store contracts (src/store/postgres)');

describe.skipIf(noPostgres)('PostgresTaskStore', () => {
  const db = useTestDatabase();
  const open = () => openPostgresTaskStore(db.url(), { schema: uniqueName('s') });
  taskStoreContract('PostgresTaskStore', open);
  pushStoreContract('PostgresTaskStore', open);
  taskLogContract('PostgresTaskStore', open);
  retentionStoreContract('PostgresTaskStore', open);
  clusterStoreContract('PostgresTaskStore', open, (first) => openPostgresTaskStore(db.url(), { schema: (first as PostgresTaskStore).schema }));
});
