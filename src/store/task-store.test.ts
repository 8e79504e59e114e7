import { clusterStoreContract } from '../../test/contracts/cluster-store.js';
import { pushStoreContract } from '../../test/contracts/push-store.js';
import { taskLogContract } from '../../test/contracts/task-log.js';
import { retentionStoreContract } from '../../test/contracts/retention-store.js';
import { taskStoreContract } from '../../test/contracts/task-store.js';
import { MemoryTaskStore } from './task-store.js';

taskStoreContract('MemoryTaskStore', () => new MemoryTaskStore());
pushStoreContract('MemoryTaskStore', () => new MemoryTaskStore());
taskLogContract('MemoryTaskStore', () => new MemoryTaskStore());
retentionStoreContract('MemoryTaskStore', () => new MemoryTaskStore());
clusterStoreContract('MemoryTaskStore', () => new MemoryTaskStore());
