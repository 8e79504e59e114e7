// The same replicas as replicas.test.ts, reaching each other through a real NATS server (each
// test under a subject prefix of its own): notices, forwarded cancels and replies, and waits for
// a claimed key cross the network.
import { describe } from 'vitest';
import { connectNatsBus } from '../../src/cluster/nats-bus.js';
import { NATS_URL, natsAnswers } from '../fixtures/nats.js';
import { needsTool } from '../needs-tool.js';
import { replicaDuties } from './replica-duties.js';
import { replicaScenarios } from './replica-scenarios.js';

const noNats = needsTool('replicas on NATS (test/cluster/replicas-nats.test.ts)', await natsAnswers(), `no NATS server answers at ${NATS_URL}`);

describe.skipIf(noNats)('replicas on NATS', () => {
  // Each replica's connection is closed by the fixture after its test.
  const connect = (prefix: string) => connectNatsBus(NATS_URL, { prefix });
  replicaScenarios('NATS', connect);
  replicaDuties('NATS', connect);
});
