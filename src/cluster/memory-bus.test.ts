import { describe, expect, it } from 'vitest';
import { busContract } from '../../test/contracts/bus.js';
import { MemoryBus, MemoryNetwork } from './memory-bus.js';
import { openBus } from './open-bus.js';

const network = new MemoryNetwork();
busContract('MemoryBus', async (prefix) => network.connect(prefix));

describe('openBus', () => {
  it('opens the in-process bus for "memory" or no URL, and names a URL it does not take without its password', async () => {
    expect(await openBus(undefined, { prefix: 'p' })).toBeInstanceOf(MemoryBus);
    expect(await openBus('memory', { prefix: 'p' })).toBeInstanceOf(MemoryBus);
    const refused = await openBus('redis://user:hunter2@127.0.0.1:6379', { prefix: 'p' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'USAGE', message: 'the cluster bus is a nats:// URL (or "memory" for one process), not redis://127.0.0.1:6379' });
  });

  it('refuses a prefix that is not dot-separated words', async () => {
    for (const prefix of ['', 'a..b', 'a b', 'a.*', 'a.>']) await expect(openBus(undefined, { prefix })).rejects.toMatchObject({ code: 'USAGE' });
  });
});
