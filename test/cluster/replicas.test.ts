// Replicas of one agent in one process, on one MemoryTaskStore and the in-process bus: every
// promise of "any replica answers for any task" (replica-scenarios.ts, replica-duties.ts).
import { MemoryNetwork } from '../../src/cluster/memory-bus.js';
import { replicaDuties } from './replica-duties.js';
import { replicaScenarios } from './replica-scenarios.js';

const network = new MemoryNetwork();
replicaScenarios('the in-process bus', async (prefix) => network.connect(prefix));
replicaDuties('the in-process bus', async (prefix) => network.connect(prefix));
