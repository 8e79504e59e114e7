// The bus on a real NATS server: the Bus contract the in-process bus passes too, then what only
// a network has: a server that dies and comes back, and a server that is not there.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { connectNatsBus, type NatsBus } from '../../src/cluster/nats-bus.js';
import { busContract } from '../contracts/bus.js';
import { NATS_URL, freePort, hasNatsServerBin, natsAnswers, privateNats, type PrivateNats } from '../fixtures/nats.js';
import { eventually } from '../fixtures/webhook.js';
import { needsTool } from '../needs-tool.js';

const noNats = needsTool('the cluster bus on NATS (test/cluster/nats-bus.test.ts)', await natsAnswers(), `no NATS server answers at ${NATS_URL}`);

describe.skipIf(noNats)('the bus on NATS', () => {
  busContract('NatsBus', (prefix) => connectNatsBus(NATS_URL, { prefix }));

  it('refuses a message larger than the server carries, naming both sizes', async () => {
    const bus = await connectNatsBus(NATS_URL, { prefix: `test.${randomUUID()}` });
    try {
      await bus.respond('big', () => 'never asked');
      const refused = await bus.request('big', 'x'.repeat(2 * 1024 * 1024), 5_000).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'INPUT_TOO_LARGE', message: expect.stringMatching(/^a message of \d+ bytes cannot cross to another replica: the cluster bus carries at most \d+$/) });
    } finally {
      await bus.close();
    }
  });

  it('refuses a server that is not there with the URL shown without its password', async () => {
    const port = await freePort();
    const refused = await connectNatsBus(`nats://replica:hunter2@127.0.0.1:${port}`, { prefix: 'p', connectTimeoutMs: 1_000 }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'CLUSTER_UNAVAILABLE' });
    expect((refused as Error).message).toContain(`nats://127.0.0.1:${port}`);
    expect((refused as Error).message).not.toContain('hunter2');
    expect(JSON.stringify(refused)).not.toContain('hunter2');
  });
});

const noServerBin = !noNats && needsTool('a NATS server of its own (test/cluster/nats-bus.test.ts)', hasNatsServerBin, 'no nats-server binary (set A2A_LITE_NATS_SERVER)');

describe.skipIf(noNats || noServerBin)('the bus on NATS, when the server dies and comes back', () => {
  let server: PrivateNats;
  const buses: NatsBus[] = [];
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await server?.kill();
  });

  it('subscribes again by itself, tells its users to catch up, and still closes cleanly', async () => {
    server = privateNats(await freePort());
    await server.start();
    const reported: string[] = [];
    const onError = (error: unknown) => reported.push((error as Error).message);
    const [a, b] = [await connectNatsBus(server.url, { prefix: 'c1', onError }), await connectNatsBus(server.url, { prefix: 'c1', onError })];
    buses.push(a, b);
    const heard: unknown[] = [];
    await b.subscribe('task.t', (message) => heard.push(message));
    await b.respond('replica.b', () => 'back');
    let reconnects = 0;
    b.onReconnect(() => (reconnects += 1));
    a.publish('task.t', 1);
    await eventually(() => expect(heard).toEqual([1]));

    await server.kill();
    await eventually(() => expect(reported).toContain('the connection to the NATS server was lost; reconnecting'));
    // Published while the server is away: lost or sent on return, never an error.
    expect(() => a.publish('task.t', 'meanwhile')).not.toThrow();
    await expect(a.request('replica.b', null, 200)).rejects.toMatchObject({ code: 'CLUSTER_UNAVAILABLE' });

    await server.start();
    await eventually(() => expect(reconnects).toBe(1));
    await eventually(async () => expect(await a.request('replica.b', null, 1_000)).toBe('back'));
    a.publish('task.t', 2);
    await eventually(() => expect(heard.at(-1)).toBe(2));
    expect(reported).toContain('the connection to the NATS server is back');
    await a.close();
    await b.close();
  });
});
