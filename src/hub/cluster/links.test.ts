import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBus } from '../../cluster/memory-bus.js';
import { MemoryHubDirectory } from './directory.js';
import { ClusterLinks } from './links.js';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

/** Instances `names` on one bus and one directory; each says which of its links were taken over. */
async function instances(...names: string[]) {
  const directory = new MemoryHubDirectory();
  const first = new MemoryBus('test.links');
  open.push(first);
  const made: Record<string, { links: ClusterLinks; takenOver: string[]; bus: MemoryBus }> = {};
  for (const name of names) {
    const bus = first.peer();
    open.push(bus);
    const takenOver: string[] = [];
    await directory.renew(name, 60_000);
    const links = new ClusterLinks({ bus, directory, self: name, takenOver: (agentId) => takenOver.push(agentId), onError: (error) => void expect.fail(String(error)) });
    await links.start();
    made[name] = { links, takenOver, bus };
  }
  return { directory, made: made as Record<string, { links: ClusterLinks; takenOver: string[]; bus: MemoryBus }> };
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));

describe('ClusterLinks', () => {
  it('learns of each link taken elsewhere, the later one winning, and drops its own when another instance took it later', async () => {
    const { made } = await instances('a', 'b', 'c');
    made.b?.links.up('x', 'websocket');
    await settle();
    expect(made.a?.links.cached('x')).toMatchObject({ instance: 'b', kind: 'websocket' });
    made.c?.links.up('x', 'event-stream');
    await settle();
    expect(made.a?.links.cached('x')).toMatchObject({ instance: 'c', kind: 'event-stream' });
    expect(made.b?.takenOver).toEqual(['x']);
    expect(made.c?.takenOver).toEqual([]);
    // b's link closing later says nothing of c's.
    made.b?.links.down('x');
    await settle();
    expect(made.a?.links.cached('x')).toMatchObject({ instance: 'c' });
    made.c?.links.down('x');
    await settle();
    expect(made.a?.links.cached('x')).toBeUndefined();
    expect(await made.a?.links.where('x')).toBeUndefined();
  });

  it('finds in the directory what it did not hear, and mends what it missed on the next reload', async () => {
    const { directory, made } = await instances('a', 'b');
    await directory.link('x', 'b', 'websocket');
    expect(made.a?.links.cached('x')).toBeUndefined();
    expect(await made.a?.links.where('x')).toMatchObject({ instance: 'b' });
    await directory.unlink('x', 'b');
    await directory.link('y', 'b', 'websocket');
    await made.a?.links.refresh(['a', 'b']);
    expect(made.a?.links.cached('x')).toBeUndefined();
    expect(made.a?.links.cached('y')).toMatchObject({ instance: 'b' });
    expect(made.a?.links.count()).toBe(1);
  });

  it('passes over a link found not there, and an instance found gone until it is heard again', async () => {
    const { directory, made } = await instances('a', 'b');
    await directory.link('x', 'b', 'websocket');
    const link = await made.a?.links.where('x');
    made.a?.links.stale(link as NonNullable<typeof link>);
    expect(await made.a?.links.where('x')).toBeUndefined();
    made.b?.links.up('x', 'websocket');
    await settle();
    expect(await made.a?.links.where('x')).toMatchObject({ instance: 'b' });

    made.a?.links.lost('b');
    expect(await made.a?.links.where('x')).toBeUndefined();
    made.a?.links.seen('b');
    expect(await made.a?.links.where('x')).toMatchObject({ instance: 'b' });
  });

  it('wakes a request waiting for an agent when its link is heard of, and lets it go after its time otherwise', async () => {
    const { made } = await instances('a', 'b');
    let woke = false;
    const waiting = made.a?.links.arrival('x', 5_000).then(() => (woke = true));
    made.b?.links.up('x', 'websocket');
    await waiting;
    expect(woke).toBe(true);
    await made.a?.links.arrival('nobody', 20);
  });

  it('claims its links back after its lease ran out, unless another instance holds them now', async () => {
    const { directory, made } = await instances('a', 'b');
    made.a?.links.up('x', 'websocket');
    made.a?.links.up('y', 'websocket');
    await settle();
    await directory.link('y', 'b', 'websocket');
    made.a?.links.reclaim();
    await settle();
    expect(made.a?.takenOver).toEqual(['y']);
    expect(await directory.linkOf('x')).toMatchObject({ instance: 'a' });
  });
});
